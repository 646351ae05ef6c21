"""``trailblaze check`` counts every trail it was given and, with ``--strict``, refuses a step that would
need a model when none is configured (issue 22, LOW)."""

from __future__ import annotations

from pathlib import Path

import pytest
from trailblaze.testing import run_cli

RECORDED = "trail:\n  - step: wait\n    recording:\n      host:\n        - wait: {timeToWaitInSeconds: 0}\n"
UNRECORDED = "trail:\n  - step: Open the settings screen\n"


def test_a_trail_that_does_not_parse_is_still_counted(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "good.trail.yaml").write_text(RECORDED)
    (tmp_path / "bad.trail.yaml").write_text("trail:\n  - stepp: x\n")
    result = run_cli(["check", str(tmp_path / "good.trail.yaml"), str(tmp_path / "bad.trail.yaml")], host=plugin_host)
    assert result.exit_code == 3
    assert "Checked 2 trail(s) (1 could not be read)" in result.output


def test_strict_refuses_a_step_no_model_could_solve(tmp_path: Path, plugin_host,  # type: ignore[no-untyped-def]
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAILBLAZE_DEFAULT_MODEL", raising=False)
    monkeypatch.setenv("TRAILBLAZE_HOME", str(tmp_path / "home"))  # no user-level llm settings
    trail = tmp_path / "nl.trail.yaml"
    trail.write_text(UNRECORDED)
    relaxed = run_cli(["check", str(trail)], host=plugin_host)
    assert relaxed.exit_code == 0 and "NeedsLlm" in relaxed.output and "1 warning(s)" in relaxed.output
    strict = run_cli(["check", "--strict", str(trail)], host=plugin_host)
    assert strict.exit_code == 3, strict.output
    assert "nl.trail.yaml:2" in strict.output and "no model is configured" in strict.output
    monkeypatch.setenv("TRAILBLAZE_DEFAULT_MODEL", "openai/gpt-4.1")
    with_model = run_cli(["check", "--strict", str(trail)], host=plugin_host)
    assert "NeedsLlm" not in with_model.output


ELECTRON = ("# upstream's trails/goose-desktop/trail.yaml, its config as written\n"
            "config:\n  title: Goose Desktop\n  devices:\n    web: PLAYWRIGHT_ELECTRON\n" + RECORDED)


def test_a_trail_whose_driver_no_installed_plugin_provides_is_an_error(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    """Upstream's Electron trails pin ``PLAYWRIGHT_ELECTRON`` (``TrailblazeDriverType.kt``), which nothing
    here provides: ``check`` says so (exit 3) at the pin, instead of 0 errors and a run ending "no driver";
    a driver a distribution of ours provides names that distribution."""
    (tmp_path / "electron.trail.yaml").write_text(ELECTRON)
    electron = run_cli(["check", str(tmp_path / "electron.trail.yaml")], host=plugin_host)
    assert electron.exit_code == 3, electron.output
    assert ("electron.trail.yaml:4:3: error: [NoDriver] this trail runs on driver 'PLAYWRIGHT_ELECTRON', which no "
            "installed plugin provides ('PLAYWRIGHT_ELECTRON': no distribution of Trailblaze for Python provides it "
            "yet) (installed drivers: host") in electron.output
    (tmp_path / "web.trail.yaml").write_text(ELECTRON.replace("PLAYWRIGHT_ELECTRON", "PLAYWRIGHT_NATIVE"))
    web = run_cli(["check", str(tmp_path / "web.trail.yaml")], host=plugin_host)
    assert web.exit_code == 3 and "'PLAYWRIGHT_NATIVE': install trailblaze-driver-web" in web.output
    (tmp_path / "host.trail.yaml").write_text(ELECTRON.replace("web: PLAYWRIGHT_ELECTRON", "host: host"))
    assert run_cli(["check", str(tmp_path / "host.trail.yaml")], host=plugin_host).exit_code == 0


def test_an_unknown_tool_is_one_warning_with_a_count_when_servers_are_not_started(tmp_path: Path,
                                                                                   plugin_host) -> None:  # type: ignore[no-untyped-def]
    """Upstream's root has ten ios-contacts trails calling one server tool: ``check --no-servers`` said the
    same warning ten times (issue 37 item 8). Undecided names are one line each, with how often and by how
    many trails they are called; with servers started each call stays an error at its own line."""
    calls = "trail:\n  - step: s\n    recording:\n      host:\n        - ghost_openApp: {}\n        - ghost_openApp: {}\n"
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.trail.yaml").write_text(calls)
    (tmp_path / "d.trail.yaml").write_text(calls.replace("ghost_openApp", "ghost_other"))
    paths = [str(p) for p in sorted(tmp_path.glob("*.trail.yaml"))]
    offline = run_cli(["check", "--no-servers", *paths], host=plugin_host)
    assert offline.exit_code == 0, offline.output
    lines = [line for line in offline.output.splitlines() if "[UnknownTool]" in line]
    assert len(lines) == 2, lines
    assert "a.trail.yaml:5:11: warning: [UnknownTool] unknown tool 'ghost_openApp'" in lines[0]
    assert "(called 6 times by 3 trail(s); first here)" in lines[0]
    assert "unknown tool 'ghost_other'" in lines[1] and "(called 2 times by 1 trail(s); first here)" in lines[1]
    online = run_cli(["check", *paths], host=plugin_host)
    assert online.exit_code == 3 and online.output.count("error: [UnknownTool]") == 8
