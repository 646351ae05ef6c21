"""Saving a recording back into a trail file: only that device's slot changes.

A recording is written into the step's ``recording: {<classifier>: [...]}`` slot (created if absent);
every other byte of the file — comments, key order, quoting, indentation, other classifiers, line
endings — stays as it was. That is done by *splicing text* at positions the C composer reports
(``nodes.py``), not by re-dumping a round-trip tree: a re-dump normalises indentation and quoting
across the whole file, which is exactly the diff noise reviewers hate.

Writers are serialised by an exclusive ``fcntl.flock`` on a hidden sidecar lock file
(``.<name>.lock``, removed afterwards), and the file is replaced atomically (temp file + rename), so
two runs saving different devices into the same trail both land and a crash never leaves half a file.

Zero tools (``calls`` None or ``[]``) means "this device has no recording" (upstream §8 never
writes an empty list): the classifier's slot is removed, and ``recording:`` with it when it empties.

v1 files hold one device's recording (``recording: {tools: [...]}``) and have no per-classifier slot:
there the classifier is ignored and the step's ``tools`` are replaced.

A run's recordings are saved at its end, and the file may have been edited meanwhile. Given the trail
as the run read it (``original``), each recording goes to *the step it was made for*, by identity: the
step's kind and text, and which occurrence of that text it was (``_retarget``). A step inserted, removed
or moved by hand elsewhere does not misdirect it; a step whose text changed, or whose text now occurs a
different number of times, gets nothing, and ``SaveBackConflict`` says why.

A trail reached through a symlink is written where the link points (the link stays a link).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ruamel.yaml import YAML

from ..errors import BadInputError, SourceLocation
from ..files import write_atomic
from ..tools.base import ToolCall
from ..tools.codec import CORE_CODEC, ToolCodec
from .file_params import relative_file_paths
from .nodes import MappingNode, Node, ScalarNode, SequenceNode, compose, content_end
from .parser import parse_with_nodes
from .text_edits import (Edit, after_line, block_yaml, column, flow_yaml, is_null, line_start, map_entry,
                         navigate, remove_entry, yaml_key)

if TYPE_CHECKING:
    from .model import Trail, TrailStep

__all__ = ["NewStep", "SaveBackConflict", "append_step", "append_steps", "save_recording", "save_recordings",
           "spliced_recordings",
           "splice_recording", "splice_recordings", "trail_lock"]


# -- locking and writing ------------------------------------------------------------------------
@contextlib.contextmanager
def trail_lock(path: Path) -> Iterator[None]:
    """Exclusive cross-process lock for ``path`` (an ``flock`` on ``.<name>.lock`` beside it).

    The lock file is removed on release; a waiter that wakes up holding a lock on a file that was
    removed (or replaced) meanwhile retries, so removal never lets two writers in at once.
    """
    import fcntl

    lock = path.with_name(f".{path.name}.lock")
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.stat(lock).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")  # no newline translation: offsets must match
    except FileNotFoundError:
        raise BadInputError(f"file not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise BadInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


# -- encoding -----------------------------------------------------------------------------------
def _encode(calls: list[ToolCall], codec: ToolCodec) -> list[dict[str, Any]]:
    return [codec.encode_yaml(call) for call in calls]


# -- the splice ---------------------------------------------------------------------------------
def splice_recording(text: str, path: Path | str | None, step_index: int, classifier: str,
                     calls: list[ToolCall] | None, *, trailhead: bool = False,
                     codec: ToolCodec = CORE_CODEC) -> str:
    """The new text of the file with step ``step_index``'s ``classifier`` slot set to ``calls``."""
    return splice_recordings(text, path, [(step_index, classifier, calls)], trailhead=trailhead, codec=codec)


Update = tuple[int, str, "list[ToolCall] | None"]


def splice_recordings(text: str, path: Path | str | None, updates: list[Update], *, trailhead: bool = False,
                      codec: ToolCodec = CORE_CODEC) -> str:
    """Apply several slot updates with one parse and one validation (a whole run's recordings).

    Updates of different steps never overlap, so their edits are applied from the end of the file
    backwards on one parse; two updates of the same step are applied one after the other.
    """
    if not updates:
        return text
    steps = [u[0] for u in updates]
    if len(set(steps)) != len(steps):
        for update in updates:
            text = splice_recordings(text, path, [update], trailhead=trailhead, codec=codec)
        return text
    trail, root = parse_with_nodes(text, path)
    assert root is not None
    edits = [e for e in (_edit_for(text, path, trail, root, i, cls, calls, trailhead, codec)
                         for i, cls, calls in updates) if e is not None]
    if not edits:
        return text
    pieces: list[str] = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: e.start):
        pieces += [text[cursor:edit.start], edit.replacement]
        cursor = edit.end
    pieces.append(text[cursor:])
    new = "".join(pieces)
    parse_with_nodes(new, path)  # never write a file we cannot read back
    return new


