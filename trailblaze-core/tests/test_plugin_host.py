"""The plugin host at its three levels: an object registered in-process, entry points resolved from
installed distributions (one of which fails to import), and the CLI that must survive both."""

from __future__ import annotations

import json

import pytest

from trailblaze import hookimpl
from trailblaze.errors import PluginLoadError
from trailblaze.plugins import PluginHost
from trailblaze.testing import register_plugin
from trailblaze.tools.registry import ToolRegistry
from trailblaze.config import WorkspaceConfig

GOOD = '''
from trailblaze import hookimpl, Tool

class PingTool(Tool):
    """Answer pong."""
    name = "good_ping"
    def execute(self, ctx):
        return "pong"

@hookimpl
def trailblaze_register_tools(registry):
    registry.add_tool(PingTool)
'''

BROKEN = "raise ImportError('acme sdk missing: pip install acme-sdk')\n"
MISSPELLED = '''
from trailblaze import hookimpl

@hookimpl
def trailblaze_register_tool(registry):
    pass
'''


def test_in_process_plugin_contributes_tools_with_its_source(plugin_host: PluginHost, tmp_path) -> None:
    class Plugin:
        @hookimpl
        def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
            from trailblaze.builtin.tools import WaitTool

            registry.add_tool(WaitTool, name="inproc_wait")

    with register_plugin(plugin_host, Plugin(), "inproc"):
        registry = ToolRegistry()
        plugin_host.register_tools(registry, WorkspaceConfig(root=tmp_path))
        assert registry.get("inproc_wait").source.plugin == "inproc"
        assert registry.get("wait").source.plugin == "builtin.tools"
    registry = ToolRegistry()
    plugin_host.register_tools(registry, WorkspaceConfig(root=tmp_path))
    assert "inproc_wait" not in registry


def test_misspelled_hook_is_an_error_naming_the_plugin(plugin_host: PluginHost) -> None:
    class Typo:
        @hookimpl
        def trailblaze_register_tool(self, registry: ToolRegistry) -> None:  # missing "s"
            pass

    with pytest.raises(PluginLoadError, match="typo.*unknown hook 'trailblaze_register_tool'"):
        plugin_host.register(Typo(), "typo")


