"""Upstream's Kotlin classes for the web tools, mapped by this plugin's ``trailblaze_decode_tool``: a call
in upstream's legacy ``{"class": "<FQCN>", ...}`` form (in a log, or written into a trail) and an upstream
``class:`` tool file both resolve to our tool. No browser is started: decoding needs none."""

from __future__ import annotations

from pathlib import Path

import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze.checks import CheckReport
from trailblaze.config import load_workspace
from trailblaze.plugins import PluginHost
from trailblaze.testing import run_cli
from trailblaze.tools.base import OtherTool
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.parser import parse_trail
from trailblaze_driver_web.tools import UPSTREAM_CLASSES, all_tools

CLICK = "xyz.block.trailblaze.playwright.tools.PlaywrightNativeClickTool"


def test_a_legacy_call_decodes_to_web_click_through_the_web_plugin(web_host: PluginHost) -> None:
    call = web_host.codec().decode_json({"class": CLICK, "ref": "e12", "reasoning": "the Add button"})
    assert (call.name, call.args) == ("web_click", {"ref": "e12", "reasoning": "the Add button"})
    assert not isinstance(call, OtherTool)


def test_every_mapped_class_names_a_web_tool_of_this_plugin() -> None:
    ours = {tool.name for tool in all_tools()}
    assert set(UPSTREAM_CLASSES.values()) <= ours
    assert all(c.startswith("xyz.block.trailblaze.playwright.tools.PlaywrightNative") for c in UPSTREAM_CLASSES)
    assert UPSTREAM_CLASSES[CLICK] == "web_click"


def test_a_legacy_call_written_into_a_trail_is_read_as_the_web_tool(web_host: PluginHost) -> None:
    text = f"""\
trail:
  - step: Add the mug to the cart
    recording:
      web:
        - {{"class": "{CLICK}", "ref": "e7"}}
        - web_verifyTextVisible: {{text: Cart (1)}}
"""
    trail = parse_trail(text, "legacy.trail.yaml", codec=web_host.codec())
    calls = trail.steps[0].recordings["web"]
    assert [(c.name, c.args) for c in calls] == [("web_click", {"ref": "e7"}),
                                                   ("web_verifyTextVisible", {"text": "Cart (1)"})]


def test_recordings_from_upstream_logs_decode_legacy_calls(web_host: PluginHost) -> None:
    from trailblaze.agent.recording import recordings_from_logs

    log = "xyz.block.trailblaze.logs.client.TrailblazeLog."
    entries = [{"class": log + "TrailblazeToolLog", "stepIndex": 0, "depth": 0, "isRecordable": True,
                "isTopLevelToolCall": True, "successful": True,
                "trailblazeTool": {"class": CLICK, "ref": "e3"}}]
    (call,) = recordings_from_logs(entries, web_host.codec())[0]
    assert (call.name, call.args) == ("web_click", {"ref": "e3"})


def test_upstreams_own_class_tool_file_resolves_to_our_tool(web_host: PluginHost, tmp_path: Path) -> None:
    """Upstream's ``web_click.tool.yaml`` is two lines, ``id`` and ``class``; it no longer fails with
    "cannot import module": the class is ours, so the file only annotates the web plugin's tool."""
    web_host.register(yaml_plugin, "yaml_tools")
    tools = tmp_path / "trails" / "config" / "trailmaps" / "web" / "tools"
    tools.mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (tools / "web_click.tool.yaml").write_text(f"id: web_click\nclass: {CLICK}\n")
    config = load_workspace(tmp_path, web_host)
    registry = ToolRegistry()
    web_host.register_tools(registry, config)
    report = CheckReport()
    web_host.check_tools(registry, report, config)
    assert [f.render() for f in report.errors] == []
    definition = registry.get("web_click")
    assert definition is not None and definition.source.plugin == "web"


def test_plugins_lists_the_web_decoder(web_host: PluginHost, tmp_path: Path) -> None:
    result = run_cli(["plugins", "--hook", "trailblaze_decode_tool"], host=web_host, cwd=tmp_path)
    assert result.exit_code == 0, result.output
    names = [line.split(" ", 1)[0].rstrip(":") for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert names == ["builtin.contract", "builtin.tools", "web"]
