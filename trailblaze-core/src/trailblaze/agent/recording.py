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

import functools
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..logs import LOG_PACKAGE
from ..tools.base import ToolCall
from ..tools.codec import CORE_CODEC, ToolCodec

if TYPE_CHECKING:
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
_TOOL_CLASS = f"{LOG_PACKAGE}.{_TOOL_LOG}"
_DELEGATING_CLASS = f"{LOG_PACKAGE}.{_DELEGATING_LOG}"
_CALL_CLASSES = frozenset({_TOOL_CLASS, _DELEGATING_CLASS})


def _log_kind(entry: Mapping[str, Any]) -> str:
    return str(entry.get("class", "")).rsplit(".", 1)[-1]


def recordings_from_logs(entries: Iterable[Mapping[str, Any]],
                         codec: ToolCodec = CORE_CODEC) -> dict[int, list[ToolCall]]:
    """Per step index, the recording generated from a session's log entries (``SessionLog.entries``, or
    ``trailblaze.logs.read_log`` of a session's directory). Each logged call is decoded through ``codec``
    (the session's: ``trailblaze_decode_tool``), so upstream's legacy ``{"class": ...}`` form reads as the
    owning tool."""
    by_step: dict[int, list[tuple[int, _Node]]] = {}
    for entry in entries:
        cls = entry.get("class")
        if cls == _TOOL_CLASS:
            delegating = False
        elif cls == _DELEGATING_CLASS:
            delegating = True
        elif cls in (_TOOL_LOG, _DELEGATING_LOG) or _log_kind(entry) in (_TOOL_LOG, _DELEGATING_LOG):
            delegating = _log_kind(entry) == _DELEGATING_LOG  # another package's class name
        else:
            continue
        step_index = entry.get("stepIndex")
        if step_index is None:
            continue
        form = entry.get("recordedTrailblazeTool") or entry.get("rawTrailblazeTool") or entry.get("trailblazeTool") or {}
        if "class" in form and "toolName" not in form:
            call = codec.decode_json(form)
        else:
            name = str(form.get("toolName") or entry.get("toolName"))
            call = codec.decode(name, dict(form.get("raw") or {}))
        depth = int(entry.get("depth") or (0 if entry.get("isTopLevelToolCall") else 1))
        node = _Node(call, bool(entry.get("isRecordable")), delegating, bool(entry.get("isVerification")),
                     bool(entry.get("successful")), int(step_index))
        by_step.setdefault(int(step_index), []).append((depth, node))
    return {i: _dedupe([leaf for n in _tree(items) for leaf in _walk(n)]) for i, items in by_step.items()}


def passed_steps(entries: Iterable[Mapping[str, Any]]) -> set[int]:
    return {int(e["stepIndex"]) for e in entries
            if e.get("class") not in _CALL_CLASSES and e.get("stepIndex") is not None and e.get("successful")
            and _log_kind(e) == "ObjectiveCompleteLog"}


def recording_trail_yaml(trail: "Trail", entries: Sequence[Mapping[str, Any]], classifier: str,
                         codec: ToolCodec = CORE_CODEC) -> str:
    """``recording.trail.yaml``: the trail as it ran on this device, each passed step with the recording
    generated from the logs (unified format; steps that did not run are left out)."""
    recordings = recordings_from_logs(entries, codec)
    ran = passed_steps(entries)
    doc: dict[str, Any] = {}
    config = _source_config(trail) or {k: v for k, v in (("id", trail.config.id), ("title", trail.config.title),
                                                          ("target", trail.config.target)) if v}
    if config:
        doc["config"] = config
    items: list[dict[str, Any]] = []
    for step in trail.steps:
        if step.index not in ran:
            continue
        calls = recordings.get(step.index, [])
        encoded = [codec.encode_yaml(c) for c in calls]
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
    fast = block_yaml(doc)
    if fast is not None:
        return fast
    yaml = _plain_dumper()
    buf = io.StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue()


def _source_config(trail: "Trail") -> dict[str, Any] | None:
    """The trail's own ``config`` section as written (args, devices, tags, memory, context...), so the
    recording replays with the same declarations; None when the trail was not read from a file. The parser
    kept it (``TrailConfig.written``): reading the file again here cost as much as the whole parse."""
    return dict(trail.config.written) or None


@functools.lru_cache(maxsize=1)
def _plain_dumper() -> Any:
    """One configured dumper for every scalar ``block_yaml`` leaves to ruamel (building one costs more
    than the dump)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.width = 4096  # one line per scalar, as ``block_yaml`` writes them
    return yaml


class _Unusual(Exception):
    """A value ``block_yaml`` leaves to ruamel (floats, nested lists, multi-line or odd keys)."""


_PLAIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?: [A-Za-z0-9_]+)*")
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_PLAIN_KEYS: dict[str, bool] = {}
"""Mapping keys (tool, argument and section names: few, and repeated) already checked."""


def block_yaml(doc: Mapping[str, Any]) -> str | None:
    """``doc`` as ruamel's safe dumper writes it (block style, insertion order, one line per scalar),
    without ruamel's per-node cost, or None when it holds something only ruamel should write.

    A recording of 10,000 calls took ruamel's pure-Python dumper about 4 s; this takes a few ms. Scalars
    that are not plain words are represented by ruamel itself, once per distinct value, so quoting
    is ruamel's (tests compare both writers over the shapes recordings have)."""
    try:
        lines = _block_map(doc, 0)
    except _Unusual:
        return None
    return "\n".join(lines) + "\n"


def _block_map(node: Mapping[Any, Any], col: int) -> list[str]:
    lines: list[str] = []
    pad = " " * col
    for key, value in node.items():
        plain = _PLAIN_KEYS.get(key) if isinstance(key, str) else False
        if plain is None:
            if len(_PLAIN_KEYS) > 10_000:
                _PLAIN_KEYS.clear()
            plain = _PLAIN_KEYS[key] = ((bool(_PLAIN_WORD.fullmatch(key)) and key.lower() not in _YAML_WORDS)
                                        or _ruamel_scalar(key) == key)
        if not plain:
            raise _Unusual  # a key ruamel would quote
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{key}:")
            lines += _block_map(value, col + 2)
        elif isinstance(value, list) and value:
            lines.append(f"{pad}{key}:")
            lines += _block_seq(value, col)
        else:
            lines.append(f"{pad}{key}: {_scalar(value)}")
    return lines


def _block_seq(items: list[Any], col: int) -> list[str]:
    lines: list[str] = []
    pad = " " * col
    for item in items:
        if isinstance(item, dict) and item:
            sub = _block_map(item, col + 2)
            sub[0] = f"{pad}- {sub[0][col + 2:]}"
            lines += sub
        elif isinstance(item, list) and item:
            raise _Unusual
        else:
            lines.append(f"{pad}- {_scalar(item)}")
    return lines


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    if type(value) is int:
        return str(value)
    if type(value) is str:
        if _PLAIN_WORD.fullmatch(value) and value.lower() not in _YAML_WORDS:
            return value
        return _ruamel_scalar(value)
    raise _Unusual


@functools.lru_cache(maxsize=4096)
def _ruamel_scalar(value: str) -> str:
    buf = io.StringIO()
    _plain_dumper().dump({"k": value}, buf)
    text = buf.getvalue()
    if not text.startswith("k: ") or text.count("\n") != 1:
        raise _Unusual
    return text[3:-1]