def test_entry_points_load_and_a_broken_plugin_does_not_stop_the_others(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-good", "tb_good", GOOD, "good")
    fake_site("trailblaze-broken", "tb_broken", BROKEN, "broken", "2.0.1")
    only = {"TRAILBLAZE_LOAD_PLUGINS": "good,broken"}  # the workspace's own plugins stay out of this test
    proc = trailblaze_cmd(["plugins", "--json"], pythonpath=fake_site.path, env=only)
    assert proc.returncode == 0, proc.stderr
    plugins = {p["name"]: p for p in json.loads(proc.stdout)}
    assert plugins["good"]["status"] == "ok"
    assert plugins["good"]["hooks"] == ["trailblaze_register_tools"]
    assert plugins["broken"]["status"].startswith("error: ImportError: acme sdk missing")
    assert plugins["broken"]["distribution"] == "trailblaze-broken" and plugins["broken"]["version"] == "2.0.1"
    lines = [l for l in proc.stderr.splitlines() if "broken" in l]
    assert len(lines) == 1
    assert "plugin 'broken' (trailblaze-broken 2.0.1) failed to load" in lines[0]
    assert "TRAILBLAZE_DISABLE_PLUGINS=broken" in lines[0]
    tools = trailblaze_cmd(["tools", "--json"], pythonpath=fake_site.path, env=only)
    assert tools.returncode == 0, tools.stderr
    assert "good_ping" in {t["name"] for t in json.loads(tools.stdout)}


def test_strict_plugins_makes_a_broken_plugin_fatal(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-broken", "tb_broken", BROKEN, "broken")
    proc = trailblaze_cmd(["tools"], pythonpath=fake_site.path, env={"TRAILBLAZE_STRICT_PLUGINS": "1", "TRAILBLAZE_LOAD_PLUGINS": "broken"})
    assert proc.returncode == 2
    assert "plugin 'broken'" in proc.stderr and "Traceback" not in proc.stderr


def test_disable_plugins_blocks_by_name(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-broken", "tb_broken", BROKEN, "broken")
    fake_site("trailblaze-good", "tb_good", GOOD, "good")
    proc = trailblaze_cmd(["plugins", "--json"], pythonpath=fake_site.path,
                          env={"TRAILBLAZE_DISABLE_PLUGINS": "broken,good", "TRAILBLAZE_LOAD_PLUGINS": "broken,good"})
    assert proc.returncode == 0 and proc.stderr == ""
    plugins = {p["name"]: p["status"] for p in json.loads(proc.stdout)}
    assert plugins["broken"] == "disabled" and plugins["good"] == "disabled"


def test_misspelled_hook_in_an_installed_plugin_is_reported(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-typo", "tb_typo", MISSPELLED, "typo")
    proc = trailblaze_cmd(["plugins", "--json"], pythonpath=fake_site.path, env={"TRAILBLAZE_LOAD_PLUGINS": "typo"})
    status = {p["name"]: p["status"] for p in json.loads(proc.stdout)}["typo"]
    assert "unknown hook 'trailblaze_register_tool'" in status


def test_trace_plugins_prints_hook_calls(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-good", "tb_good", GOOD, "good")
    proc = trailblaze_cmd(["tools", "--json"], pythonpath=fake_site.path, env={"TRAILBLAZE_TRACE_PLUGINS": "1", "TRAILBLAZE_LOAD_PLUGINS": "good"})
    assert "[trailblaze trace] trailblaze_register_tools" in proc.stderr


def test_version_lists_plugin_versions(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-good", "tb_good", GOOD, "good", "3.4.5")
    proc = trailblaze_cmd(["--version"], pythonpath=fake_site.path)
    assert proc.returncode == 0
    assert proc.stdout.startswith("trailblaze 0.1.0")
    assert "plugin good: trailblaze-good 3.4.5" in proc.stdout


def test_version_lists_every_plugin_of_a_distribution(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-good", "tb_good", GOOD, "good", "3.4.5")
    info = next(fake_site.path.glob("trailblaze_good-*.dist-info"))
    (info / "entry_points.txt").write_text("[trailblaze]\ngood = tb_good\ngood_extra = tb_good\n")
    proc = trailblaze_cmd(["--version"], pythonpath=fake_site.path)
    assert "plugins good, good_extra: trailblaze-good 3.4.5" in proc.stdout, proc.stdout


def test_a_driver_plugin_that_fails_to_import_is_named_instead_of_install_advice(fake_site, trailblaze_cmd,
                                                                                 tmp_path) -> None:
    fake_site("trailblaze-driver-web", "tb_web_broken", BROKEN, "web", "9.9.9")
    (tmp_path / "w.trail.yaml").write_text("config:\n  devices:\n    web: PLAYWRIGHT_NATIVE\ntrail:\n  - step: x\n")
    proc = trailblaze_cmd(["run", str(tmp_path / "w.trail.yaml"), "--output-dir", str(tmp_path / "out")],
                          pythonpath=fake_site.path, env={"TRAILBLAZE_LOAD_PLUGINS": "web"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "plugin 'web' (trailblaze-driver-web 9.9.9) failed to load (ImportError: acme sdk missing" in proc.stdout
    assert "install e.g." not in proc.stdout


def test_a_platform_name_selects_its_only_driver(trailblaze_cmd) -> None:
    proc = trailblaze_cmd(["tools", "--driver", "web", "--json"])
    assert proc.returncode == 0, proc.stderr
    assert "web_click" in {t["name"] for t in json.loads(proc.stdout)}


def test_discovery_runs_once_per_process(monkeypatch) -> None:
    import trailblaze.host.loader as plugins

    calls = []
    real = plugins.entry_points

    def counting(**kw):  # type: ignore[no-untyped-def]
        calls.append(kw)
        return real(**kw)

    plugins.installed_entry_points.cache_clear()
    monkeypatch.setattr(plugins, "entry_points", counting)
    PluginHost()
    PluginHost()
    assert len(calls) == 1
    plugins.installed_entry_points.cache_clear()


def test_a_plugin_adds_commands_but_cannot_replace_one(plugin_host) -> None:  # type: ignore[no-untyped-def]
    import click

    from trailblaze.testing import run_cli

    @click.command("acme-hello")
    def hello() -> None:
        click.echo("hello from acme")

    @click.command("snapshot")
    def hijack() -> None:
        click.echo("hijacked")

    class Commands:
        @hookimpl
        def trailblaze_register_commands(self, cli: click.Group) -> None:
            cli.add_command(hello)
            cli.add_command(hijack)

    with register_plugin(plugin_host, Commands(), "acme-commands"):
        added = run_cli(["acme-hello"], host=plugin_host)
        assert added.exit_code == 0 and added.stdout == "hello from acme\n"
        assert "plugin 'acme-commands' tried to replace the command 'snapshot'; kept the existing one" in added.stderr
        kept = run_cli(["snapshot", "--help"], host=plugin_host)
        assert "compact snapshot of a page or device screen" in kept.stdout and "hijacked" not in kept.output


class _Opaque:
    """A field type pydantic cannot validate (no arbitrary_types_allowed)."""


def test_a_tool_class_pydantic_cannot_build_fails_by_name_when_first_used(plugin_host: PluginHost, tmp_path) -> None:
    """Tool models build on first use (``defer_build``), so the error names the tool, not pydantic's internals."""
    from trailblaze import Tool
    from trailblaze.testing import run_cli

    class BadTool(Tool):
        """Never buildable."""
        name = "acme_bad"
        thing: _Opaque

    class Plugin:
        @hookimpl
        def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
            registry.add_tool(BadTool)

    (tmp_path / "trails").mkdir()
    (tmp_path / "trails" / "bad.trail.yaml").write_text(
        "trail:\n  - step: Use it\n    recording:\n      host:\n        - acme_bad: {thing: x}\n")
    with register_plugin(plugin_host, Plugin(), "acme"):
        registry = ToolRegistry()
        plugin_host.register_tools(registry, WorkspaceConfig(root=tmp_path))  # registering builds nothing
        from trailblaze.errors import PluginToolError
        with pytest.raises(PluginToolError, match=r"tool 'acme_bad' \(.*BadTool, from plugin 'acme'\) cannot be built: "
                           r"field 'thing' has type _Opaque, and pydantic cannot validate .*_Opaque") as err:
            registry.get("acme_bad").parameters()
        assert "arbitrary_types_allowed" not in str(err.value)
        result = run_cli(["run", "trails/bad.trail.yaml", "--no-report"], host=plugin_host, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    out = result.stdout + result.stderr
    assert "tool 'acme_bad'" in out and "cannot be built" in out and "Traceback" not in out
