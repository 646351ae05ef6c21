"""JUnit XML for CI systems that read test results, for ``trailblaze run --junit-xml PATH``.

Every CI server (GitHub Actions' test reporters, GitLab's ``artifacts:reports:junit``, Jenkins,
Buildkite) understands this one shape, so a run that does not go through pytest still shows up as
tests there: one ``testsuite`` per run, one ``testcase`` per trail and device, with the failure
message and, in ``system-out``, where the logs, the failing screenshot and the trace are. The file is
built from the run's results and redacted with the run's secrets (messages are written in plain
text; the log entries the paths point to are redacted when they were written), cut at 64 KiB per
string, and made safe for XML in one place (``xml_value``: ``untrusted.output_text`` over every
attribute and text of the document, whoever set it), so a control character, a lone surrogate or a
megabyte of tool output — in a message, a ``failure_kind`` or a merged bundle's record — cannot make
the file unreadable. The document is written as text (``xml_stream``), in the bytes ElementTree wrote. ``trailblaze run`` and the pytest plugin name a trail the same way
(``junit_names``), so a team that switches between them keeps its test history.
"""

from __future__ import annotations

import socket
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..files import write_atomic
from ..session import SessionOutcome
from ..untrusted import MAX_OUTPUT_CHARS, needs_output_text, output_text, truncated
from .junit_retries import trail_properties, write_properties, write_retries
from .xml_stream import XmlStream

if TYPE_CHECKING:
    from ..results.model import RunResult, TrailResult

FAILED = frozenset({SessionOutcome.FAILED, SessionOutcome.FAILED_WITH_SELF_HEAL, SessionOutcome.CANCELLED,
                    SessionOutcome.TIMEOUT_REACHED, SessionOutcome.MAX_CALLS_LIMIT_REACHED})
"""Outcomes that are the trail's fault (``failure``); ``ERROR`` is infrastructure or bad input (``error``)."""


def artifact_paths(trail: TrailResult) -> dict[str, str]:
    """Where to look when a trail failed: its log directory, the last screenshot, the Playwright trace,
    and the evidence files a driver logged (``{"evidence": {"network_log": "network.ndjson", ...}}``).

    Read from the session's log entries, so any driver that logs ``screenshot``/``trace`` entries gets
    them listed (the JUnit ``system-out``, the pytest item's properties)."""
    out: dict[str, str] = {}
    if trail.log_dir is None:
        return out
    out["log_dir"] = str(trail.log_dir)
    for entry in trail.log_entries:
        folder = trail.log_dir_of(session=entry.get("session")) or trail.log_dir  # an actor's own folder
        if entry.get("screenshot"):
            out["screenshot"] = str(folder / str(entry["screenshot"]))
        if entry.get("trace"):
            out["trace"] = str(entry.get("path") or folder / str(entry["trace"]))
        if isinstance(entry.get("evidence"), dict):  # network and console logs, device logs, video
            out.update({str(k): str(folder / str(v)) for k, v in entry["evidence"].items()})
    for key, value in trail.artifacts.items():  # a result read back from a bundle keeps them here
        out.setdefault(key, value)
    return out


def case_name(trail: TrailResult) -> str:
    """``title [device]``: the same trail on two devices is two test cases."""
    device = trail.device_label or trail.classifier or trail.platform or trail.driver
    return f"{trail.title} [{device}]" if device else trail.title


def junit_names(path: Path, root: Path | None, name: str) -> tuple[str, str]:
    """``(classname, name)`` of a trail's test case, the one rule ``trailblaze run`` and the pytest
    plugin share: the classname is the trail file's path below the workspace root with ``/`` as ``.``
    (what pytest's ``--junitxml`` makes of a node id), so two ``login.trail.yaml`` in different folders
    are two classes; ``name`` is ``title [device]``."""
    path = path if isinstance(path, Path) else Path(path)  # parsing it again was a third of a merge's JUnit
    rel = path
    if root is not None:
        try:
            rel = path.resolve().relative_to(Path(root).resolve())
        except ValueError:
            rel = path
    return output_text(rel.as_posix().lstrip("/").replace("/", ".")), output_text(name)


def build_junit_xml(result: RunResult, *, suite_name: str = "trailblaze") -> ET.Element:
    """The run's JUnit document as an ``ElementTree`` element, safe for XML (the file's text, parsed)."""
    return ET.fromstring(junit_text(result, suite_name=suite_name))


