"""Trails as pytest items: one ``TrailFile`` per trail file, one ``TrailItem`` per device it runs on."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..commands.pytest_bridge import marker_name
from .state import MARKER, STATE, worker_id

if TYPE_CHECKING:
    from ..results.model import TrailResult
    from ..runner.lifecycle import Device
    from ..runner.run import Runner


class TrailFile(pytest.File):
    """One trail file: one item per device (``--trailblaze-device``), or one for the trail's own driver."""

    def collect(self) -> Iterator[pytest.Item]:
        from ..errors import TrailblazeError
        from ..trail.parser import load_trail

        state = self.config.stash[STATE]
        runner = state.runner
        try:
            ws = runner.workspace_for(self.path)
            if ws.error is not None:
                raise ws.error
            trail = load_trail(state.trail_path(self.path), codec=ws.codec)
        except TrailblazeError as exc:
            raise self.CollectError(f"{exc}") from None
        from ..runner.endpoints import plain_devices

        devices: list[Device | None] = [runner.parse_device(d) for d in plain_devices(runner.options.devices)] \
            or [None]
        markers = [marker_name(tag) for tag in trail.config.tags]
        for name in markers:
            self.config.addinivalue_line("markers", f"{name}: trail tag")
        for device in devices:
            label = device.spec if device is not None else _default_label(runner, trail, ws.config)
            item = TrailItem.from_parent(self, name=f"{trail.name} [{label}]", device=device, title=trail.name)
            item.add_marker(MARKER)
            for name in markers:
                item.add_marker(name)
            yield item


class TrailFailed(Exception):
    """A trail that did not pass; ``repr_failure`` shows its message like ``trailblaze run`` does."""

    def __init__(self, result: TrailResult, text: str) -> None:
        super().__init__(text)
        self.result = result
        self.text = text


class TrailItem(pytest.Item):
    def __init__(self, *, device: Device | None, title: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.device = device
        self.title = title

    def runtest(self) -> None:
        from ..results.model import TrailResult
        from ..reuse import active
        from ..runner import interrupt
        from ..session import SessionOutcome

        state = self.config.stash[STATE]
        runner = state.runner
        assert state.scope is not None
        try:
            with active(state.scope):  # the worker's browser, kept open between this worker's trails
                result = runner.run_trail(state.trail_path(self.path), self.device)
        except KeyboardInterrupt as exc:
            # A signal stopped the trail: it is this test's result (CANCELLED, the step it reached), reported
            # and kept in this process's bundle like any other, and the session stops after it. (Raising the
            # interruption on instead would lose the report, and have pytest render its deep traceback.)
            stopped = getattr(exc, "trail_result", None)
            if not isinstance(stopped, TrailResult):
                raise
            result = stopped
            self.session.shouldstop = f"interrupted by {interrupt.signal_name(exc)}"
        if result is None:  # not possible without --tags, which pytest expresses with -m
            raise pytest.skip.Exception("not selected", _use_item_location=True)
        with interrupt.deferred():  # a finished trail's result is never lost to a signal
            result.root = result.root or runner.workspace_for(self.path).config.root
            state.record(result)
            _record_junit_names(self, result)
            runner.record_history(result, self.device)
        late = interrupt.pending()
        if late is not None:  # came while the result was recorded: this trail counts, no other starts
            self.session.shouldstop = f"interrupted by {late}"
        clean = state.runner.redactor  # the run's one redaction point: --secret values and session secrets
        properties = {k: clean(v) for k, v in _properties(result, worker_id(self.config)).items()}
        self.user_properties.extend(properties.items())  # pytest's --junitxml writes them as <property>
        self.add_report_section("call", "trailblaze", "\n".join(f"{k}: {v}" for k, v in properties.items()))
        from ..report import allure_pytest

        if allure_pytest.active(self.config):
            for number, attempt in enumerate((*result.attempts, result), start=1):
                allure_pytest.add_trail(attempt, clean, attempt=f"attempt {number}" if result.attempts else None)
        if result.outcome is SessionOutcome.SKIPPED:
            # Reported at the trail file, not at this line.
            raise pytest.skip.Exception(result.skip_reason or "skipped", _use_item_location=True)
        if result.quarantined and (not result.passed or result.flaky and runner.options.fail_on_flaky):
            # Reported (the report, the summary, the history), but it does not fail the build.
            raise pytest.skip.Exception(f"quarantined, {result.status}: {clean(result.message or '')}",
                                        _use_item_location=True)
        if not result.passed or (result.flaky and runner.options.fail_on_flaky):
            raise TrailFailed(result, failure_text(result, clean))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, TrailFailed):
            return excinfo.value.text
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"trail: {self.name}"


def _record_junit_names(item: pytest.Item, result: TrailResult) -> None:
    """pytest's ``--junitxml`` names the test case the way ``trailblaze run --junit-xml`` does
    (``report.junit.junit_names``): a team that switches between them keeps its CI history."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # a pytest without the junitxml plugin's stash key: its own naming stays
        return
    xml = item.config.stash.get(xml_key, None)
    if xml is None:
        return
    from ..report.junit import junit_names

    classname, name = junit_names(item.path, result.root, item.name)
    reporter = xml.node_reporter(item.nodeid)
    reporter.add_attribute("classname", classname)
    reporter.add_attribute("name", name)


def failure_text(result: TrailResult, redact: Callable[[str], str]) -> str:
    """The CLI's failure line (step, tool, file:line:col, selector, what the page had), then where the
    screenshot, trace and logs are, through ``redact`` (the run's ``Redactor``)."""
    from ..report.junit import artifact_paths

    lines = [result.message or f"{result.title}: {result.outcome.value}"]
    if result.flaky:
        first = result.attempts[0]
        lines = [f"FLAKY: passed on attempt {result.attempt}; attempt 1: {first.message or first.outcome.value}"]
    for key, value in artifact_paths(result).items():
        lines.append(f"{key}: {value}")
    return str(redact("\n".join(lines)))


def _properties(result: TrailResult, worker: str | None) -> dict[str, str]:
    from ..report.junit import artifact_paths

    props = {"trail": str(result.path), "trail_id": result.trail_id or "", "outcome": result.outcome.value,
             "status": result.status, "attempts": str(result.attempt),
             "driver": result.driver or "", "classifier": result.classifier or "",
             "session_id": result.session_id or ""}
    if worker:
        props["worker"] = worker
    props.update(artifact_paths(result))
    return {k: v for k, v in props.items() if v}



def _default_label(runner: Runner, trail: Any, ws: Any) -> str:
    try:
        cls = runner.driver_for_trail(trail, ws)
    except Exception:  # noqa: BLE001 - the item fails with the runner's message when it runs
        return "default"
    return "-".join(cls.default_classifiers) or cls.platform