def _edit_for(text: str, path: Path | str | None, trail: Trail, root: Node, step_index: int, classifier: str,
              calls: list[ToolCall] | None, trailhead: bool, codec: ToolCodec) -> Edit | None:
    if not 0 <= step_index < len(trail.steps):
        raise BadInputError(f"{path}: there is no step at index {step_index} (the trail has {len(trail.steps)})")
    step = trail.steps[step_index]
    if trailhead and step.kind != "trailhead":
        raise BadInputError(f"{path}: step {step.number} is not the trailhead")
    if step.kind == "tools":
        raise BadInputError(f"{path}: step {step.number} is a v1 'tools:' block, which always replays; it has no "
                            "recording to save")
    nl = "\r\n" if "\r\n" in text else "\n"
    data = _encode(calls or [], codec)
    if step.kind == "trailhead" and len(data) > 1:
        raise BadInputError(f"{path}: a trailhead records one tool per device, got {len(data)}",
                            hint="wrap several calls in a YAML tool and record that")
    node = navigate(root, step.source_path)
    if trail.format == "unified":
        value: Any = (data[0] if data else {}) if step.kind == "trailhead" else data
        return _unified_edit(text, node, classifier, value if data else None, nl)
    return _v1_edit(text, trail, node, step.kind, data or None, nl)


def _unified_edit(text: str, step: Node, cls: str, value: Any, nl: str) -> Edit | None:
    if not isinstance(step, MappingNode):  # pragma: no cover - the parser guarantees a map
        raise BadInputError("a step must be a map")
    rec = map_entry(step, "recording")
    if step.flow_style:
        return _flow_map_edit(text, step, "recording", _set(_plain_map(rec[1]) if rec else {}, cls, value))
    if rec is None:
        if value is None:
            return None
        col = column(text, step.value[0][0].start_mark.index)
        at = after_line(text, content_end(step, text))
        body = _slot(cls, value, col + 2, nl)
        return Edit(at, at, f"{nl}{' ' * col}recording:{nl}{body}")
    rknode, rvnode = rec
    if is_null(rvnode) or (isinstance(rvnode, MappingNode) and not rvnode.value):
        if value is None:
            return None
        col = column(text, rknode.start_mark.index)
        end = content_end(rvnode, text) if not is_null(rvnode) else max(rvnode.end_mark.index,
                                                                         rknode.end_mark.index + 1)
        return Edit(rknode.start_mark.index, end,
                     f"{text[rknode.start_mark.index:rknode.end_mark.index]}:{nl}{_slot(cls, value, col + 2, nl)}")
    assert isinstance(rvnode, MappingNode)
    if rvnode.flow_style:
        updated = _set(_plain_map(rvnode), cls, value)
        if not updated:
            return remove_entry(text, rknode, rvnode)
        return Edit(rvnode.start_mark.index, rvnode.end_mark.index, flow_yaml(updated))
    slot = map_entry(rvnode, cls) or next(((k, v) for k, v in rvnode.value
                                         if isinstance(k, ScalarNode) and k.value.lower() == cls.lower()), None)
    if slot is None:
        if value is None:
            return None
        col = column(text, rvnode.value[0][0].start_mark.index)
        at = after_line(text, content_end(rvnode, text))
        return Edit(at, at, nl + _slot(cls, value, col, nl))
    knode, vnode = slot
    if value is None:
        if len(rvnode.value) == 1:
            return remove_entry(text, rknode, rvnode)
        return remove_entry(text, knode, vnode)
    col = column(text, knode.start_mark.index)
    inner = col + 2
    if isinstance(vnode, SequenceNode) and not vnode.flow_style and vnode.value and isinstance(value, list):
        inner = column(text, vnode.start_mark.index)  # keep this file's sequence indentation
    keytext = text[knode.start_mark.index:knode.end_mark.index]
    end = content_end(vnode, text) if not is_null(vnode) else knode.end_mark.index + 1
    return Edit(knode.start_mark.index, end,
                _slot(cls, value, 0, nl, inner=inner, keytext=keytext).lstrip(" "))


