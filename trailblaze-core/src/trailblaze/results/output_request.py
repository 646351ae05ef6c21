"""What a run asks of its output writers, in a module below both the runner and ``report/``.

The runner does not import the writers (JUnit, Allure, HTML, the result bundle): it hands this request
to the plugin hooks ``trailblaze_check_run_outputs``/``trailblaze_write_run_outputs``, which the
built-in plugin ``builtin.outputs`` answers, so the outputs sit above the runner in the import graph and
a new format is a plugin, not another branch in the runner.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..config import WorkspaceConfig


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


COMMIT_VARIABLES = ("TRAILBLAZE_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT")
"""Where a CI says which commit it tests, ``TRAILBLAZE_COMMIT`` first (to override the CI's own)."""


def current_commit() -> str | None:
    """The commit under test, for the run history, the result bundle and the merged report alike (they
    decided it twice, with different variables and directories, and disagreed): the first of
    ``COMMIT_VARIABLES`` set, else ``git rev-parse HEAD`` in the directory the run started in (asked once
    per directory and process), else None."""
    for name in COMMIT_VARIABLES:
        if os.environ.get(name):
            return os.environ[name]
    return _git_head(os.getcwd())


@functools.lru_cache(maxsize=8)
def _git_head(cwd: str) -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                              timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


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
    options: Mapping[str, Any] = field(default_factory=dict)
    """The values of the output options plugins declare (``trailblaze_output_options``), by option name
    (``"ctrf"`` for ``--ctrf``): a path, a text or True; an option not given is absent."""
    config: WorkspaceConfig | None = None
    """The workspace of the directory the run (or merge) started in, its plugin sections validated:
    ``request.config.section("ctrf")``; None outside a workspace or when its config does not load."""

    def option(self, name: str) -> Any:
        """The value of the output option ``name`` (``--name``), or None when it was not given."""
        return self.options.get(name)

    def section(self, name: str) -> Any:
        """The ``trailblaze.yaml`` section ``name`` (the model its plugin's ``trailblaze_config_sections``
        validates it with, or the raw value), or None."""
        return self.config.section(name) if self.config is not None else None


OPTION_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
"""An output option's name: ``ctrf``, ``ctrf-tool`` (the flag is ``--`` and the name)."""


@dataclass(frozen=True)
class OutputOption:
    """An option of a plugin's output format, declared once (``trailblaze_output_options``) and offered
    by ``trailblaze run``, ``trailblaze merge-reports`` and the pytest plugin as ``--<name>`` (pytest
    also takes ``--trailblaze-<name>``); the writer reads its value with ``request.option(name)``."""

    name: str
    """``ctrf`` for ``--ctrf``: lower case words joined by ``-``."""
    help: str
    """The ``--help`` text."""
    kind: Literal["path", "text", "flag"] = "path"
    """``path`` (a ``pathlib.Path``, relative to the directory the command started in), ``text`` (a
    ``str``) or ``flag`` (True when given)."""
    metavar: str | None = None
    """What ``--help`` shows for the value (default: ``PATH`` or ``TEXT``)."""

    def __post_init__(self) -> None:
        if not OPTION_NAME.match(self.name):
            raise ValueError(f"output option name {self.name!r} is not lower case words joined by '-'")
        if self.kind not in ("path", "text", "flag"):
            raise ValueError(f"output option kind {self.kind!r} is not path, text or flag")

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    @property
    def value_name(self) -> str:
        return self.metavar or ("PATH" if self.kind == "path" else "TEXT")

    def value(self, raw: Any) -> Any:
        """``raw`` (a command line's value) as the writer gets it; None when not given."""
        if raw is None or raw is False or raw == "":
            return None
        if self.kind == "flag":
            return True
        return Path(raw) if self.kind == "path" else str(raw)
