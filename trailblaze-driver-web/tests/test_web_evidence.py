"""The evidence of a failed web attempt: a network log and the console errors (``network.ndjson``,
``console.ndjson``), linked from the report and the JUnit XML, kept only for failed attempts by default,
with no ``--secret`` value in any file the run wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SECRET = "hunter2-evidence-771"

TRAIL = """\
config:
  id: shop/evidence
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open the shop and let the page report a problem
    recording:
      web:
        - web_navigate: {url: "/"}
        - web_evaluate: {script: "console.error('checkout broke for token {{token}}'); fetch('/api/missing?t={{token}}').catch(() => null); setTimeout(() => { throw new Error('late page error') }, 0); true"}
        - web_assertNetworkEvent: {eventName: "api/missing", timeoutMs: 5000}
  - verify: The order confirmation is shown
    recording:
      web:
        - web_verifyTextVisible: {text: "Order confirmed {{token}}"}
"""


def run(tmp_path: Path, shop_server: str, *extra: str, trail: str = TRAIL) -> subprocess.CompletedProcess[str]:
    (tmp_path / "trails" / "config").mkdir(parents=True, exist_ok=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("drivers:\n  playwright-native: {timeout_ms: 1000}\n")
    (tmp_path / "trails" / "evidence.trail.yaml").write_text(trail)
    return subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", "trails", "--secret", f"token={SECRET}",
                           "-o", f"base_url={shop_server}", "--junit-xml", "junit.xml", *extra],
                          cwd=tmp_path, env=dict(os.environ), capture_output=True, text=True, timeout=180,
                          check=False)


def test_a_failed_attempt_keeps_network_and_console_logs_without_secrets(tmp_path: Path, chromium: str,
                                                                         shop_server: str) -> None:
    done = run(tmp_path, shop_server, "--retries", "1", "-o", "trace=retain-on-failure")
    assert done.returncode == 1, done.stdout + done.stderr
    sessions = [p for p in (tmp_path / "logs").iterdir() if p.name != "reports"]
    assert len(sessions) == 2  # both attempts failed; each keeps its own evidence
    for session in sessions:
        network = [json.loads(line) for line in (session / "network.ndjson").read_text().splitlines()]
        missing = [e for e in network if "/api/missing" in e["url"]]
        # network: errors (the default): the 404 as Chromium reported it, entered with the request read back
        assert len(missing) == 1 and missing[0]["status"] == 404 and missing[0]["method"] == "GET"
        assert missing[0]["url"].endswith("t=***")
        assert any(e["url"].rstrip("/") == shop_server and e["resourceType"] == "document" for e in network)
        console = [json.loads(line) for line in (session / "console.ndjson").read_text().splitlines()]
        assert {"type": "error", "text": "checkout broke for token ***"}.items() <= console[0].items()
        assert any(e["type"] == "pageerror" and "late page error" in e["text"] for e in console)
    junit = (tmp_path / "junit.xml").read_text()
    assert "network_log: " in junit and "console_log: " in junit
    report = next((tmp_path / "logs" / "reports").glob("trailblaze_report_*.html")).read_text()
    assert "network log: <a href=" in report and "console log: <a href=" in report
    assert "evidence: network log: <a href=" in report  # at the failing step too
    everything = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".yaml"]
    assert len(everything) > 10
    for path in everything:
        assert SECRET.encode() not in path.read_bytes(), path


def test_with_network_all_every_request_has_its_status_and_timing(tmp_path: Path, chromium: str,
                                                                   shop_server: str) -> None:
    done = run(tmp_path, shop_server, "-o", "network=all")
    assert done.returncode == 1, done.stdout + done.stderr
    (session,) = [p for p in (tmp_path / "logs").iterdir() if p.name != "reports"]
    network = [json.loads(line) for line in (session / "network.ndjson").read_text().splitlines()]
    missing = [e for e in network if "/api/missing" in e["url"]]
    assert missing and missing[0]["status"] == 404 and missing[0]["durationMs"] >= 0
    assert missing[0]["url"].endswith("t=***") and "readBack" not in missing[0]
    assert any(e["url"].rstrip("/") == shop_server and e["status"] == 200 for e in network)


def test_a_passing_attempt_keeps_none_unless_asked(tmp_path: Path, chromium: str, shop_server: str) -> None:
    passing = TRAIL.split("  - verify:")[0]
    done = run(tmp_path, shop_server, trail=passing)
    assert done.returncode == 0, done.stdout + done.stderr
    (session,) = [p for p in (tmp_path / "logs").iterdir() if p.name != "reports"]
    assert not (session / "network.ndjson").exists()
    done = run(tmp_path, shop_server, "-o", "evidence=on", "--output-dir", "on", trail=passing)
    assert done.returncode == 0, done.stdout + done.stderr
    (session,) = [p for p in (tmp_path / "on").iterdir() if p.name != "reports"]
    assert (session / "network.ndjson").read_text() and (session / "console.ndjson").exists()


def test_video_of_a_failed_attempt_with_the_system_ffmpeg(tmp_path: Path, chromium: str, shop_server: str) -> None:
    import shutil

    done = run(tmp_path, shop_server, "-o", "video=retain-on-failure")
    assert done.returncode == 1, done.stdout + done.stderr
    (session,) = [p for p in (tmp_path / "logs").iterdir() if p.name != "reports"]
    video = session / "video.webm"
    assert video.stat().st_size > 1000 and not (session / ".video-frames").exists()
    probe = subprocess.run([shutil.which("ffprobe") or "ffprobe", "-v", "error", "-show_entries",
                            "stream=codec_name,width,height", "-of", "json", str(video)], capture_output=True,
                           text=True, check=True)
    stream = json.loads(probe.stdout)["streams"][0]
    assert stream["codec_name"] == "vp8" and stream["width"] == 1280 and stream["height"] == 720
    report = next((tmp_path / "logs" / "reports").glob("trailblaze_report_*.html")).read_text()
    assert "video: <a href=" in report and "video: " + str(video) in (tmp_path / "junit.xml").read_text()

    passing = TRAIL.split("  - verify:")[0]
    done = run(tmp_path, shop_server, "-o", "video=retain-on-failure", "--output-dir", "pass", trail=passing)
    assert done.returncode == 0, done.stdout + done.stderr
    (session,) = [p for p in (tmp_path / "pass").iterdir() if p.name != "reports"]
    assert not (session / "video.webm").exists() and not (session / ".video-frames").exists()


def test_video_without_ffmpeg_says_how_to_get_it(tmp_path: Path, chromium: str, shop_server: str) -> None:
    done = run(tmp_path, shop_server, "-o", f"ffmpeg_path={tmp_path / 'no-ffmpeg'}", "-o", "video=on")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "video recording needs ffmpeg" in done.stdout + done.stderr and "apt-get install ffmpeg" in done.stdout
