"""Recording generation (upstream §8): what a step's recording keeps of the calls that ran.

Rule: per step, the successful top-level calls that are recordable, in the form a recording can
replay (``ExecutedCall.recordable_form``: as authored, memory tokens kept, unless the tool said what to
record instead, e.g. a selector for a snapshot ref). A top-level call that is *not* recordable but
delegates (a wrapper) contributes its recordable expansion instead; anything else not recordable
(``objectiveStatus``, ``exec``) is left out. Verifications are always kept, even when their tool is
flagged not recordable (upstream's web verifications are): a ``verify:`` step's recording *is* its
assertions, and replaying an assertion changes nothing. A verification that delegates (``assertVisible``
by ref) is recorded as its expansion (``assertVisibleBySelector``), like any wrapper. Immediate repeats of the same verification are
kept once.
Zero calls means "no recording": the step is written without a ``recording`` slot, never ``[]``.

The same rule runs over a live session (``session.executed``) and over the JSON logs of a finished one
(``TrailblazeToolLog`` entries), which is how ``logs/<session>/recording.trail.yaml`` is produced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..tools.base import ToolCall

if TYPE_CHECKING:
    from ..plugins import PluginHost
    from ..session import ExecutedCall
    from ..trail.model import Trail


@dataclass
class _Node:
    call: ToolCall
    recordable: bool
    delegating: bool
    verification: bool
    success: bool
    step_index: int | None
    children: list["_Node"] = field(default_factory=list)


def _tree(items: Iterable[tuple[int, _Node]]) -> list[_Node]:
    """Rebuild the call tree from (depth, node) pairs in completion order (children finish first)."""
    pending: dict[int, list[_Node]] = {}
    for depth, node in items:
        node.children = pending.pop(depth + 1, [])
        pending.setdefault(depth, []).append(node)
    return pending.get(0, [])


def _walk(node: _Node) -> list[_Node]:
    if not node.success:
        return []
    if node.recordable:
        return [node]
    if node.delegating:
        # A wrapper (``tap``/``assertVisible`` by ref, a YAML tool) records what it expanded to; only a
        # verification wrapper whose expansion records nothing is kept as itself.
        leaves = [leaf for child in node.children for leaf in _walk(child)]
        if leaves or not node.verification:
            return leaves
    if node.verification:
        return [node]
    return []


def _dedupe(nodes: list[_Node]) -> list[ToolCall]:
    out: list[ToolCall] = []
    last: _Node | None = None
    for node in nodes:
        if last is not None and node.verification and last.verification and node.call == last.call:
            continue
        out.append(node.call)
        last = node
    return out


def recording_from_executed(executed: Sequence["ExecutedCall"]) -> list[ToolCall]:
    """The recording of one step's calls (a slice of ``session.executed``)."""
    nodes = _tree((e.depth, _Node(e.recordable_form, e.is_recordable, e.delegating, e.is_verification, e.success,
                                  e.step_index)) for e in executed)
    return _dedupe([leaf for n in nodes for leaf in _walk(n)])


def recordings_from_executed(executed: Sequence["ExecutedCall"]) -> dict[int, list[ToolCall]]:
    """Per step index, the recording of every step that ran in a session."""
    by_step: dict[int, list["ExecutedCall"]] = {}
    for e in executed:
        if e.step_index is not None:
            by_step.setdefault(e.step_index, []).append(e)
    return {i: recording_from_executed(calls) for i, calls in by_step.items()}


_TOOL_LOG = "TrailblazeToolLog"
_DELEGATING_LOG = "DelegatingTrailblazeToolLog"


def _log_kind(entry: Mapping[str, Any]) -> str:
    return str(entry.get("class", "")).rsplit(".", 1)[-1]


def recordings_from_logs(entries: Iterable[Mapping[str, Any]], host: "PluginHost | None" = None) -> dict[int, list[ToolCall]]:
    """Per step index, the recording generated from a session's log entries (``SessionLog.entries`` or
    the ``NNN_*.json`` files read back in order). Each logged call is decoded through ``host``'s
    ``trailblaze_decode_tool``, so upstream's legacy ``{"class": ...}`` form reads as the owning tool."""
    from ..tools.serialization import decode, decode_json

    by_step: dict[int, list[tuple[int, _Node]]] = {}
    for entry in entries:
        kind = _log_kind(entry)
        if kind not in (_TOOL_LOG, _DELEGATING_LOG) or entry.get("stepIndex") is None:
            continue
        form = entry.get("recordedTrailblazeTool") or entry.get("rawTrailblazeTool") or entry.get("trailblazeTool") or {}
        if "class" in form and "toolName" not in form:
            call = decode_json(form, host=host)
        else:
            call = decode(str(form.get("toolName") or entry.get("toolName")), dict(form.get("raw") or {}), host=host)
        depth = int(entry.get("depth") or (0 if entry.get("isTopLevelToolCall") else 1))
        node = _Node(call, bool(entry.get("isRecordable")), kind == _DELEGATING_LOG, bool(entry.get("isVerification")),
                     bool(entry.get("successful")), int(entry["stepIndex"]))
        by_step.setdefault(int(entry["stepIndex"]), []).append((depth, node))
    return {i: _dedupe([leaf for n in _tree(items) for leaf in _walk(n)]) for i, items in by_step.items()}


def passed_steps(entries: Iterable[Mapping[str, Any]]) -> set[int]:
    return {int(e["stepIndex"]) for e in entries
            if _log_kind(e) == "ObjectiveCompleteLog" and e.get("successful") and e.get("stepIndex") is not None}


def recording_trail_yaml(trail: "Trail", entries: Sequence[Mapping[str, Any]], classifier: str,
                         host: Any = None) -> str:
    """``recording.trail.yaml``: the trail as it ran on this device, each passed step with the recording
    generated from the logs (unified format; steps that did not run are left out)."""
    import io

    from ruamel.yaml import YAML

    from ..tools.serialization import encode_yaml

    recordings = recordings_from_logs(entries, host)
    ran = passed_steps(entries)
    doc: dict[str, Any] = {}
    config = {k: v for k, v in (("id", trail.config.id), ("title", trail.config.title),
                                ("target", trail.config.target)) if v}
    if config:
        doc["config"] = config
    items: list[dict[str, Any]] = []
    for step in trail.steps:
        if step.index not in ran:
            continue
        calls = recordings.get(step.index, [])
        encoded = [encode_yaml(c, host=host) for c in calls]
        if step.kind == "trailhead":
            head: dict[str, Any] = {"step": step.text or ""}
            if encoded:
                head["recording"] = {classifier: encoded[0]}
            doc["trailhead"] = head
            continue
        key = "verify" if step.kind == "verify" else "step"
        item: dict[str, Any] = {key: step.text or ""}
        if not step.recordable:
            item["recordable"] = False
        elif encoded:
            item["recording"] = {classifier: encoded}
        items.append(item)
    doc["trail"] = items
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    buf = io.StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue()
