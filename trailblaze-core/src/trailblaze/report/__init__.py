"""The HTML report of a run: one self-contained file (styles inline, screenshots as data URIs).

It is built only from what a run already holds — each trail's result and its session log entries
(already redacted) — so it needs no driver, no network to open, and can be mailed or attached to CI.
``trailblaze run`` writes it to ``logs/reports/trailblaze_report_<time>.html`` and prints the path.
"""

from __future__ import annotations

from .html import render_report, write_html_report

__all__ = ["render_report", "write_html_report"]
