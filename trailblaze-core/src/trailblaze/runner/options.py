"""Everything ``trailblaze run`` can be told, as one typed object (CLI flags map onto it 1:1)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RunOptions:
    tags: list[str] = field(default_factory=list)
    driver: str | None = None
    devices: list[str] = field(default_factory=list)
    """``-d`` values; each device runs every trail, devices in parallel."""
    all_devices: bool = False
    """Upstream's ``--all-devices``: each trail on every platform it declares, one run each (``all_devices.py``)."""
    driver_options: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    args: dict[str, str] = field(default_factory=dict)
    args_file: Path | None = None
    output_dir: Path | None = None
    debug: bool = field(default_factory=lambda: os.environ.get("TRAILBLAZE_DEBUG") == "1")
    """Print the tracebacks behind errors (``--debug`` in any position, or ``TRAILBLAZE_DEBUG=1``)."""
    llm: str | None = None
    max_llm_calls: int | None = None
    self_heal: bool | None = None
    heal_check: bool = True
    """Replay a trail whose steps the agent healed or solved once more from its start, without the model,
    before its new recordings are written back (``runner/heal_check.py``); off: written back unproven."""
    use_recorded_steps: bool | None = None
    save_recording: bool = True
    report: bool = True
    logging: bool = True
    """Write the session's event log (the JSON summary and the HTML report are written regardless)."""
    log_layout: str | None = None
    """``stream`` (one ``session.ndjson`` per session) or ``files`` (upstream's ``NNN_<Kind>.json`` per
    event); None: ``TRAILBLAZE_LOG_LAYOUT``, else ``stream``."""
    headed: bool = False
    capture: dict[str, bool] = field(default_factory=dict)
    """Upstream's ``--capture-*`` switches: stream (``video``, ``network``, ``logcat``, ``ios_logs``) → on/off,
    applied to the driver settings that mean it (``SessionFactory.make_driver``); absent: the settings decide."""
    markdown: bool = False
    """Also write a Markdown summary of the run (``reports/trailblaze_summary_*.md``; upstream's ``--markdown``)."""
    test_name: str | None = None
    junit_xml: Path | None = None
    """Also write a JUnit XML report there (a testcase per trail and device)."""
    retries: int | None = None
    """Retries of a failed trail (None: 0) (a trail's ``config: retries:`` overrides it); see ``runner/retries.py``."""
    fail_on_flaky: bool = False
    """A trail that passed only on a retry (FLAKY) fails the run (exit 1)."""
    alluredir: Path | None = None
    """Also write Allure results there (``report/allure.py``; needs ``trailblaze[allure]``)."""
    max_llm_cost: float | None = None
    """USD the run may spend on model calls; then no step is handed to the model (ERROR, exit 2)."""
    history: bool = True
    """Append every trail's attempts to the results store (``results/store.py``)."""
    results_db: Path | None = None
    """The results store; default ``<workspace>/.trailblaze/results.db``."""
    endpoints: list[str] = field(default_factory=list)
    """A pool of device endpoints (Playwright server, Appium server or hub URLs): each xdist worker, or
    each ``-d`` device thread, takes its own (``SessionFactory.endpoint``)."""
    shard: str | None = None
    """``I/N``: run only this shard of the trail × device pairs (``runner/shards.py``); stored with each
    result in the history."""
    durations: Path | None = None
    """An earlier run's bundle or summary whose durations balance ``shard``."""
    worker: str | None = None
    """The pytest-xdist worker id this run is, written into its result bundle."""
    run_id: str | None = None
    """Shared by every worker and shard of one run (default: ``TRAILBLAZE_RUN_ID``, else a fresh id)."""
    host_tools: bool = True
    """Whether tools that run programs on this machine (``requires_host``: ``exec``, ``android_adbShell``)
    may run. ``trailblaze mcp`` turns it off unless started with ``--allow-host-tools``: then neither a
    client's call nor a trail it RUNs (or a YAML tool they expand into) can start a host program."""
    start_url: str | None = None
    """A page or deep link the driver opens after the setup trails, before the first step (``trailblaze
    step``/``verify --url``)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Options plugins read (by their own key)."""
    output_options: dict[str, Any] = field(default_factory=dict)
    """The values of the plugins' output options (``trailblaze_output_options``: ``--ctrf PATH``), by
    option name, for their writers (``OutputRequest.options``)."""
