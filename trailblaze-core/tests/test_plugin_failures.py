"""A plugin that loads fine but fails when one of its hooks is called is reported as *that plugin's*
failure: one line naming plugin, distribution, version, hook and error, with the switch that disables
it; exit 2; ``trailblaze plugins`` shows it as ``error``. The case that motivated it: a lazy
``from missing_sdk import ...`` inside ``trailblaze_register_drivers``, through a real installed
distribution and the real console entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trailblaze import hookimpl
from trailblaze.errors import ExitCode, PluginHookError
from trailblaze.plugins import PluginHost
from trailblaze.testing import register_plugin, run_cli

LAZY = '''
from trailblaze import hookimpl

@hookimpl
def trailblaze_register_drivers(registry):
    from missing_sdk import Device  # installed separately, and it is not
    registry.add_driver(Device)
'''

TRAIL = """\
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {timeToWaitInSeconds: 0}
"""

LINE = ("trailblaze: error: plugin 'lazy' (trailblaze-lazy 1.2.0) failed in trailblaze_register_drivers: "
        "ModuleNotFoundError: No module named 'missing_sdk' -- disable it with TRAILBLAZE_DISABLE_PLUGINS=lazy")


@pytest.fixture
def lazy_site(fake_site: Any, tmp_path: Path) -> Any:
    fake_site("trailblaze-lazy", "tb_lazy", LAZY, "lazy", "1.2.0")
    (tmp_path / "t.trail.yaml").write_text(TRAIL)
    return fake_site


def test_a_lazy_import_failing_in_register_drivers_names_the_plugin(lazy_site: Any, trailblaze_cmd: Any,
                                                                     tmp_path: Path) -> None:
    env = {"TRAILBLAZE_LOAD_PLUGINS": "lazy"}
    run = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    assert run.returncode == ExitCode.INFRASTRUCTURE
    assert run.stderr.strip().splitlines() == [LINE]

    listing = trailblaze_cmd(["plugins"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert ("lazy (trailblaze-lazy 1.2.0): error: trailblaze_register_drivers: ModuleNotFoundError: "
            "No module named 'missing_sdk'") in listing.stdout
    as_json = trailblaze_cmd(["plugins", "--json"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    (lazy,) = [p for p in json.loads(as_json.stdout) if p["name"] == "lazy"]
    assert lazy["status"].startswith("error: trailblaze_register_drivers: ModuleNotFoundError")

    debug = trailblaze_cmd(["--debug", "run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, env=env,
                           cwd=tmp_path)
    assert debug.returncode == ExitCode.INFRASTRUCTURE
    assert "Traceback" in debug.stderr and "from missing_sdk import Device" in debug.stderr

    strict = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, cwd=tmp_path,
                            env={**env, "TRAILBLAZE_STRICT_PLUGINS": "1"})
    assert strict.returncode == ExitCode.INFRASTRUCTURE and LINE in strict.stderr

    disabled = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, cwd=tmp_path,
                              env={"TRAILBLAZE_LOAD_PLUGINS": "lazy", "TRAILBLAZE_DISABLE_PLUGINS": "lazy"})
    assert disabled.returncode == 0, disabled.stdout + disabled.stderr


def test_check_loads_driver_plugins_only_for_trails_that_configure_drivers(lazy_site: Any, trailblaze_cmd: Any,
                                                                           tmp_path: Path) -> None:
    # ``check`` learns the tools on a session whose driver never starts: the driver plugins are not
    # imported (their SDKs may be absent on a CI runner that only checks), so the broken one is not called...
    env = {"TRAILBLAZE_LOAD_PLUGINS": "lazy"}
    check = trailblaze_cmd(["check", "t.trail.yaml"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Checked 1 trail(s)" in check.stdout and "lazy" not in check.stderr
    # ... until a trail's ``config.drivers`` settings must be checked against the driver's settings model.
    (tmp_path / "d.trail.yaml").write_text("config:\n  drivers:\n    web: {headless: true}\n" + TRAIL)
    pinned = trailblaze_cmd(["check", "d.trail.yaml"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    assert pinned.returncode == ExitCode.INFRASTRUCTURE
    assert pinned.stderr.strip().splitlines() == [LINE]


class _Descriptors:
    @hookimpl
    def trailblaze_tool_descriptor(self, definition: Any) -> Any:
        raise KeyError("schema")


def test_a_failing_firstresult_hook_is_the_plugins_failure_too(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, _Descriptors(), "describer"):
        result = run_cli(["tools"], host=plugin_host, cwd=tmp_path)
        info = plugin_host.info("describer")
    assert result.exit_code == ExitCode.INFRASTRUCTURE
    assert ("trailblaze: error: plugin 'describer' failed in trailblaze_tool_descriptor: KeyError: 'schema' "
            "-- disable it with TRAILBLAZE_DISABLE_PLUGINS=describer") in result.stderr
    assert "Traceback" not in result.output
    assert info is not None and info.status == "error: trailblaze_tool_descriptor: KeyError: 'schema'"


def test_a_plugin_raising_a_trailblaze_error_means_it(plugin_host: PluginHost) -> None:
    """A plugin that raises our own error chose its message; the guard leaves it alone."""
    from trailblaze.driver import DriverRegistry
    from trailblaze.errors import InfrastructureError

    class Deliberate:
        @hookimpl
        def trailblaze_register_drivers(self, registry: Any) -> None:
            raise InfrastructureError("set ACME_HOME first")

    with register_plugin(plugin_host, Deliberate(), "deliberate"):
        with pytest.raises(InfrastructureError, match="set ACME_HOME first") as caught:
            plugin_host.register_drivers(DriverRegistry())
    assert not isinstance(caught.value, PluginHookError)


def test_a_wrapper_on_any_hook_is_named_for_what_it_raises_itself(plugin_host: PluginHost, tmp_path: Path) -> None:
    class Shortener:
        @hookimpl(wrapper=True)
        def trailblaze_tool_descriptor(self) -> Any:
            descriptor = yield
            limits: dict[str, int] = {}
            return descriptor if len(descriptor.description) < limits["openai"] else None  # a bug: KeyError

    with register_plugin(plugin_host, Shortener(), "shortener"):
        result = run_cli(["tools"], host=plugin_host, cwd=tmp_path)
    assert result.exit_code == ExitCode.INFRASTRUCTURE
    assert "plugin 'shortener' failed in trailblaze_tool_descriptor: KeyError: 'openai'" in result.stderr


# -- issue 22 MEDIUM 13, each case as reported, through real installed distributions -------------------
RAISING_TOOLS = '''
from trailblaze import hookimpl

@hookimpl
def trailblaze_register_tools(registry):
    raise RuntimeError("tool catalog unreachable")
'''

RAISING_WRAPPER = '''
from trailblaze import hookimpl

@hookimpl(wrapper=True)
def trailblaze_execute_tool(call):
    result = yield
    raise KeyError("wrapper bug")
'''

OBSERVING_WRAPPER = '''
from trailblaze import hookimpl

@hookimpl(wrapper=True)
def trailblaze_execute_tool(call):
    return (yield)  # the tool's own failure passes through: still the tool's (exit 1)
'''

LOSING_DEVICE = '''
from trailblaze import DriverError, Tool, hookimpl

class Unplug(Tool):
    """Lose the device."""
    name = "acme_unplug"
    def execute(self, ctx):
        raise DriverError("the device went away")

class Broken(Tool):
    """A tool with a bug."""
    name = "acme_broken"
    def execute(self, ctx):
        return {}["missing"]

@hookimpl
def trailblaze_register_tools(registry):
    registry.add_tool(Unplug)
    registry.add_tool(Broken)
'''

ONE_CALL = "trail:\n  - step: {text}\n    recording:\n      host:\n        - {tool}: {{}}\n"


def test_plugins_shows_a_plugin_whose_register_tools_raises_as_failing(fake_site: Any, trailblaze_cmd: Any,
                                                                       tmp_path: Path) -> None:
    fake_site("trailblaze-catalog", "tb_catalog", RAISING_TOOLS, "catalog", "0.3.0")
    env = {"TRAILBLAZE_LOAD_PLUGINS": "catalog"}
    listing = trailblaze_cmd(["plugins"], pythonpath=fake_site.path, env=env, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert ("catalog (trailblaze-catalog 0.3.0): error: trailblaze_register_tools: RuntimeError: tool catalog "
            "unreachable") in listing.stdout
    tools = trailblaze_cmd(["tools"], pythonpath=fake_site.path, env=env, cwd=tmp_path)
    assert tools.returncode == ExitCode.INFRASTRUCTURE
    assert "plugin 'catalog' (trailblaze-catalog 0.3.0) failed in trailblaze_register_tools" in tools.stderr


def test_a_raising_execute_wrapper_is_its_plugins_failure_not_the_tools(fake_site: Any, trailblaze_cmd: Any,
                                                                        tmp_path: Path) -> None:
    fake_site("trailblaze-wrap", "tb_wrap", RAISING_WRAPPER, "wrap", "0.2.0")
    (tmp_path / "t.trail.yaml").write_text(TRAIL)
    run = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=fake_site.path,
                         env={"TRAILBLAZE_LOAD_PLUGINS": "wrap"}, cwd=tmp_path)
    assert run.returncode == ExitCode.INFRASTRUCTURE, run.stdout + run.stderr
    assert ("step 1 \"wait a moment\": tool 'wait' (t.trail.yaml:5:11): plugin 'wrap' (trailblaze-wrap 0.2.0) "
            "failed in trailblaze_execute_tool: KeyError: 'wrapper bug' -- disable it with "
            "TRAILBLAZE_DISABLE_PLUGINS=wrap") in run.stdout
    assert "Traceback" not in run.stdout + run.stderr


def test_a_tools_own_failure_through_an_observing_wrapper_stays_the_tools(fake_site: Any, trailblaze_cmd: Any,
                                                                          tmp_path: Path) -> None:
    fake_site("trailblaze-observe", "tb_observe", OBSERVING_WRAPPER, "observe")
    fake_site("trailblaze-unplug", "tb_unplug", LOSING_DEVICE, "unplug")
    (tmp_path / "t.trail.yaml").write_text(ONE_CALL.format(text="broken", tool="acme_broken"))
    run = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=fake_site.path,
                         env={"TRAILBLAZE_LOAD_PLUGINS": "observe,unplug"}, cwd=tmp_path)
    assert run.returncode == ExitCode.TRAIL_FAILED, run.stdout + run.stderr
    assert "tool 'acme_broken' raised KeyError: 'missing'" in run.stdout
    assert "plugin 'observe'" not in run.stdout + run.stderr


def test_a_driver_error_inside_a_step_names_step_tool_and_line_and_is_logged(fake_site: Any, trailblaze_cmd: Any,
                                                                             tmp_path: Path) -> None:
    fake_site("trailblaze-unplug", "tb_unplug", LOSING_DEVICE, "unplug")
    (tmp_path / "t.trail.yaml").write_text(ONE_CALL.format(text="unplug it", tool="acme_unplug"))
    run = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=fake_site.path,
                         env={"TRAILBLAZE_LOAD_PLUGINS": "unplug"}, cwd=tmp_path)
    assert run.returncode == ExitCode.INFRASTRUCTURE, run.stdout + run.stderr
    assert "step 1 \"unplug it\": tool 'acme_unplug' (t.trail.yaml:5:11): the device went away" in run.stdout
    (log,) = tmp_path.glob("logs/*/session.ndjson")
    calls = [e for e in map(json.loads, log.read_text().splitlines()) if e.get("toolName") == "acme_unplug"]
    assert len(calls) == 1
    assert calls[0]["successful"] is False and "the device went away" in calls[0]["exceptionMessage"]


@pytest.mark.parametrize("position", ["root", "subcommand", "env"])
def test_debug_prints_the_traceback_in_every_position(position: str, fake_site: Any, trailblaze_cmd: Any,
                                                       tmp_path: Path) -> None:
    fake_site("trailblaze-unplug", "tb_unplug", LOSING_DEVICE, "unplug")
    (tmp_path / "t.trail.yaml").write_text(ONE_CALL.format(text="unplug it", tool="acme_unplug"))
    args = {"root": ["--debug", "run", "t.trail.yaml"], "subcommand": ["run", "t.trail.yaml", "--debug"],
            "env": ["run", "t.trail.yaml"]}[position]
    env = {"TRAILBLAZE_LOAD_PLUGINS": "unplug", **({"TRAILBLAZE_DEBUG": "1"} if position == "env" else {})}
    run = trailblaze_cmd([*args, "--no-report"], pythonpath=fake_site.path, env=env, cwd=tmp_path)
    assert run.returncode == ExitCode.INFRASTRUCTURE, run.stdout + run.stderr
    assert "Traceback (most recent call last)" in run.stderr
    assert "DriverError: " in run.stderr and "tb_unplug.py" in run.stderr
    quiet = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=fake_site.path,
                           env={"TRAILBLAZE_LOAD_PLUGINS": "unplug"}, cwd=tmp_path)
    assert "Traceback" not in quiet.stdout + quiet.stderr


def test_debug_is_accepted_after_every_subcommand() -> None:
    for name in ("run", "check", "tools", "plugins", "snapshot"):
        result = run_cli([name, "--debug", "--help"])
        assert result.exit_code == 0, (name, result.output)
