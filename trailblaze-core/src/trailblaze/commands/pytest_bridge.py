"""What ``trailblaze run -n`` hands to pytest and reads back: a trail tag as a marker name, and the
console that shows the run.

The pytest plugin (``pytest_plugin/``) sits above the commands (it reads the option table in
``session_options.py``), so the two pieces ``run_parallel.py`` shares with it stand here, below both;
``trailblaze.pytest_plugin`` re-exports them.
"""

from __future__ import annotations

import re
import sys
from typing import IO, Any

import pytest


def marker_name(tag: str) -> str:
    """A trail tag as a marker usable in ``-m`` (``smoke``, ``needs_login`` for ``needs-login``)."""
    name = re.sub(r"\W", "_", tag.strip())
    return name if name and not name[0].isdigit() else f"tag_{name}"


class RunConsole:
    """``trailblaze run -n``'s console, registered in the xdist controller with pytest's terminal plugin
    off (``-p no:terminal``: no header, no dots, no pytest summary).

    xdist forwards every worker's test reports to the controller (``pytest_runtest_logreport``), and a
    trail's report carries what its runner printed (pytest captured it on the worker): each trail's
    ``▶`` line, step lines and outcome line are printed here when the trail ends, as one block, so two
    workers' trails never interleave. Errors outside a trail (a trail file that does not parse, a worker
    that died) get one ``✗`` line, as a plain run gives them."""

    def __init__(self, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.bad_input = 0
        """Trail files that did not collect (a parse error): bad input, as in a plain run."""
        self.interrupted: str | None = None
        """The signal that stopped the run (Ctrl-C is ``SIGINT``), for the ``Results:`` line."""
        self.output_errors: list[str] = []
        """Outputs the controller could not write (a plugin's writer that raised): one line each, exit 2."""

    def output_failed(self, message: str) -> None:
        """An output the controller could not write, shown as a plain run shows it: one line, naming
        the plugin where a plugin's writer failed; the run then exits 2."""
        self.output_errors.append(message)
        self._show(f"trailblaze: error: {message}", self.err)

    def _show(self, text: str, stream: IO[str]) -> None:
        """Lines from a worker (a trail's output, a crash message): control characters escaped, symbols
        fitted to what ``stream`` can print, as a plain run's progress lines are."""
        from ..runner.progress import fit_stream
        from ..untrusted import MAX_OUTPUT_CHARS, terminal_text

        for line in text.rstrip("\n").splitlines():
            print(fit_stream(terminal_text(line, limit=MAX_OUTPUT_CHARS), stream), file=stream, flush=True)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.bad_input += 1
            self._show(f"✗ {report.nodeid}: {_text(report.longrepr)}", self.out)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        from ..runner.interrupt import signal_name

        self.interrupted = signal_name(excinfo.value)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and not report.failed:
            return
        if report.capstdout:
            self._show(report.capstdout, self.out)
        if report.capstderr:
            self._show(report.capstderr, self.err)
        if report.failed and report.when != "call":  # a worker that died, a fixture that failed
            self._show(f"✗ {report.nodeid}: {_last_line(_text(report.longrepr))}", self.out)


def _text(longrepr: Any) -> str:
    return str(longrepr) if longrepr is not None else ""


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "?"


__all__ = ["RunConsole", "marker_name"]
