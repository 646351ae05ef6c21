"""Trails as pytest tests, and Trailblaze sessions inside pytest tests.

Installed with ``trailblaze`` through the ``pytest11`` entry point, so it is imported only when pytest
runs (``trailblaze`` does not depend on pytest) and costs nothing else there: nothing is loaded until
trails are asked for or the ``trailblaze_session`` fixture is used. ``-p no:trailblaze`` turns it off.

Collection is opt-in: trail files are collected only from the paths given with ``--trails PATH`` or the
``trailblaze_trails`` ini option, so a suite that happens to contain trail files (this repository's own
``examples/``) keeps collecting exactly what it did before. ``--trails`` alone runs only the trails; the
ini option adds them to pytest's normal collection. See docs/pytest.md.

This module is the plugin pytest registers; its hooks live beside it, one job per module: ``collection``
(options, which files, shards), ``outputs`` (the plugins' output options), ``items`` (a trail as a
test), ``state`` (a process's runner and results), ``workers`` (xdist: run id, crashed workers, the
merge), ``signals`` (a controller's signal reaches its workers; a worker stops with its controller),
``console`` (what is shown) and ``fixture`` (``trailblaze_session``).
"""

from __future__ import annotations

from ..commands.pytest_bridge import RunConsole, marker_name
from .collection import (pytest_addoption, pytest_collect_file, pytest_collection_modifyitems, pytest_configure,
                         pytest_load_initial_conftests)
from .console import pytest_terminal_summary
from .fixture import ToolFailed, TrailblazeSession, pytest_runtest_makereport, trailblaze_session
from .items import TrailFailed, TrailFile, TrailItem, failure_text
from .state import GROUP, MARKER, worker_id
from .workers import pytest_configure_node, pytest_handlecrashitem, pytest_sessionfinish, pytest_testnodedown

__all__ = ["GROUP", "MARKER", "RunConsole", "ToolFailed", "TrailFailed", "TrailFile", "TrailItem",
           "TrailblazeSession", "failure_text", "marker_name", "trailblaze_session", "worker_id"]

HOOKS = (pytest_addoption, pytest_collect_file, pytest_collection_modifyitems, pytest_configure,
         pytest_configure_node, pytest_handlecrashitem, pytest_load_initial_conftests, pytest_runtest_makereport,
         pytest_sessionfinish, pytest_terminal_summary, pytest_testnodedown)
"""The hooks pytest finds on this module (imported here so the registered module holds them)."""
