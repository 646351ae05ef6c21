"""A trail sets its driver's settings in ``config.drivers`` (over the workspace's ``drivers:``, under
``-o``), validated by the driver's config model; a wrong one names the trail's file, line and key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from trailblaze import Tool, ToolContext, ToolRegistry, ToolResult, hookimpl
from trailblaze.errors import ToolFailure
from trailblaze.plugins import PluginHost
from trailblaze.testing import register_plugin, run_cli


class ExpectOnScreen(Tool):
    """Fail unless the text is on the in-memory screen."""

    name = "expect_on_screen"
    text: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        assert ctx.driver is not None
        if self.text not in ctx.driver.snapshot():
            raise ToolFailure(f"'{self.text}' is not on screen: {ctx.driver.snapshot()}")
        return ToolResult.ok()


class Tools:
    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(ExpectOnScreen)


def trail(drivers: str, expected: str = "Welcome") -> str:
    return (f"config:\n  title: settings\n  drivers:\n{drivers}"
            f"trail:\n  - step: look\n    recording:\n      memory:\n        - expect_on_screen: {{text: {expected}}}\n")


@pytest.fixture
def host(plugin_host: PluginHost) -> Iterator[PluginHost]:
    with register_plugin(plugin_host, Tools(), "expect"):
        yield plugin_host


def run(host: PluginHost, root: Path, text: str, *extra: str) -> tuple[int, str]:
    (root / "t.trail.yaml").write_text(text)
    result = run_cli(["run", "t.trail.yaml", "--driver", "in-memory", "--no-report", *extra], host=host, cwd=root)
    return result.exit_code, result.output


def test_the_trails_settings_reach_the_driver(host: PluginHost, tmp_path: Path) -> None:
    code, output = run(host, tmp_path, trail("    in-memory: {elements: [Welcome], width: 400}\n"))
    assert code == 0, output


def test_an_alias_names_the_driver_too_and_the_trail_wins_over_the_workspace(host: PluginHost,
                                                                             tmp_path: Path) -> None:
    (tmp_path / "trails/config").mkdir(parents=True)
    (tmp_path / "trails/config/trailblaze.yaml").write_text("drivers:\n  in-memory:\n    elements: [Goodbye]\n")
    code, output = run(host, tmp_path, trail("    IN_MEMORY:\n      elements: [Welcome]\n"))
    assert code == 0, output
    code, output = run(host, tmp_path, trail("    IN_MEMORY: {}\n", expected="Goodbye"))
    assert code == 0, output


def test_an_unknown_setting_names_file_line_and_key(host: PluginHost, tmp_path: Path) -> None:
    code, output = run(host, tmp_path, trail("    in-memory:\n      elements: [Welcome]\n      colour: red\n"))
    assert code == 3, output
    assert "t.trail.yaml:6:7: driver 'in-memory': unknown setting 'colour'" in output


def test_a_wrong_value_names_file_line_and_key(host: PluginHost, tmp_path: Path) -> None:
    code, output = run(host, tmp_path, trail("    in-memory:\n      width: wide\n"))
    assert code == 3, output
    assert "t.trail.yaml:5:7: driver 'in-memory':" in output and "'width'" in output


def test_a_driver_name_no_plugin_provides_is_an_error_at_its_line(host: PluginHost, tmp_path: Path) -> None:
    code, output = run(host, tmp_path, trail("    in-memroy: {elements: [Welcome]}\n"))
    assert code == 3, output
    assert "t.trail.yaml:4:5: 'drivers.in-memroy': no installed driver is called 'in-memroy'" in output


def test_the_shape_is_checked_when_the_trail_is_read(host: PluginHost, tmp_path: Path) -> None:
    code, output = run(host, tmp_path, trail("    in-memory: [elements]\n"))
    assert code == 3, output
    assert "t.trail.yaml:4:16: 'in-memory': 'drivers.in-memory' must be a map of settings, got a list" in output


def test_check_validates_the_settings_without_starting_anything(host: PluginHost, tmp_path: Path) -> None:
    (tmp_path / "t.trail.yaml").write_text(trail("    in-memory:\n      colour: red\n    in-memroy: {}\n"))
    result = run_cli(["check", "t.trail.yaml"], host=host, cwd=tmp_path)
    assert result.exit_code == 3, result.output
    assert ("t.trail.yaml:5:7: error: [DriverSettings] driver 'in-memory': unknown setting 'colour'"
            in result.output)
    assert "t.trail.yaml:6:5: error: [DriverSettings] 'drivers.in-memroy': no installed driver" in result.output
    (tmp_path / "t.trail.yaml").write_text(trail("    in-memory: {elements: [Welcome]}\n"))
    assert run_cli(["check", "t.trail.yaml"], host=host, cwd=tmp_path).exit_code == 0


def test_a_run_without_host_tools_refuses_a_trails_host_settings(plugin_host: PluginHost, tmp_path: Path) -> None:
    """``trailblaze mcp`` without --allow-host-tools runs a client's trail with host_tools off: the trail's
    own ``config.drivers`` cannot name a program either."""
    from pydantic import Field

    from trailblaze import DriverRegistry
    from trailblaze.host_settings import HostKind, host_setting
    from trailblaze.runner import RunOptions
    from trailblaze.runner.run import Runner
    from trailblaze.testing import MemoryDriver, MemoryDriverConfig, installed_host

    class ProgramConfig(MemoryDriverConfig):
        program: str | None = Field(None, json_schema_extra=host_setting(HostKind.PROGRAM))

    class ProgramDriver(MemoryDriver):
        key = "program-device"
        aliases = ()
        config_model = ProgramConfig

    class Drivers:
        @hookimpl
        def trailblaze_register_drivers(self, registry: DriverRegistry) -> None:
            registry.add_driver(ProgramDriver)

    (tmp_path / "t.trail.yaml").write_text(
        "config:\n  drivers:\n    program-device: {program: /bin/sh}\n"
        "trail:\n  - step: wait\n    recording:\n      memory:\n        - wait: {timeToWaitInSeconds: 0}\n")
    with register_plugin(plugin_host, Drivers(), "program"), installed_host(plugin_host):
        options = RunOptions(driver="program-device", host_tools=False, report=False, output_dir=tmp_path / "out")
        result = Runner(options).run([str(tmp_path / "t.trail.yaml")])
    (trail,) = result.trails
    assert trail.exit_code == 3, trail.message
    assert "t.trail.yaml:3:22: driver 'program-device': this run may not set 'program' (names a program)" in (
        trail.message or "")