def _slot(cls: str, value: Any, col: int, nl: str, *, inner: int | None = None, keytext: str | None = None) -> str:
    inner = col + 2 if inner is None else inner
    head = f"{' ' * col}{keytext or yaml_key(cls)}:"
    if value == {} or value == []:
        return f"{head} {flow_yaml(value)}"
    return f"{head}{nl}{block_yaml(value, inner, nl)}"


def _set(mapping: dict[str, Any], cls: str, value: Any) -> dict[str, Any]:
    out = dict(mapping)
    if value is None:
        out.pop(cls, None)
    else:
        out[cls] = value
    return out


def _plain_map(node: Node) -> dict[str, Any]:
    from .nodes import NodeReader

    value = NodeReader(None).plain(node)
    return value if isinstance(value, dict) else {}


def _flow_map_edit(text: str, node: MappingNode, key: str, value: dict[str, Any]) -> Edit:
    """A flow-style step map (``- {step: x}``): rewrite the map with ``key`` set (or dropped)."""
    data = _plain_map(node)
    if value:
        data[key] = value
    else:
        data.pop(key, None)
    return Edit(node.start_mark.index, node.end_mark.index, flow_yaml(data))


def _v1_edit(text: str, trail: Trail, node: Node, kind: str, calls: list[dict[str, Any]] | None,
             nl: str) -> Edit | None:
    if kind == "trailhead":
        if isinstance(node, ScalarNode):  # '- trailhead: toolId' → the map form with tools
            if calls is None:
                raise BadInputError(f"{trail.path}: removing the only tool would leave an empty trailhead")
            line = text[line_start(text, node.start_mark.index):node.start_mark.index]
            col = max(line.find("trailhead"), 0) + 2
            return Edit(node.start_mark.index, node.end_mark.index,
                         f"{nl}{_slot('tools', calls, col, nl)}")
        slot_key = "tools"
        target = node
    else:
        slot_key = "recording"
        target = node
    if not isinstance(target, MappingNode):  # pragma: no cover
        raise BadInputError("a v1 step must be a map")
    value: Any = None
    if calls is not None:
        value = calls if slot_key == "tools" else {"tools": calls}
    if target.flow_style:
        data = _plain_map(target)
        if value is None:
            data.pop(slot_key, None)
        else:
            data[slot_key] = value
        return Edit(target.start_mark.index, target.end_mark.index, flow_yaml(data))
    found = map_entry(target, slot_key)
    if found is None:
        if value is None:
            return None
        col = column(text, target.value[0][0].start_mark.index)
        at = after_line(text, content_end(target, text))
        return Edit(at, at, nl + _slot(slot_key, value, col, nl))
    knode, vnode = found
    if value is None:
        if kind == "trailhead" and map_entry(target, "step") is None:
            raise BadInputError(f"{trail.path}: removing the tools would leave an empty trailhead")
        return remove_entry(text, knode, vnode)
    col = column(text, knode.start_mark.index)
    end = content_end(vnode, text) if not is_null(vnode) else knode.end_mark.index + 1
    keytext = text[knode.start_mark.index:knode.end_mark.index]
    return Edit(knode.start_mark.index, end, _slot(slot_key, value, 0, nl, inner=col + 2, keytext=keytext))


# -- step identity ----------------------------------------------------------------------------------
class SaveBackConflict(BadInputError):
    """Some recordings were not saved: their step was changed, removed or made ambiguous during the run."""


