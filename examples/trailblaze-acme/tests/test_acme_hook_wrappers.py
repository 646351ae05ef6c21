"""Third-party plugins built on the contract hooks, each doing something real without touching a driver
or another plugin's tools:

* ``trailblaze_acme.timings`` wraps ``trailblaze_execute_tool`` and prints a timing for every call —
  class, YAML and MCP tools in one ``trailblaze run``;
* ``trailblaze_acme.provider_descriptions`` wraps ``trailblaze_tool_descriptor`` and shortens long
  descriptions for OpenAI-type providers only.

The installed plugins are loaded through their entry points, as a user's ``trailblaze`` would; the
MCP tool is served by the MCP example's real Python server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import trailblaze_acme.provider_descriptions as provider_descriptions
from trailblaze import PluginHost, Tool, ToolResult, hookimpl
from trailblaze.testing import new_host, register_plugin, run_cli

pytest_plugins = ["trailblaze.testing"]

INVENTORY = Path(__file__).resolve().parents[2] / "mcp-tools" / "servers" / "inventory.py"


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> PluginHost:
    monkeypatch.setenv("TRAILBLAZE_LOAD_PLUGINS", "acme,acme_timings,yaml_tools,mcp_subprocess")
    return new_host(load_entrypoints=True)


def test_the_observer_times_class_yaml_and_mcp_tools_in_one_run(installed: PluginHost, tmp_path: Path) -> None:
    config = tmp_path / "trails" / "config"
    config.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text(f"""\
defaults:
  driver: host
mcpServers:
  - name: inventory
    script: {INVENTORY}
tools:
  - id: acme_greetTwice
    description: Greet someone, then check the greeting.
    parameters:
      - {{name: person, type: string}}
    tools:
      - acme_greet: {{person: "{{{{params.person}}}}"}}
      - acme_verifyGreeting: {{expected: "Hello, {{{{params.person}}}}!"}}
""")
    (tmp_path / "trails" / "all.trail.yaml").write_text("""\
trail:
  - step: Greet Ada
    recording:
      host:
        - acme_greet: {person: Ada}
  - step: Greet Grace twice over
    recording:
      host:
        - acme_greetTwice: {person: Grace}
  - step: Stock an apple
    recording:
      host:
        - mcpdemo_addItem: {name: apple, quantity: 1}
""")
    result = run_cli(["run", "trails/all.trail.yaml", "--no-report", "--output-dir", str(tmp_path / "out")],
                     host=installed, cwd=tmp_path)
    assert result.exit_code == 0, result.output
    timed = re.findall(r"^acme timing: (\S+) \[(\w+)\] \d+\.\d ms$", result.stderr, flags=re.M)
    # A YAML tool's own call is its expansion; the calls it expands into are dispatched (and timed) next.
    assert timed == [("acme_greet", "class"),
                     ("acme_greetTwice", "yaml"), ("acme_greet", "class"), ("acme_verifyGreeting", "class"),
                     ("mcpdemo_addItem", "mcp")]


class _Wordy(Tool):
    name = "acme_wordy"
    __doc__ = "Do the thing. " + "Explain at length why the thing matters. " * 40

    def execute(self, ctx: object) -> ToolResult:
        return ToolResult.ok()


class _Registers:
    @hookimpl
    def trailblaze_register_tools(self, registry: object) -> None:
        registry.add_tool(_Wordy)  # type: ignore[attr-defined]


@pytest.fixture
def wordy_host(plugin_host: PluginHost) -> Iterator[PluginHost]:
    with register_plugin(plugin_host, _Registers(), "wordy"), \
            register_plugin(plugin_host, provider_descriptions, "acme_openai_descriptions"):
        yield plugin_host


def test_a_descriptor_wrapper_rewrites_descriptions_for_one_provider(wordy_host: PluginHost) -> None:

    definition = _Wordy.definition()
    codec = wordy_host.codec()
    full = codec.describe(definition, "anthropic").description
    for_openai = codec.describe(definition, "openai").description
    assert len(full) > 1024 and codec.describe(definition).description == full
    assert len(for_openai) <= 1024 and for_openai.endswith("…") and full.startswith(for_openai[:-1])
