"""Trailblaze sessions inside ordinary pytest tests: the ``trailblaze_session`` fixture."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .items import failure_text
from .state import MARKER, STATE

if TYPE_CHECKING:
    from ..results.model import TrailResult
    from ..runner.lifecycle import SessionLifecycle
    from ..runner.run import Runner
    from ..session import Session
    from ..tools.base import ToolResult

CALL_REPORT = pytest.StashKey[pytest.TestReport]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep the test's own outcome, so ``trailblaze_session`` closes its session as failed when it failed."""
    report: pytest.TestReport = yield
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    return report



class ToolFailed(AssertionError):
    """A tool call a test made through ``trailblaze_session.call`` failed."""


class TrailblazeSession:
    """What the ``trailblaze_session`` fixture gives a test: a started session and short ways to use it."""

    def __init__(self, lifecycle: SessionLifecycle, runner: Runner) -> None:
        self.lifecycle = lifecycle
        self.runner = runner

    @property
    def session(self) -> Session:
        return self.lifecycle.session

    @property
    def memory(self) -> Any:
        return self.session.memory

    def call(self, tool: str, /, *, check: bool = True, **args: Any) -> ToolResult:
        """Run one tool through the session's dispatcher (the path a recording takes). A failed tool raises
        ``ToolFailed`` with the tool's message unless ``check=False``."""
        from ..tools.base import ToolCall

        result = self.session.dispatcher.call(ToolCall(tool, args), self.session.context())
        if check and not result.success:
            raise ToolFailed(str(self.runner.redactor(f"{tool} failed: {result.message}")))
        return result

    def snapshot(self, **detail: bool) -> str:
        """The compact snapshot of the screen the agent would see (``detail``: bounds, offscreen, ...)."""
        driver = self.session.driver
        if driver is None:
            raise RuntimeError("this session has no driver")
        shown = driver.snapshot(detail=frozenset(k for k, on in detail.items() if on))
        return str(self.runner.redactor(shown))

    def run_trail(self, path: str | os.PathLike[str]) -> TrailResult:
        """Run a trail file in its own session (same options and shared browser); fails the test if the
        trail does not pass."""
        result = self.runner.run_trail(Path(path))
        assert result is not None
        if not result.passed and result.skip_reason is None:
            raise ToolFailed(failure_text(result, self.runner.redactor))
        return result


@pytest.fixture
def trailblaze_session(request: pytest.FixtureRequest) -> Iterator[TrailblazeSession]:
    """A session opened with the one session lifecycle (driver started, plugins told), closed after the test.

    Configure it with ``@pytest.mark.trailblaze(workspace=..., driver=..., device=..., target=...)``;
    without a workspace, the one holding the test file is used. The driver comes from the marker,
    ``--trailblaze-driver``, or the workspace's ``defaults.driver``."""
    from ..session import SessionOutcome

    state = request.config.stash[STATE]
    runner = state.runner
    marker = request.node.get_closest_marker(MARKER)
    kwargs: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    workspace = kwargs.get("workspace")
    if workspace is None:
        workspace = Path(str(request.node.path)).parent
    elif not Path(workspace).is_absolute():
        workspace = Path(str(request.config.rootpath)) / workspace
    from ..reuse import reuse_scope

    # A browser of its own, closed after the test (trail items share the worker's instead): a test
    # suite's other tests never find a browser left running by this one.
    with reuse_scope(), runner.open(workspace=Path(workspace), driver=kwargs.get("driver"),
                                    device=kwargs.get("device"), target=kwargs.get("target")) as lifecycle:
        yield TrailblazeSession(lifecycle, runner)
        report = request.node.stash.get(CALL_REPORT, None)
        if report is not None and report.failed:
            lifecycle.outcome = SessionOutcome.FAILED
    request.node.user_properties.append(("trailblaze_log_dir", str(lifecycle.session.log_dir)))