def _retarget(text: str, path: Path | str | None, updates: list[Update],
              original: Trail) -> tuple[list[Update], list[str]]:
    """Map each update from its index in ``original`` to the same step in ``text``; refusals explain why.

    Identity is ``(kind, text)`` plus which occurrence of it the step was. When the steps read now are
    the steps read at the start (recordings of other devices may differ), indexes stand as they are.
    Otherwise a step is found by its text when that text occurs as often as it did (a hand-inserted
    step elsewhere, or a move, is harmless); if its text changed, or occurs more or less often now (a
    duplicate inserted above would otherwise take its recording), it is refused.
    """
    current, _ = parse_with_nodes(text, path)
    before = [(s.kind, s.text) for s in original.steps]
    now = [(s.kind, s.text) for s in current.steps]
    if before == now:
        return updates, []
    kept: list[Update] = []
    refused: list[str] = []
    for index, classifier, calls in updates:
        if not 0 <= index < len(before):
            refused.append(f"step index {index} is not a step of the trail as the run read it")
            continue
        step = original.steps[index]
        ident = before[index]
        occurrence = before[:index].count(ident)
        was = before.count(ident)
        where = [i for i, k in enumerate(now) if k == ident]
        label = f"step {step.number} ({step.kind}: {step.text!r}, read at {step.location})"
        if not where:
            refused.append(f"{label} was changed or removed while the run was going; its {classifier} recording "
                           "was not saved")
        elif len(where) != was:
            refused.append(f"{label} now occurs {len(where)} times instead of {was}, so it cannot be told which one "
                           f"the run solved; its {classifier} recording was not saved")
        else:
            kept.append((where[occurrence], classifier, calls))
    return kept, refused


def _real(path: Path | str) -> Path:
    """The file a (possibly symlinked) trail path names: writes go there and the link stays a link."""
    return Path(os.path.realpath(path))


# -- public entry points --------------------------------------------------------------------------
def save_recording(path: Path, step_index: int, classifier: str, calls: list[ToolCall] | None, *,
                   trailhead: bool = False, codec: ToolCodec = CORE_CODEC) -> None:
    """Write ``calls`` as step ``step_index``'s recording for ``classifier`` (see the module doc).

    ``step_index`` is the index in ``Trail.steps`` (the trailhead is 0 when there is one);
    ``trailhead=True`` asserts the step is the trailhead, whose slot holds one tool map.
    """
    path = Path(path)
    real = _real(path)
    with trail_lock(real):
        text = _read(real)
        new = splice_recording(text, path, step_index, classifier, calls, trailhead=trailhead, codec=codec)
        if new != text:
            write_atomic(real, new)


def save_recordings(path: Path, updates: list[Update], *, codec: ToolCodec = CORE_CODEC,
                    original: Trail | None = None) -> None:
    """Several ``(step_index, classifier, calls)`` slot updates in one locked read-splice-write.

    ``original`` is the trail as the run read it (indexes refer to its steps): with it, each recording
    goes to the step it was made for even if the file was edited meanwhile (see ``_retarget``); the
    updates that cannot be placed are left out and reported together in a ``SaveBackConflict``, after
    the others were written.
    """
    path = Path(path)
    real = _real(path)
    refused: list[str] = []
    with trail_lock(real):
        text = _read(real)
        if original is not None:
            updates, refused = _retarget(text, path, updates, original)
        new = splice_recordings(text, path, updates, codec=codec)
        if new != text:
            write_atomic(real, new)
    if refused:
        saved = f"; the other {len(updates)} recording(s) were saved" if updates else ""
        raise SaveBackConflict("; ".join(refused) + saved, location=SourceLocation(path),
                               hint="run the trail again to record the edited steps")


def spliced_recordings(path: Path, updates: list[Update], *, codec: ToolCodec = CORE_CODEC,
                       original: Trail | None = None) -> tuple[str, list[Update], list[str]]:
    """The trail file's text with ``updates`` spliced in as ``save_recordings`` would write it, without
    writing it: what a proving replay runs and a ``*.healed.trail.yaml`` proposal holds. Returns the text,
    the updates placed and why the others could not be (the file was edited meanwhile: ``_retarget``)."""
    path = Path(path)
    text = _read(_real(path))
    refused: list[str] = []
    if original is not None:
        updates, refused = _retarget(text, path, updates, original)
    return splice_recordings(text, path, updates, codec=codec), updates, refused


def append_step(path: Path, text: str, kind: Literal["step", "verify"] = "step", classifier: str | None = None,
                calls: list[ToolCall] | None = None, *, codec: ToolCodec = CORE_CODEC) -> TrailStep:
    """Append a step (``trailblaze step --save``); creates a unified trail if the file is missing.

    Returns the new step as the file now reads (its ``index`` in ``Trail.steps``, its ``number``).
    Without ``calls`` (or with none) the step has no recording and will be solved by the agent.
    """
    return append_steps(path, [NewStep(text, kind, classifier, calls)], codec=codec)[0]


