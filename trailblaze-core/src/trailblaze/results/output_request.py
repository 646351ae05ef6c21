"""What a run asks of its output writers, in a module below both the runner and ``report/``.

The runner does not import the writers (JUnit, Allure, HTML, the result bundle): it hands this request
to the plugin hooks ``trailblaze_check_run_outputs``/``trailblaze_write_run_outputs``, which the
built-in plugin ``builtin.outputs`` answers, so the outputs sit above the runner in the import graph and
a new format is a plugin, not another branch in the runner.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass
class BundleContext:
    """What a run knows about itself beyond its trails (written into its result bundle's manifest)."""

    run_id: str
    shard: str | None = None
    worker: str | None = None
    devices: tuple[str, ...] = ()
    plugins: Mapping[str, str | None] | None = None
    started_at: float | None = None


def new_run_id() -> str:
    """``TRAILBLAZE_RUN_ID`` when the CI sets one for all its shards, else a fresh id."""
    return os.environ.get("TRAILBLAZE_RUN_ID") or uuid.uuid4().hex[:16]


@dataclass(frozen=True)
class OutputRequest:
    """The outputs one run asked for (``--junit-xml``, ``--alluredir``, ``--no-report``) and where its
    result bundle goes; the JSON summary and the results store are the runner's own."""

    output_dir: Path
    """The run's output directory: the HTML report goes to its ``reports/``, the bundle is the directory."""
    context: BundleContext
    junit_xml: Path | None = None
    alluredir: Path | None = None
    html_report: bool = True
    markdown: bool = False
    """Also write a Markdown summary, ``reports/trailblaze_summary_*.md`` (``run --markdown``)."""