def junit_text(result: RunResult, *, suite_name: str = "trailblaze") -> str:
    """The run's JUnit document as text, indented, safe for XML: written once as it is, and once more
    with every value through ``xml_value`` only when the text shows a character that changes (nearly
    never), so a 10,000-trail JUnit is not checked value by value."""
    text = _document(result, suite_name, str)
    if needs_output_text(text, limit=None):  # control characters are written as they are
        text = _document(result, suite_name, xml_value)
    return text


def xml_value(value: str) -> str:
    """A value made safe for XML (``untrusted.output_text``: control characters XML forbids shown as
    ``\\x01``, lone surrogates as U+FFFD, strings cut at 64 KiB); the writer then escapes markup. The
    one rule the JUnit writers rely on, so a string no caller cleaned cannot make the file ill-formed."""
    return output_text(value) if needs_output_text(value) else value


def _document(result: RunResult, suite_name: str, value: Callable[[str], str]) -> str:
    redact = result.redactor  # what ``result.redact`` calls: one call less for each of 80,000 values

    def clean(text: str | None) -> str:
        # The run's one redaction point, then the length every output keeps (characters: ``xml_value``).
        text = redact(text or "")
        return text if len(text) <= MAX_OUTPUT_CHARS else truncated(text, MAX_OUTPUT_CHARS)

    trails = result.trails
    # A quarantined trail that did not pass is written as skipped (with why): it must not fail the build.
    benched = {id(t) for t in trails if t.quarantined and not t.passed and t.outcome is not SessionOutcome.SKIPPED}
    failures = sum(1 for t in trails if t.outcome in FAILED and id(t) not in benched)
    errors = sum(1 for t in trails if t.outcome is SessionOutcome.ERROR and id(t) not in benched)
    skipped = sum(1 for t in trails if t.outcome is SessionOutcome.SKIPPED) + len(benched)
    started = min((t.started_at for t in trails), default=time.time())
    total = sum(_duration(t) for t in trails)
    totals = [("name", suite_name), ("tests", str(len(trails))), ("failures", str(failures)),
              ("errors", str(errors)), ("skipped", str(skipped)), ("time", f"{total:.3f}")]
    xml = XmlStream(value)
    xml.open("testsuites", totals)
    xml.open("testsuite", [*totals, ("timestamp", time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started))),
                           ("hostname", socket.gethostname())])
    for trail in trails:
        classname, name = junit_names(trail.path, trail.root, clean(case_name(trail)))
        xml.open("testcase", [("classname", classname), ("name", name), ("time", f"{_duration(trail):.3f}"),
                              ("file", str(trail.path))])
        write_properties(xml, trail_properties(trail), clean)  # first: where the schema and Jenkins expect them
        message = clean(trail.message)
        if trail.outcome is SessionOutcome.SKIPPED:
            xml.leaf("skipped", [("message", clean(trail.skip_reason or "skipped"))])
        elif id(trail) in benched:
            xml.leaf("skipped", [("message", _first_line(f"quarantined, {trail.status}: {message}"))], message)
        elif trail.outcome in FAILED:
            xml.leaf("failure", [("message", _first_line(message)),
                                 ("type", clean(trail.failure_kind) or "TrailFailed")], message)
        elif trail.outcome is SessionOutcome.ERROR:
            xml.leaf("error", [("message", _first_line(message)), ("type", clean(trail.failure_kind) or "Error")],
                     message)
        write_retries(xml, trail, clean, artifact_paths)
        lines = [f"session: {trail.session_id}"] if trail.session_id else []
        for key, path in artifact_paths(trail).items():  # a loop: a comprehension is a call in Python 3.11
            lines.append(f"{key}: {path}")
        if lines:
            xml.leaf("system-out", body=clean("\n".join(lines)))
        xml.close()
    xml.close()
    xml.close()
    return xml.getvalue()


def xml_safe(root: ET.Element) -> ET.Element:
    """Every attribute value and text in the ``ElementTree`` ``root`` made safe for XML (``xml_value``),
    for a document built as a tree rather than through ``junit_text``."""
    for node in root.iter():
        if node.text:
            node.text = xml_value(node.text)
        if node.tail:
            node.tail = xml_value(node.tail)
        for key, value in node.attrib.items():
            node.attrib[key] = xml_value(value)
    return root


def write_junit_xml(result: RunResult, path: Path) -> Path:
    return write_atomic(path, f"<?xml version='1.0' encoding='utf-8'?>\n{junit_text(result)}")


def _duration(trail: TrailResult) -> float:
    return max(0.0, (trail.completed_at or trail.started_at) - trail.started_at)


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