@dataclass
class NewStep:
    """A step to append: its text, ``step`` or ``verify``, and the recording made on ``classifier``."""

    text: str
    kind: Literal["step", "verify"] = "step"
    classifier: str | None = None
    calls: list[ToolCall] | None = None
    comments: list[str] = field(default_factory=list)
    """Lines written as ``# comment`` above the step (what a recorder could not record there)."""


def append_steps(path: Path, steps: list[NewStep], *, codec: ToolCodec = CORE_CODEC,
                 header: str = "") -> list[TrailStep]:
    """Append ``steps`` in one write: all of them land, or none does (a full disk leaves the file as it
    was, so a retry does not duplicate the steps that made it). ``header`` starts a file that is missing
    or empty. Returns the new steps as the file now reads them (``index``, ``number``). Absolute files in
    ``file_path`` parameters (of ``codec``'s registry) are written relative to ``path`` (``file_params``)."""
    for step in steps:
        if step.kind not in ("step", "verify"):
            raise BadInputError(f"a step is 'step' or 'verify', not {step.kind!r}")
        if not step.text or not step.text.strip():
            raise BadInputError("a step needs natural-language text")
    path = _real(path)
    with trail_lock(path):
        old = _read(path) if path.exists() else ""
        if not old.strip():
            old = header
        nl = "\r\n" if "\r\n" in old else "\n"
        first = len(parse_with_nodes(old, path)[0].steps) if _has_content(old, path) else 0
        new = old
        for step in steps:
            data = _encode(relative_file_paths(step.calls or [], codec.registry, path.parent), codec)
            if not _has_content(new, path):
                item: dict[str, Any] = {step.kind: step.text}
                if data:
                    item["recording"] = {step.classifier or "default": data}
                sep = "" if not new or new.endswith(nl) else nl
                new = f"{new}{sep}trail:{nl}{_item_yaml(item, 2, nl, step.comments)}{nl}"
            else:
                new = _append(new, path, step.kind, step.text, step.classifier, data, nl, step.comments)
        trail, _ = parse_with_nodes(new, path)
        write_atomic(path, new)
        return trail.steps[first:]


def _has_content(text: str, path: Path) -> bool:
    """Whether ``text`` is a YAML document with something in it (a header of comments is not)."""
    return bool(text.strip()) and compose(text, path)[0] is not None


def _item_yaml(item: dict[str, Any], indent: int, nl: str, comments: list[str]) -> str:
    """One trail item as block YAML, after its comments (one line each, at the item's indent)."""
    lines = [" " * indent + "# " + " ".join(c.split()) for c in comments]
    return nl.join([*lines, block_yaml([item], indent, nl)])


def _append(old: str, path: Path, kind: str, text: str, classifier: str | None, data: list[dict[str, Any]],
            nl: str, comments: list[str] | None = None) -> str:
    comments = comments or []
    trail, root = parse_with_nodes(old, path)
    assert root is not None
    if not old.endswith(("\n", "\r\n")):
        old += nl
    if trail.format == "v1":
        item: dict[str, Any] = {kind: text}
        if data:
            item["recording"] = {"tools": data}
        return old + block_yaml([{"prompts": [item]}], 0, nl) + nl
    if data and not classifier:
        raise BadInputError("a recording needs the device classifier it was made on")
    item = {kind: text}
    if data:
        item["recording"] = {classifier: data}
    found = map_entry(root, "trail")
    if found is None or is_null(found[1]) or (isinstance(found[1], SequenceNode) and not found[1].value):
        if found is not None:
            knode, vnode = found
            end = content_end(vnode, old) if not is_null(vnode) else max(vnode.end_mark.index,
                                                                          knode.end_mark.index + 1)
            return old[: knode.start_mark.index] + f"trail:{nl}{_item_yaml(item, 2, nl, comments)}" + old[end:]
        return old + f"trail:{nl}{_item_yaml(item, 2, nl, comments)}{nl}"
    seq = found[1]
    assert isinstance(seq, SequenceNode)
    if seq.flow_style:
        raise BadInputError(f"{path}: cannot append to a flow-style 'trail: [...]' list; write it as a block list")
    first = seq.value[0].start_mark.index
    dash = old.rfind("-", line_start(old, first), first)
    col = column(old, dash if dash >= 0 else first)
    at = after_line(old, content_end(seq, old))
    return old[:at] + nl + _item_yaml(item, col, nl, comments) + old[at:]
