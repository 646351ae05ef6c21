"""``script:`` declarations are handed to the script runtime plugin through ``trailblaze_script_tools``
(SCRIPT_HANDOFF.md). Without such a plugin each declaring file fails alone with the install hint; with one,
the spec carries what the contract promises and the definitions it returns are registered."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from trailblaze import hookimpl
from trailblaze.errors import BadInputError
from trailblaze.tools.base import ToolDefinition, ToolResult
from trailblaze_yaml_tools.script import ScriptToolSpec

SCRIPT_TOOL = """
id: demo_seed
description: Seed the database.
parameters:
  - {name: rows, type: integer, required: false, default: 10}
requires_host: true
script: ./seed.py
"""

DESCRIPTOR = """
script: ./artifacts.js
runtime: subprocess
requiresHost: true
tools:
  - name: demo_writeArtifact
    description: Write a text artifact.
    supportedPlatforms: [WEB]
    inputSchema:
      relativePath: {type: string, description: Path under the artifacts dir, required: false}
      contents: {type: string}
  - name: demo_readArtifact
    description: Read one back.
    isRecordable: false
"""

MANIFEST = """
id: demo
mcp_servers:
  - script: ./server.ts
    env: {MODE: test}
"""

FILES = {
    "trails/config/trailmaps/demo/trailmap.yaml": MANIFEST,
    "trails/config/trailmaps/demo/tools/demo_seed.tool.yaml": SCRIPT_TOOL,
    "trails/config/trailmaps/demo/tools/artifacts.yaml": DESCRIPTOR,
    "trails/config/trailmaps/demo/tools/demo_plain.tool.yaml":
        "id: demo_plain\ndescription: d\nparameters: []\ntools: [{wait: {timeToWaitInSeconds: 0}}]\n",
    "trails/config/trailmaps/demo/tools/seed.py": "print('not run by this plugin')\n",
}


def test_without_the_mcp_plugin_each_script_file_fails_alone_with_the_install_hint(write, load) -> None:
    ws = load(write(FILES))
    assert "demo_plain" in ws.registry  # siblings load
    errors = sorted(ws.errors)
    assert len(errors) == 3, errors
    hint = "need the trailblaze-mcp-subprocess plugin (pip install trailblaze-mcp-subprocess)"
    assert all(hint in e for e in errors)
    joined = "\n".join(errors)
    assert re.search(r"demo_seed\.tool\.yaml:6:1: 'script': 'seed\.py' is a script tool", joined)
    assert re.search(r"artifacts\.yaml:1:1: 'script': 'artifacts\.js' is a script tool", joined)
    assert re.search(r"demo/trailmap\.yaml:3:5: 'script': 'server\.ts' is a script tool", joined)
    report = ws.check()
    assert len(report.errors) == 3 and all(f.check == "YamlTools" for f in report.errors)


@dataclass(kw_only=True)
class ServedTool(ToolDefinition):
    """What a script runtime returns: a definition whose calls would go to its server."""

    kind: ClassVar[str] = "served"
    spec: Any = None

    def parameters(self) -> Any:
        decl = next(t for t in self.spec.tools if t.name == self.name)
        return decl.parameters

    def invoke(self, prepared: Any, ctx: Any) -> ToolResult:
        return ToolResult.ok(f"served {self.name} with {prepared}")


class ScriptRuntime:
    """A script runtime plugin honouring the contract (stands in for trailblaze-mcp-subprocess)."""

    def __init__(self) -> None:
        self.specs: list[ScriptToolSpec] = []

    @hookimpl
    def trailblaze_script_tools(self, spec: ScriptToolSpec, config: Any) -> list[ToolDefinition]:
        self.specs.append(spec)
        if spec.script.name == "broken.py":
            raise BadInputError(f"script not found: {spec.script}")
        return [ServedTool(name=d.name, description=d.description, source=spec.source, trailmap=spec.trailmap,
                           surface_to_llm=d.surface_to_llm, is_recordable=d.is_recordable,
                           requires_host=d.requires_host, platforms=d.platforms, spec=spec) for d in spec.tools]


def test_the_spec_carries_the_contract_and_returned_definitions_register(host, write, load) -> None:
    runtime = ScriptRuntime()
    host.register(runtime, "scripts")
    root = write({**FILES, "trails/config/trailmaps/demo/tools/demo_broken.tool.yaml":
                  SCRIPT_TOOL.replace("demo_seed", "demo_broken").replace("seed.py", "broken.py")})
    ws = load(root)
    tools_dir = root / "trails/config/trailmaps/demo/tools"
    specs = {s.kind + ":" + s.script.name: s for s in runtime.specs}
    assert set(specs) == {"tool:seed.py", "tool:broken.py", "descriptor:artifacts.js", "server:server.ts"}

    seed = specs["tool:seed.py"]
    assert seed.file == tools_dir / "demo_seed.tool.yaml" and seed.line == 1
    assert seed.script == (tools_dir / "seed.py").resolve() and seed.runtime is None
    assert seed.trailmap == "demo" and seed.source.plugin == "yaml_tools" and seed.source.file == seed.file
    [decl] = seed.tools
    assert decl.name == "demo_seed" and decl.requires_host is True
    assert decl.input_schema == {"type": "object", "properties": {"rows": {"type": "integer", "default": 10}},
                                 "additionalProperties": False}

    desc = specs["descriptor:artifacts.js"]
    assert desc.runtime == "subprocess"
    write_decl, read_decl = desc.tools
    assert write_decl.input_schema["required"] == ["contents"]
    assert write_decl.platforms == frozenset({"web"}) and write_decl.requires_host is True  # file-wide default
    assert write_decl.meta["trailblaze/requiresHost"] is True
    assert read_decl.is_recordable is False and read_decl.input_schema is None

    server = specs["server:server.ts"]
    assert server.tools == () and server.options == {"env": {"MODE": "test"}}
    assert server.script == (root / "trails/config/trailmaps/demo/server.ts").resolve()

    assert {"demo_seed", "demo_writeArtifact", "demo_readArtifact", "demo_plain"} <= set(ws.registry.names())
    assert ws.registry.get("demo_seed").trailmap == "demo"
    [error] = ws.errors  # the runtime's own error, located at the declaring file
    assert re.search(r"demo_broken\.tool\.yaml: script not found: .*broken\.py", error), error
    from trailblaze.tools.base import ToolCall

    session = ws.session()
    result = session.dispatcher.call(ToolCall("demo_seed", {}), session.context())
    assert result.success and result.message == "served demo_seed with {'rows': 10}"


def test_a_runtime_defining_undeclared_names_is_rejected(host, write, load) -> None:
    class Sloppy:
        @hookimpl
        def trailblaze_script_tools(self, spec: ScriptToolSpec) -> list[ToolDefinition]:
            return [ServedTool(name="somethingElse", spec=spec)]

    host.register(Sloppy(), "sloppy")
    ws = load(write({"trails/config/trailmaps/demo/tools/demo_seed.tool.yaml": SCRIPT_TOOL}))
    [error] = ws.errors
    assert "the script runtime defined tool 'somethingElse', which this file does not declare (demo_seed)" in error


@pytest.mark.parametrize(("body", "expected"), [
    ("id: demo_s\ndescription: d\nparameters: []\nscript: {runtime: subprocess}\n",
     r":4:1: 'script': 'script' needs a 'source'"),
    ("id: demo_s\nparameters: []\nscript: ./x.py\n", r"'description' is required with script:"),
    ("id: demo_s\ndescription: d\nscript: ./x.py\n", r"'parameters' is required with script:"),
])
def test_script_mode_rules(write, load, body: str, expected: str) -> None:
    ws = load(write({"trails/config/trailmaps/demo/tools/demo_s.tool.yaml": body}))
    [error] = ws.errors
    assert re.search(expected, error), error
