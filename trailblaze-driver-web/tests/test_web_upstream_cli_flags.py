"""Upstream's ``trailblaze trail``/``run`` and ``mcp`` flags (``trailblaze-host/…/cli/TrailCommand.kt``,
``McpCommand.kt`` at block/trailblaze ``a022ca69``) on an upstream-style web trail in real Chromium: each
is accepted and does what upstream's does where a driver here can honour it (docs/upstream-compatibility.md,
"CLI flags")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import upstream_layout

pytestmark = pytest.mark.browser

PAGE = "<!doctype html><title>Parts</title><h1>Parts list</h1>"
TRAIL = """
config:
  devices:
    web: PLAYWRIGHT_NATIVE
  title: 'Test: the parts list'
trail:
  - step: "Navigate to the parts list"
    recording:
      web:
        - web_navigate:
            url: ../../../examples/sample-app/index.html
  - step: "Verify the heading"
    recording:
      web:
        - web_verifyElementVisible:
            ref: heading "Parts list"
"""


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, check=False, env=dict(os.environ))


def log_files(out: Path) -> set[str]:
    return {p.name for p in out.rglob("*") if p.is_file()}


def test_upstreams_ci_flags_run(tmp_path: Path, chromium: str) -> None:
    """The flags of upstream's CI scripts, all at once: ``--headless`` (upstream's default), ``-v``,
    ``--no-daemon`` (no daemon here: accepted, nothing to do), ``--capture-video`` and ``--capture-network``
    (kept for this passing trail: ``video.webm``, ``network.ndjson``), ``--capture-logcat`` and
    ``--capture-ios-logs`` (no such stream on the web: nothing), ``--unified-recordings`` (what is done
    here anyway), ``--markdown`` (a Markdown summary), ``--llm-provider``/``--llm-model`` (one model
    reference; no step needs it)."""
    trail = upstream_layout(tmp_path, PAGE, TRAIL)
    out = tmp_path / "out"
    done = cli("run", str(trail), "--output-dir", str(out), "--headless", "-v", "--no-daemon", "--capture-video",
               "--capture-network", "--capture-logcat", "--capture-ios-logs", "--unified-recordings", "--markdown",
               "--llm-provider", "openai", "--llm-model", "gpt-4.1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Results: 1 passed" in done.stdout
    files = log_files(out)
    assert {"video.webm", "network.ndjson", "console.ndjson"} <= files, sorted(files)
    (network,) = out.rglob("network.ndjson")  # --capture-network hears every request (network: all)
    heard = [json.loads(line) for line in network.read_text().splitlines()]
    assert any(e.get("status") == 200 for e in heard) and not any("readBack" in e for e in heard), heard
    [markdown] = (out / "reports").glob("trailblaze_summary_*.md")
    assert f"Markdown: {markdown}" in done.stdout
    text = markdown.read_text()
    assert text.startswith("# Trailblaze run\n\nResults: 1 passed")
    assert "| PASSED | Test: the parts list | web |" in text


def test_capture_all_and_its_opposites(tmp_path: Path, chromium: str) -> None:
    """``--capture-all`` turns every stream on; ``--no-capture-network``/``--no-capture-video`` turn them off
    (and win over ``--capture-all``, as a later, narrower flag does upstream)."""
    trail = upstream_layout(tmp_path, PAGE, TRAIL)
    everything = cli("run", str(trail), "--output-dir", str(tmp_path / "all"), "--capture-all", "--no-report",
                     cwd=tmp_path)
    assert everything.returncode == 0, everything.stdout + everything.stderr
    assert {"video.webm", "network.ndjson"} <= log_files(tmp_path / "all")
    nothing = cli("run", str(trail), "--output-dir", str(tmp_path / "none"), "--capture-all", "--no-capture-video",
                  "--no-capture-network", "--no-report", cwd=tmp_path)
    assert nothing.returncode == 0, nothing.stdout + nothing.stderr
    assert not {"video.webm", "network.ndjson"} & log_files(tmp_path / "none")


def test_no_headless_is_headed_and_verbose_prints_the_traceback(tmp_path: Path) -> None:
    """``--no-headless`` is ``--headed`` (checked on the options, no window is opened in CI); ``-v`` prints the
    traceback behind an error, as ``--debug`` does; ``--llm`` with the split flags is refused (upstream:
    mutually exclusive); ``--no-unified-recordings`` asks for files this runner never writes (exit 3)."""
    values = parsed("--no-headless")
    assert values["headed"] is True and "headless" not in values
    assert parsed("--headless")["headed"] is False
    assert parsed("--llm-provider", "openai")["llm"] == "openai"
    assert parsed("--llm-model", "gpt-4.1")["llm"] == "gpt-4.1"
    assert parsed("--llm-provider", "openai", "--llm-model", "gpt-4.1")["llm"] == "openai/gpt-4.1"
    twice = cli("run", "nowhere.trail.yaml", "--llm", "openai/gpt-4.1", "--llm-model", "gpt-4.1", cwd=tmp_path)
    assert twice.returncode == 3 and "name the model twice" in twice.stderr
    verbose = cli("run", "nowhere.trail.yaml", "-v", cwd=tmp_path)
    assert verbose.returncode == 3 and "Traceback (most recent call last)" in verbose.stderr
    quiet = cli("run", "nowhere.trail.yaml", cwd=tmp_path)
    assert quiet.returncode == 3 and "Traceback" not in quiet.stderr
    legacy = cli("run", "nowhere.trail.yaml", "--no-unified-recordings", cwd=tmp_path)
    assert legacy.returncode == 3 and "--no-unified-recordings" in legacy.stderr


def parsed(*flags: str) -> dict[str, Any]:
    """The session values ``trailblaze run x.trail.yaml FLAGS`` gets, parsed by click as on the command line."""
    import click
    from trailblaze.cli import cli as root
    from trailblaze.commands.session_options import session_values

    command = root.get_command(click.Context(root), "run")
    assert command is not None
    return session_values("run", dict(command.make_context("run", ["x.trail.yaml", *flags]).params))


BOTH = """
config:
  title: 'Test: the web and the host'
