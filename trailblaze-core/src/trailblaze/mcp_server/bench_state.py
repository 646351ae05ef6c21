"""The values the parts of one ``trailblaze mcp`` workbench hand each other: what the server was started
with, the connected device, and a recorded step. Plain data; each part owns its own state."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..contract.device import SessionDriver
from ..runner.options import RunOptions
from ..session import Session
from ..tools.base import ToolCall

if TYPE_CHECKING:
    from ..runner.lifecycle import SessionLifecycle


def deprecated_slice(module: str, name: str) -> Any:
    """``BenchState``, ``DeviceBench`` and ``ToolOffering`` were slices of ``Workbench`` (its bases, one per
    file) until contract 1.1; ``Workbench`` now *has* its parts. The old names are the workbench itself for
    one minor version, with a warning. Resolved by name when the old name is read, never at import: the
    modules holding the parts stand below the workbench."""
    import importlib
    import warnings

    warnings.warn(f"{module}.{name} is deprecated: use trailblaze.mcp_server.workbench.Workbench (it has its "
                  "parts as fields: devices, offer, recording, actions)", DeprecationWarning, stacklevel=3)
    return importlib.import_module("trailblaze.mcp_server.workbench").Workbench


def __getattr__(name: str) -> Any:
    if name == "BenchState":
        return deprecated_slice(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Connected", "McpSettings", "RecordedStep", "StepKind"]

StepKind = Literal["step", "verify"]


@dataclass
class RecordedStep:
    """One step of the trail being recorded: consecutive calls under the same text and kind."""

    kind: StepKind
    text: str
    classifier: str
    calls: list[ToolCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What could not be recorded in this step, saved as comments above it."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "classifier": self.classifier,
                "recording": [c.to_json() for c in self.calls]}


@dataclass
class McpSettings:
    """What ``trailblaze mcp`` was started with (the CLI flags map onto it 1:1)."""

    workspace: Path | None = None
    target: str | None = None
    allow_host_tools: bool = False
    secrets: dict[str, str] = field(default_factory=dict)
    memory: dict[str, str] = field(default_factory=dict)
    driver_options: dict[str, Any] = field(default_factory=dict)
    headed: bool = False
    llm: str | None = None
    max_llm_calls: int | None = None
    output_dir: Path | None = None
    logging: bool = True
    setup: list[str] = field(default_factory=list)
    """Setup trails replayed by ``replay_setup`` (``session start``/``record --setup``)."""
    device: str | None = None
    """``mcp -d``: the device connected at start (``web``, ``android/emulator-5554``), as upstream pins one."""

    def run_options(self) -> RunOptions:
        return RunOptions(driver_options=dict(self.driver_options), memory=dict(self.memory),
                          secrets=dict(self.secrets), output_dir=self.output_dir, llm=self.llm,
                          max_llm_calls=self.max_llm_calls, headed=self.headed, logging=self.logging,
                          report=False, save_recording=False, test_name="mcp",
                          host_tools=self.allow_host_tools)


@dataclass
class Connected:
    """The connected device: its session's lifecycle, what closes it, and the run options it was opened with."""

    lifecycle: SessionLifecycle
    close: contextlib.ExitStack
    options: RunOptions

    @property
    def session(self) -> Session:
        return self.lifecycle.session

    @property
    def driver(self) -> SessionDriver[Session]:
        driver = self.lifecycle.session.driver
        assert driver is not None
        return driver

    @property
    def classifier(self) -> str:
        """What the recorded steps are filed under (``android-phone``; the driver key without classifiers)."""
        return "-".join(self.session.device.classifiers) or self.driver.key
