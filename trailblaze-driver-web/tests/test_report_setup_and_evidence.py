"""The per-run HTML report of a real run: a setup trail's calls sit under a "setup" heading before the
first step (not under the last one), and the evidence is rendered as tables, not a JSON line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from trailblaze.testing import run_cli

pytestmark = pytest.mark.browser

SETUP = """\
config: {devices: {web: PLAYWRIGHT_NATIVE}}
trail:
  - step: Open the reports page
    recording:
      web:
        - web_navigate: {url: /account/reports.html}
"""

TRAIL = """\
config:
  id: reports/delete
  title: Delete the taxi ride
  devices: {web: PLAYWRIGHT_NATIVE}
  setup: [setup/reports.trail.yaml]
trail:
  - step: Delete the taxi ride
    recording:
      web:
        - web_click: {ref: 'button "Delete Taxi"'}
  - verify: It is gone
    recording:
      web:
        - web_verifyDialog: {message: "Delete Taxi?"}
        - web_verifyTextVisible: {text: Deleted Taxi}
"""


def test_setup_calls_have_their_heading_and_the_evidence_is_tables(tmp_path: Path, chromium: str,
                                                                   shop_server: str) -> None:
    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("drivers:\n  playwright-native: {}\n")
    (tmp_path / "trails" / "setup").mkdir()
    (tmp_path / "trails" / "setup" / "reports.trail.yaml").write_text(SETUP)
    (tmp_path / "trails" / "delete.trail.yaml").write_text(TRAIL)
    result = run_cli(["run", str(tmp_path / "trails" / "delete.trail.yaml"), "-o", f"base_url={shop_server}",
                      "-o", "evidence=on", "-o", "network=all", "--output-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    report = Path(re.search(r"^Report: (.+)$", result.output, re.MULTILINE).group(1))  # type: ignore[union-attr]
    html = report.read_text(encoding="utf-8")
    setup = html.index("<b>setup</b>: reports.trail.yaml")
    first = html.index("<b>step 1</b>: Delete the taxi ride")
    assert setup < html.index("web_navigate") < first and html.count("<code>web_navigate</code>") == 1
    assert "evidence: {" not in html and "<details class=evidence>" in html
    assert "<td>confirm</td><td>Delete Taxi?</td><td>accept</td>" in html
    assert re.search(r"<tr><td>GET</td><td>http://127\.0\.0\.1:\d+/account/reports\.html</td><td>200</td>", html)
