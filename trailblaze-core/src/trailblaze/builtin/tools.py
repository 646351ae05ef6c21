"""Device-independent built-in tools: ``wait``, ``exec``, ``dumpMemory``, ``rememberValue`` and upstream's
memory toolset (:mod:`.memory_tools`), ``assertWaypoint`` (:mod:`.waypoint_tool`) and ``findMatches``
(:mod:`.match_tool`)."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from pydantic import Field

from ..context import ToolContext
from ..contract.markers import hookimpl
from ..tools.base import Tool, ToolResult
from ..tools.registry import ToolRegistry
from ..tools.serialization import upstream_class_decoder
from ..untrusted import decode_output
from .match_tool import FindMatchesTool
from .memory_tools import MEMORY_CLASSES, MEMORY_TOOLS
from .waypoint_tool import AssertWaypointTool


class WaitTool(Tool):
    """Wait a fixed number of seconds. Prefer waiting for something specific when the driver offers it."""

    name = "wait"
    toolsets = ("core_interaction",)
    timeToWaitInSeconds: float = Field(5, ge=0, le=3600, description="Seconds to wait.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        time.sleep(float(self.timeToWaitInSeconds))
        return ToolResult.ok(f"waited {self.timeToWaitInSeconds:g}s")


class ExecTool(Tool):
    """Run a process on the host machine (no shell) and check its exit code.

    Host-only and never offered to a model: it is for recordings and composed tools that prepare
    state (seed a database, start a fixture).
    """

    name = "exec"
    surface_to_llm = False
    is_recordable = False
    requires_host = True
    argv: list[str] = Field(..., min_length=1, description="Program and arguments; no shell expansion.")
    workingDir: str | None = Field(None, description="Working directory (relative to the workspace root).")
    expectedExitCode: int = Field(0, description="The exit code that counts as success.")
    outputFilterRegex: str | None = Field(None, description="Only output lines matching this are reported.")
    timeoutSeconds: float | None = Field(None, gt=0, description="Kill the process after this many seconds.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        cwd = Path(self.workingDir) if self.workingDir else ctx.session.workspace.root
        if not cwd.is_absolute():
            cwd = ctx.session.workspace.root / cwd
        try:
            # Bytes, not text: a program's output need not be UTF-8; success is judged by the exit code.
            proc = subprocess.run(self.argv, cwd=cwd, capture_output=True, timeout=self.timeoutSeconds,
                                  env=os.environ.copy(), check=False)
        except FileNotFoundError:
            return ToolResult.fail(f"exec: program not found: {self.argv[0]}")
        except subprocess.TimeoutExpired:
            return ToolResult.fail(f"exec: {self.argv[0]} timed out after {self.timeoutSeconds:g}s")
        output = decode_output(proc.stdout) + decode_output(proc.stderr)
        if self.outputFilterRegex:
            pattern = re.compile(self.outputFilterRegex)
            output = "\n".join(line for line in output.splitlines() if pattern.search(line))
        if proc.returncode != self.expectedExitCode:
            tail = "\n".join(output.strip().splitlines()[-20:])
            return ToolResult.fail(f"exec: {' '.join(self.argv)} exited with {proc.returncode}, expected "
                                   f"{self.expectedExitCode}" + (f":\n{tail}" if tail else ""))
        return ToolResult.ok(output.strip() or f"exit code {proc.returncode}",
                             data={"exitCode": proc.returncode})


class DumpMemoryTool(Tool):
    """Print the values remembered so far in this session (secrets are never shown)."""

    name = "dumpMemory"
    toolsets = ("memory",)

    def execute(self, ctx: ToolContext) -> ToolResult:
        values = ctx.memory.snapshot()
        text = "\n".join(f"{k} = {v}" for k, v in sorted(values.items())) or "(memory is empty)"
        return ToolResult.ok(text, data=values)


class RememberValueTool(Tool):
    """Store a literal value in memory under a name (recordings use it to set up later steps)."""

    name = "rememberValue"
    surface_to_llm = False
    toolsets = ("memory",)
    variable: str = Field(..., pattern=r"^[a-zA-Z_][a-zA-Z0-9_.]*$", description="Memory key.")
    value: str = Field(..., description="Value to store.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        ctx.memory.remember(self.variable, self.value)
        return ToolResult.ok(f"remembered {self.variable}")


BUILTIN_TOOLS: tuple[type[Tool], ...] = (WaitTool, ExecTool, DumpMemoryTool, RememberValueTool, *MEMORY_TOOLS,
                                         AssertWaypointTool, FindMatchesTool)


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    registry.add_tools(BUILTIN_TOOLS)


trailblaze_decode_tool = upstream_class_decoder({
    "xyz.block.trailblaze.toolcalls.commands.WaitForIdleSyncTrailblazeTool": "wait",
    "xyz.block.trailblaze.toolcalls.commands.ExecTrailblazeTool": "exec",
    "xyz.block.trailblaze.toolcalls.commands.memory.DumpMemoryTrailblazeTool": "dumpMemory",
    **MEMORY_CLASSES,
    "xyz.block.trailblaze.toolcalls.commands.AssertWaypointTrailblazeTool": "assertWaypoint",
    "xyz.block.trailblaze.toolcalls.commands.FindMatchesTrailblazeTool": "findMatches",
})
"""Upstream's legacy ``{"class": ...}`` form of these tools (the classes its ``*.tool.yaml`` files name)."""
