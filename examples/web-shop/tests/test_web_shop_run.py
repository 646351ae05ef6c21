"""The README's run command on the example shop, end to end in headless Chromium, and a broken trail."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from trailblaze.logs import read_log
from trailblaze.testing import run_cli

EXAMPLE = Path(__file__).resolve().parents[1]
TRAILS = EXAMPLE / "trails"
WEB_TOOLS_USED = 15

pytestmark = pytest.mark.browser


def _entries(logs: Path) -> list[dict[str, Any]]:
    return [e for p in sorted(logs.iterdir()) if p.name != "reports" for e in read_log(p)]


def test_every_example_trail_passes_and_leaves_nothing_running(tmp_path: Path, browser_processes: Any,
                                                                port_open: Any) -> None:
    assert browser_processes() == []
    runs = len(list(TRAILS.glob("*.trail.yaml"))) - 1  # mobile-menu is skipped
    result = run_cli(["run", str(TRAILS), "--output-dir", str(tmp_path / "logs"), "-o", "screenshots=on"])
    out = result.output
    assert result.exit_code == 0, out
    assert f"Results: {runs} passed, 0 failed, 1 skipped" in out
    assert "Skipping" in out and "mobile-menu.trail.yaml" in out
    report = Path(re.search(r"^Report: (.+)$", out, re.MULTILINE).group(1))  # type: ignore[union-attr]
    html = report.read_text(encoding="utf-8")
    for title in ("Web shop: sign in", "Web shop: checkout with validation errors", "Web shop: the sign-out dialog"):
        assert title in html
    assert html.count("<img class=thumb") >= 30  # screenshots=on: a screenshot per step, embedded
    assert 0 < html.count("data:image/jpeg;base64,") <= html.count("<img class=thumb")  # each distinct one once
    # The browsers and the shop servers of all the sessions are gone.
    assert browser_processes() == []
    entries = _entries(tmp_path / "logs")
    servers = [e["url"] for e in entries if e.get("server") == "web-shop"]
    assert len(servers) == runs and not any(port_open(url) for url in servers)
    # The recordings exercise at least 15 distinct web tools (YAML tool bodies included).
    used = {e["toolName"] for e in entries if str(e.get("toolName", "")).startswith("web_")}
    assert len(used) >= WEB_TOOLS_USED, sorted(used)
    # Passwords never reach the logs or the report (web_fillSecret registers them as secrets).
    for path in (tmp_path / "logs").rglob("*"):
        if path.is_file() and path.suffix in (".json", ".ndjson", ".txt", ".html", ".yaml"):
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "secret123" not in text and "not-the-password" not in text, path
    fills = [e for e in entries if e.get("toolName") == "web_fillSecret"]
    assert fills and all(e["trailblazeTool"]["raw"]["value"] == "***" for e in fills)
    # No trace by default.
    assert not list((tmp_path / "logs").glob("*/trace.zip"))


def test_args_and_memory_change_what_the_trails_do(tmp_path: Path) -> None:
    result = run_cli(["run", str(TRAILS / "checkout.trail.yaml"), "--output-dir", str(tmp_path),
                      "--arg", "fullName=Ada Lovelace", "--arg", "postcode=54321", "--no-report"])
    assert result.exit_code == 0, result.output
    entries = _entries(tmp_path)
    shipped = [e for e in entries if e.get("toolName") == "web_verifyTextVisible"
               and "ship your order" in e["trailblazeTool"]["raw"]["text"]]
    assert shipped[0]["trailblazeTool"]["raw"]["text"].startswith("We will ship your order to Ada Lovelace,")
    assert shipped[0]["successful"]
    result = run_cli(["run", str(TRAILS / "cart.trail.yaml"), "--output-dir", str(tmp_path / "cart"),
                      "--memory", "secondProduct=Headlamp", "--no-report"])
    # The recording pins the compass's cart row: with another product the check fails and says why.
    assert result.exit_code == 1, result.output
    assert ('web_verifyValue: expected the text of nodeSelector {"web": {"dataTestId": "cart-qty"}, "childOf": '
            '{"web": {"dataTestId": "cart-row-compass"}}} to be "2", but no element matches') in result.output
    assert 'link "Cart (3)"' in result.output  # what the page showed instead


def test_a_recording_that_no_longer_matches_fails_with_the_step_tool_selector_and_page(tmp_path: Path) -> None:
    result = run_cli(["run", str(EXAMPLE / "broken" / "renamed-button.trail.yaml"), "--output-dir", str(tmp_path),
                      "-o", "timeout_ms=2000", "-o", "trace=retain-on-failure"])
    out = result.output
    assert result.exit_code == 1, out
    line = next(ln for ln in out.splitlines() if "→ FAILED" in ln)
    assert 'step 2 "Add the compass to the basket"' in line
    assert "tool 'web_click' (" in line and "renamed-button.trail.yaml:23:11)" in line
    assert 'no element matches nodeSelector {"web": {"ariaRole": "button", "ariaNameRegex": "Add to basket"}}' in line
    assert re.search(r'the page \(http://127\.0\.0\.1:\d+/product\.html\?id=compass\) has button elements: '
                     r'button "Add to cart" \[\w+\]', line)
    assert "Results: 0 passed, 1 failed, 0 skipped" in out
    session = next(p for p in tmp_path.iterdir() if p.is_dir() and p.name != "reports")
    assert (session / "step_002_failed.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with zipfile.ZipFile(session / "trace.zip") as trace:
        names = trace.namelist()
        assert "trace.trace" in names
        assert any(n.endswith(".jpeg") for n in names)  # the screencast (trace_screenshots, default true)
        assert not any(b"secret123" in trace.read(n) for n in names)  # scrubbed
        groups = re.findall(r'"title":"([^"]*)","class":"Tracing","method":"tracingGroup"', trace.read("trace.trace").decode())
    # One trace group per step, opened by the driver's step_started, under the number the failure names.
    assert groups == ["step 1: Sign in and open the Compass", "step 2: Add the compass to the basket"]
    traces = [e for e in _entries(tmp_path) if "WebTraceLog" in str(e.get("class"))]
    assert traces and traces[0]["trace"] == "trace.zip"


def test_a_trace_without_its_screencast_keeps_the_dom_snapshots(tmp_path: Path) -> None:
    result = run_cli(["run", str(TRAILS / "sign-in.trail.yaml"), "--output-dir", str(tmp_path), "--no-report",
                      "-o", "trace=on", "-o", "trace_screenshots=false"])
    assert result.exit_code == 0, result.output
    [session] = [p for p in tmp_path.iterdir() if p.is_dir() and p.name != "reports"]
    with zipfile.ZipFile(session / "trace.zip") as trace:
        names = trace.namelist()
        events = trace.read("trace.trace").decode("utf-8")
    assert not any(n.endswith(".jpeg") for n in names)
    assert '"type":"frame-snapshot"' in events.replace(" ", "")
    assert not list(session.glob("step_*"))  # a passing run with the default screenshots: none
