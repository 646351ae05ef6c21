"""``--retries``: a trail that fails once and then passes is FLAKY (exit 0, or 1 with ``--fail-on-flaky``),
every attempt is kept, and the JUnit XML carries Surefire's rerun elements."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from junitparser import Failure, JUnitXml
from trailblaze.testing import run_cli

# The held-out flaky tool: a host process that fails while its counter file is below N, then passes.
FLAKY_SCRIPT = """\
import sys
from pathlib import Path
counter = Path(sys.argv[1])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if n <= int(sys.argv[2]):
    print(f"backend not ready (attempt {n})")
    sys.exit(1)
print(f"ok on attempt {n}")
"""


def flaky_trail(root: Path, name: str, fail_first: int, config: str = "") -> Path:
    script = root / "flaky.py"
    script.write_text(FLAKY_SCRIPT)
    trail = root / f"{name}.trail.yaml"
    argv = json.dumps([sys.executable, str(script), str(root / f"{name}.count"), str(fail_first)])
    trail.write_text(f"""\
config:
  id: shop/{name}
{config}trail:
  - step: wait for the backend
    recording:
      host:
        - exec: {{argv: {argv}}}
""")
    return trail


def last_summary(out: Path) -> dict:  # type: ignore[type-arg]
    summaries = sorted((out / "reports").glob("trailblaze_test_results_*.json"))
    return json.loads(summaries[-1].read_text())["results"][0]  # type: ignore[no-any-return]


def test_a_pass_on_the_retry_is_flaky_with_both_attempts_kept(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    trail = flaky_trail(tmp_path, "checkout", fail_first=1)
    out, junit = tmp_path / "out", tmp_path / "junit.xml"
    result = run_cli(["run", str(trail), "--retries", "1", "--output-dir", str(out), "--junit-xml", str(junit)],
                     host=plugin_host)
    assert result.exit_code == 0, result.output
    assert "Results: 1 passed, 0 failed, 0 skipped (1 flaky)" in result.output
    assert "↻ attempt 2 of shop/checkout" in result.output and "backend not ready (attempt 1)" in result.output
    summary = last_summary(out)
    assert summary["outcome"] == "FLAKY" and summary["attempt"] == 2
    first, second = summary["attempts"]
    assert first["outcome"] == "FAILED" and "backend not ready" in first["failure_reason"]
    assert second["outcome"] == "PASSED" and first["log_dir"] != second["log_dir"]  # a session per attempt
    assert Path(first["log_dir"]).is_dir() and Path(second["log_dir"]).is_dir()

    xml = JUnitXml.fromfile(str(junit))  # plain parsers: a passed test
    case = next(iter(next(iter(xml))))
    assert case.is_passed and not any(isinstance(r, Failure) for r in case.result)
    node = ET.parse(junit).getroot().find(".//testcase")
    assert node is not None
    flaky = node.findall("flakyFailure")  # what Jenkins and GitLab read (Maven Surefire's shape)
    assert len(flaky) == 1 and "exited with 1" in (flaky[0].get("message") or "")
    assert "backend not ready" in (flaky[0].findtext("stackTrace") or "")
    assert f"log_dir: {first['log_dir']}" in (flaky[0].findtext("system-out") or "")
    props = {p.get("name"): p.get("value") for p in node.iter("property")}
    assert props["trailblaze.status"] == "FLAKY" and props["trailblaze.attempts"] == "2"

    report = next((out / "reports").glob("trailblaze_report_*.html")).read_text()
    assert "FLAKY" in report and "attempt 1" in report and "Flaky/healed 1" in report
    assert first["session_id"] in report and second["session_id"] in report


def test_fail_on_flaky_and_no_retries_both_exit_1(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    trail = flaky_trail(tmp_path, "checkout", fail_first=1)
    result = run_cli(["run", str(trail), "--retries", "1", "--fail-on-flaky", "--output-dir", str(tmp_path / "a")],
                     host=plugin_host)
    assert result.exit_code == 1, result.output
    assert "(1 flaky)" in result.output
    (tmp_path / "checkout.count").unlink()
    result = run_cli(["run", str(trail), "--output-dir", str(tmp_path / "b")], host=plugin_host)
    assert result.exit_code == 1, result.output
    assert "Results: 0 passed, 1 failed, 0 skipped" in result.output
    assert last_summary(tmp_path / "b")["attempts"][0]["outcome"] == "FAILED"


def test_failing_every_attempt_writes_rerun_failures_and_the_trail_config_overrides(
        tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    trail = flaky_trail(tmp_path, "login", fail_first=5, config="  retries: 2\n")
    junit = tmp_path / "junit.xml"
    result = run_cli(["run", str(trail), "--retries", "0", "--output-dir", str(tmp_path / "out"),
                      "--junit-xml", str(junit)], host=plugin_host)
    assert result.exit_code == 1, result.output
    assert (tmp_path / "login.count").read_text() == "3"  # config retries: 2 → three attempts
    node = ET.parse(junit).getroot().find(".//testcase")
    assert node is not None
    assert len(node.findall("failure")) == 1 and len(node.findall("rerunFailure")) == 2
    assert last_summary(tmp_path / "out")["outcome"] == "FAILED"


def test_bad_input_is_never_retried(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "bad.trail.yaml").write_text("trail:\n  - step: x\n    recording:\n      host:\n        - waitt: {}\n")
    result = run_cli(["run", str(tmp_path), "--retries", "3", "--output-dir", str(tmp_path / "out")],
                     host=plugin_host)
    assert result.exit_code == 3 and "↻" not in result.output, result.output


def test_a_quarantined_failure_is_reported_but_does_not_fail_the_run(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "trails" / "config"
    config.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("quarantine:\n  trails: [shop/login]\n")
    trails = tmp_path / "trails"
    flaky_trail(trails, "login", fail_first=5)
    flaky_trail(trails, "tagged", fail_first=5, config="  tags: [quarantine]\n")
    junit = tmp_path / "junit.xml"
    result = run_cli(["run", str(trails), "--output-dir", str(tmp_path / "out"), "--junit-xml", str(junit)],
                     host=plugin_host)
    assert result.exit_code == 0, result.output
    assert "Results: 0 passed, 2 failed, 0 skipped (2 quarantined)" in result.output
    suite = next(iter(JUnitXml.fromfile(str(junit))))
    assert (suite.failures, suite.skipped) == (0, 2)


def test_pytest_retries_inside_the_item_and_fail_on_flaky(tmp_path: Path) -> None:
    import subprocess

    trail = flaky_trail(tmp_path, "checkout", fail_first=1)

    def pytest_run(*extra: str) -> subprocess.CompletedProcess[str]:
        (tmp_path / "checkout.count").unlink(missing_ok=True)
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--trails", str(trail),
                               "--trailblaze-output-dir", str(tmp_path / "out"), "--rootdir", str(tmp_path),
                               "-o", "addopts=", *extra], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                              check=False)

    done = pytest_run("--trailblaze-retries", "1", "--junitxml", str(tmp_path / "j.xml"))
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    props = {p.get("name"): p.get("value") for p in ET.parse(tmp_path / "j.xml").getroot().iter("property")}
    assert props["status"] == "FLAKY" and props["attempts"] == "2"
    done = pytest_run("--trailblaze-retries", "1", "--trailblaze-fail-on-flaky")
    assert done.returncode == 1 and "FLAKY: passed on attempt 2" in done.stdout, done.stdout + done.stderr
    done = pytest_run()
    assert done.returncode == 1 and "1 failed" in done.stdout, done.stdout + done.stderr
