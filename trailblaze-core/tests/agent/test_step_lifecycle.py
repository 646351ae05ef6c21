"""The explicit step lifecycle: every entry point tells the driver ``step_started`` and ``step_finished``
once per step, with the step's one 1-based number — the number the progress lines and errors show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from trailblaze.driver import DriverRegistry
from trailblaze.mcp_server.workbench import McpSettings, Workbench
from trailblaze.plugins import PluginHost
from trailblaze.testing import MemoryDriver, run_cli
from trailblaze.testing.llm import call, done
from trailblaze.trail.parser import parse_trail


def _screens(host: PluginHost) -> list[MemoryDriver]:
    """The in-memory app devices started so far (the agent conftest's ``screens`` driver)."""
    drivers = DriverRegistry()
    host.register_drivers(drivers)
    return drivers.resolve("screens").instances  # type: ignore[attr-defined, no-any-return]


TRAIL = """\
trailhead:
  step: Start on the home screen
  recording:
    memory: {wait: {timeToWaitInSeconds: 0}}
trail:
  - step: Open sign-in
    recording:
      memory:
        - app_tap: {ref: Sign in}
  - verify: The login form is shown
    recording:
      memory:
        - app_assertVisible: {text: Email}
"""


def test_steps_are_numbered_once_from_one_with_the_trailhead_as_zero() -> None:
    with_head = parse_trail(TRAIL, Path("t.trail.yaml"))
    assert [(s.kind, s.index, s.number) for s in with_head.steps] == [
        ("trailhead", 0, 0), ("step", 1, 1), ("verify", 2, 2)]
    plain = parse_trail("- prompts:\n    - step: a\n    - verify: b\n", Path("v1.trail.yaml"))
    assert [(s.index, s.number) for s in plain.steps] == [(0, 1), (1, 2)]


def test_run_tells_the_driver_each_step_once(app_host: PluginHost, workspace) -> None:  # type: ignore[no-untyped-def]
    root = workspace("", {"t.trail.yaml": TRAIL})
    result = run_cli(["run", "trails/t.trail.yaml", "--driver", "screens", "--no-report"], host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    [driver] = _screens(app_host)
    assert driver.step_events == [
        ("started", 0, "Start on the home screen"), ("passed", 0, "Start on the home screen"),
        ("started", 1, "Open sign-in"), ("passed", 1, "Open sign-in"),
        ("started", 2, "The login form is shown"), ("passed", 2, "The login form is shown")]
    assert "✓ verify 2: The login form is shown" in result.stdout


def test_the_number_in_an_error_is_the_progress_lines(app_host: PluginHost, workspace) -> None:  # type: ignore[no-untyped-def]
    failing = TRAIL.replace("{text: Email}", "{text: Cart}") + "  - step: Never reached\n"
    unrecorded = "trail:\n  - step: Open sign-in\n    recording:\n      memory:\n        - app_tap: {ref: Sign in}\n" \
                 "  - step: Type the email\n"
    root = workspace("", {"fail.trail.yaml": failing, "solve.trail.yaml": unrecorded})

    failed = run_cli(["run", "trails/fail.trail.yaml", "--driver", "screens", "--no-report"], host=app_host, cwd=root)
    assert failed.exit_code == 1, failed.output
    assert re.search(r"✗ verify 2: The login form is shown", failed.stdout)
    assert "verify 2 \"The login form is shown\": tool 'app_assertVisible'" in failed.output
    assert _screens(app_host)[-1].step_events[-2:] == [
        ("started", 2, "The login form is shown"), ("failed", 2, "The login form is shown")]

    # The second step of a trail without a trailhead is step 2 in the progress and in the error alike.
    needs = run_cli(["run", "trails/solve.trail.yaml", "--driver", "screens", "--no-report"], host=app_host, cwd=root)
    assert needs.exit_code == 3, needs.output
    assert "✓ step 1: Open sign-in" in needs.stdout
    assert 'step 2 ("Type the email") has no recording' in needs.output
    assert _screens(app_host)[-1].step_events == [
        ("started", 1, "Open sign-in"), ("passed", 1, "Open sign-in"), ("started", 2, "Type the email")]


@pytest.mark.parametrize("kind", ["step", "verify"])
def test_step_and_verify_tell_the_driver_their_one_step(kind: str, app_host: PluginHost, workspace, llm_server,  # type: ignore[no-untyped-def]
                                                        tb_llm_config) -> None:
    reply = call("app_tap", ref="Sign in") if kind == "step" else call("app_assertVisible", text="Sign in")
    server = llm_server([reply, done()])
    root = workspace(tb_llm_config(server))
    result = run_cli([kind, "Look at sign-in", "--driver", "screens"], host=app_host, cwd=root)
    assert result.exit_code == 0, result.output
    [driver] = _screens(app_host)
    assert driver.step_events == [("started", 1, "Look at sign-in"), ("passed", 1, "Look at sign-in")]


def test_mcp_steps_tell_the_driver_with_the_number_they_are_saved_under(app_host: PluginHost, workspace) -> None:  # type: ignore[no-untyped-def]
    root = workspace("")
    bench = Workbench(McpSettings(workspace=root, output_dir=root / "logs"), host=app_host)
    try:
        def on_device(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
            return bench.submit(fn, *args, **kwargs).result(timeout=60)

        on_device(bench.connect, driver="screens")
        on_device(bench.run_tools, "Open sign-in", "step", [{"app_tap": {"ref": "Sign in"}}])
        on_device(bench.call_tool, "app_assertVisible", {"text": "Cart"}, step_text="The cart shows")
        driver = _screens(app_host)[-1]
        assert driver.step_events == [
            ("started", 1, "Open sign-in"), ("passed", 1, "Open sign-in"),
            ("started", 2, "The cart shows"), ("failed", 2, "The cart shows")]
    finally:
        bench.close()


def test_the_pytest_plugin_tells_the_driver_each_step_once(app_host: PluginHost, workspace,  # type: ignore[no-untyped-def]
                                                           pytester: pytest.Pytester) -> None:
    root = workspace("", {"t.trail.yaml": TRAIL})
    outcome = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--trails", str(root / "trails" / "t.trail.yaml"),
                                           "--trailblaze-driver", "screens",
                                           "--trailblaze-output-dir", str(root / "logs"))
    outcome.assert_outcomes(passed=1)
    [driver] = _screens(app_host)
    assert [(event, number) for event, number, _ in driver.step_events] == [
        ("started", 0), ("passed", 0), ("started", 1), ("passed", 1), ("started", 2), ("passed", 2)]