trail:
  - step: "Open the parts list, or wait on the host"
    recording:
      web:
        - web_navigate:
            url: ../../../examples/sample-app/index.html
      host:
        - wait:
            timeToWaitInSeconds: 0
"""


def test_all_devices_runs_each_trail_on_every_platform_it_declares(tmp_path: Path, chromium: str) -> None:
    """``--all-devices`` (upstream's ``TrailCommand.kt``; the choice is ``TrailDeviceSelector.selectDevicesToRun``
    in ``TrailDeviceSelection.kt``): each trail once per platform it declares — its ``devices:`` keys and its
    recording classifiers — that an installed driver drives, each run a result of its own naming the device;
    not with ``-d`` (upstream: mutually exclusive, MISUSE), nor with ``-n``."""
    trail = upstream_layout(tmp_path, PAGE, TRAIL)
    both = trail.parent.parent / "test-both" / "trail.yaml"
    both.parent.mkdir()
    both.write_text(BOTH)
    out = tmp_path / "out"
    done = cli("run", str(trail.parent.parent), "--all-devices", "--output-dir", str(out), "--no-report",
               cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Results: 3 passed" in done.stdout, done.stdout
    [summary] = (out / "reports").glob("trailblaze_test_results_*.json")
    runs = sorted((r["title"], r["device"], r["driver"], r["outcome"])
                  for r in json.loads(summary.read_text())["results"])
    assert runs == [("Test: the parts list", "web", "playwright-native", "PASSED"),
                    ("Test: the web and the host", "host", "host", "PASSED"),
                    ("Test: the web and the host", "web", "playwright-native", "PASSED")], runs
    with_device = cli("run", str(trail), "--all-devices", "-d", "web", cwd=tmp_path)
    assert with_device.returncode == 3
    assert "--device and --all-devices are mutually exclusive" in with_device.stderr
    with_workers = cli("run", str(trail), "--all-devices", "-n", "2", cwd=tmp_path)
    assert with_workers.returncode == 3 and "--all-devices does not combine with -n" in with_workers.stderr


def test_mcp_device_connects_at_start(tmp_path: Path, chromium: str) -> None:
    """``mcp -d web`` (upstream: pin the MCP session to a device on startup) connects the browser before the
    first request: the devices resource names it without a ``device`` call. ``--no-daemon`` is accepted."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("{}\n")

    async def main() -> Any:
        params = StdioServerParameters(command=sys.executable, args=["-m", "trailblaze.cli", "mcp", "-d", "web",
                                                                     "--no-daemon"],
                                       cwd=str(tmp_path), env=dict(os.environ))
        # The server's stderr to a file of its own: under xdist ``sys.stderr`` (the SDK's default) may be a
        # stream with no file descriptor.
        with (tmp_path / "mcp.stderr").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return await session.read_resource("trailblaze://devices")  # type: ignore[arg-type]

    document = json.loads(anyio.run(main).contents[0].text)
    assert document["connected"]["platform"] == "web"
    assert document["connected"]["driver"] == "playwright-native"
