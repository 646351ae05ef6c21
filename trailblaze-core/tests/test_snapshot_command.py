"""``trailblaze snapshot`` against the driver contract: driver choice, details, waiting, hooks, errors.

The in-memory driver stands in for a device here (it is the driver under test's contract, not a mock of
a product component); the real browser and Appium forms are tested in the driver distributions."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from trailblaze import hookimpl
from trailblaze.driver import DeviceInfo, Driver, DriverConfig
from trailblaze.testing import MemoryDriver, register_plugin, run_cli

SCREEN = ["-o", "elements=[Sign in, Help]"]


def test_the_only_driver_with_a_screen_is_chosen(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(["snapshot", *SCREEN], host=plugin_host, cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["# in-memory · memory 1080x2400", '[e1] "Sign in"', '[e2] "Help"']
    assert not (tmp_path / "logs").exists()


def test_device_option_points_the_driver_at_one_device(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    seen: list[Any] = []

    class Spy:
        @hookimpl
        def trailblaze_session_started(self, session: Any) -> None:
            seen.append(("started", session.device.device_id))

        @hookimpl
        def trailblaze_session_finished(self, session: Any, outcome: Any) -> None:
            seen.append(("finished", outcome.value, session.driver.stopped))

    with register_plugin(plugin_host, Spy()):
        result = run_cli(["snapshot", "-d", "memory/dev-7", *SCREEN], host=plugin_host, cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert seen == [("started", "dev-7"), ("finished", "Succeeded", False)]  # hooks run before the stop


def test_wait_for_text_polls_the_snapshot(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    ok = run_cli(["snapshot", *SCREEN, "--wait-for", "Help"], host=plugin_host, cwd=tmp_path)
    assert ok.exit_code == 0, ok.output
    missing = run_cli(["snapshot", *SCREEN, "--wait-for", "Checkout", "--timeout", "0"], host=plugin_host,
                      cwd=tmp_path)
    assert missing.exit_code == 1
    assert "'Checkout' did not appear within 0 s (the snapshot above is what was on screen)" in missing.stderr
    assert '[e1] "Sign in"' in missing.stdout


def test_what_a_driver_cannot_do_is_bad_input(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    cases = {
        ("--bounds",): "driver 'in-memory' has no --bounds snapshot detail (it offers: none)",
        ("--raw",): "driver 'in-memory' has no raw snapshot",
        ("--url", "https://example.com"): "driver 'in-memory' cannot open URLs",
        ("--screenshot", str(tmp_path / "s.png")): "driver 'in-memory' cannot take screenshots",
    }
    for args, message in cases.items():
        result = run_cli(["snapshot", *args], host=plugin_host, cwd=tmp_path)
        assert result.exit_code == 3, (args, result.output)
        assert message in result.stderr, result.stderr
        assert "Traceback" not in result.output


class _Tv(Driver):
    key = "tv-screen"
    platform = "tv"
    config_model = DriverConfig
    snapshot_details: ClassVar[tuple[str, ...]] = ("bounds",)

    def start(self, session: Any) -> DeviceInfo:
        return DeviceInfo(platform="tv", driver=self.key, name="Living room", width=1920, height=1080)

    def stop(self) -> None:
        return None

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        return "[e1] Button \"Play\"" + (" {x:0,y:0,w:10,h:10}" if "bounds" in detail else "")

    def describe_screen(self) -> str | None:
        return "Home"


class _TvPlugin:
    @hookimpl
    def trailblaze_register_drivers(self, registry: Any) -> None:
        registry.add_driver(_Tv)


def test_several_drivers_need_a_choice(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    with register_plugin(plugin_host, _TvPlugin()):
        ambiguous = run_cli(["snapshot"], host=plugin_host, cwd=tmp_path)
        assert ambiguous.exit_code == 3
        assert "which device? several drivers are installed" in ambiguous.stderr
        assert "installed: in-memory, tv-screen" in ambiguous.stderr
        by_platform = run_cli(["snapshot", "-d", "tv", "--bounds"], host=plugin_host, cwd=tmp_path)
        assert by_platform.exit_code == 0, by_platform.output
        assert by_platform.stdout.splitlines() == ["# tv-screen · Living room 1920x1080 · Home",
                                                   '[e1] Button "Play" {x:0,y:0,w:10,h:10}']
        by_key = run_cli(["snapshot", "--driver", "IN_MEMORY", *SCREEN], host=plugin_host, cwd=tmp_path)
        assert by_key.exit_code == 0 and '[e2] "Help"' in by_key.stdout
        config = tmp_path / "trails" / "config"
        config.mkdir(parents=True)
        (config / "trailblaze.yaml").write_text("defaults:\n  driver: tv-screen\n")
        by_default = run_cli(["snapshot"], host=plugin_host, cwd=tmp_path)
        assert by_default.exit_code == 0 and by_default.stdout.startswith("# tv-screen")


def test_a_bad_driver_setting_names_the_key(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(["snapshot", "-o", "widht=5"], host=plugin_host, cwd=tmp_path)
    assert result.exit_code == 3 and "widht" in result.stderr


def test_the_default_wait_gives_up_on_an_empty_screen() -> None:
    driver = MemoryDriver()
    assert driver.wait_for_text("anything", 0) is False
    driver.elements.append("anything")
    assert driver.wait_for_text("anything", 0) is True


def test_a_bad_setting_points_at_the_file_or_at_the_command_line(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "trails" / "config"
    config.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("drivers:\n  in-memory:\n    width: 500\n")
    from_cli = run_cli(["snapshot", "-o", "width=wide"], host=plugin_host, cwd=tmp_path)
    assert from_cli.exit_code == 3
    assert "trailblaze.yaml" not in from_cli.stderr and "(from the command line: -o/-d)" in from_cli.stderr
    assert "setting 'width'" in from_cli.stderr
    (config / "trailblaze.yaml").write_text("drivers:\n  in-memory:\n    width: narrow\n")
    from_file = run_cli(["snapshot", "-o", "height=100"], host=plugin_host, cwd=tmp_path)
    assert from_file.exit_code == 3
    assert "trailblaze.yaml:2:3: " in from_file.stderr and "setting 'width'" in from_file.stderr
