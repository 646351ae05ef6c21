"""YAML built from libyaml's event stream, within limits: the one reader every input goes through.

Why events: ruamel's C loader spends most of its time outside C — a Python resolver call per scalar
while composing, then its generic constructor. Reading the C parser's events and building either
positioned nodes (trails, args files) or plain data (tool files, trailmaps, toolsets) in one loop here
is several times faster, and it is the one place where hostile input can be stopped before it costs:

* **nesting depth** — libyaml's own composer recurses in C and crashes the process on ~100,000 nested
  brackets (a 200 KB file); here nesting is counted as events arrive and refused past the limit;
* **alias expansion** — a "billion laughs" file of a few hundred bytes expands to billions of nodes
  when anything walks it (validation, JSON, deep copies); here every alias adds the size of what it
  refers to, and the total is capped;
* **size** — checked by the readers before a byte is parsed (``check_size``).

Each limit is a ``YamlLimitError`` (exit 3) naming ``file:line:column``; ``Limits.from_env`` documents the
environment variables that raise them (docs/trail-format.md, "Limits").

Scalars resolve exactly like ruamel's YAML 1.2 safe loader (the loader this replaces): the resolution
table is taken from ruamel itself, and anything unusual — an explicit tag, a ``%YAML 1.1`` document,
a typed collection such as ``!!set`` — is handed to ruamel after the limits were checked here.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import events as _ev
from ruamel.yaml.resolver import VersionedResolver

from .errors import BadInputError, SourceLocation

__all__ = [
    "Limits",
    "MappingNode",
    "Node",
    "ScalarNode",
    "SequenceNode",
    "YamlLimitError",
    "YamlStructureError",
    "check_size",
    "compose",
    "load",
]

# -- the limits: bounds on every YAML input and the one error past them ------------------------------
# ``compose``/``load`` enforce depth and aliases while they read events; the readers in ``yamlio`` check the
# size before a byte is parsed. docs/trail-format.md ("Limits") documents the environment variables.
ENV_MAX_BYTES = "TRAILBLAZE_YAML_MAX_BYTES"
ENV_MAX_DEPTH = "TRAILBLAZE_YAML_MAX_DEPTH"
ENV_MAX_ALIAS_NODES = "TRAILBLAZE_YAML_MAX_ALIAS_NODES"


class YamlLimitError(BadInputError):
    """A YAML input is larger, deeper or expands further through aliases than the limits allow."""


@dataclass(frozen=True)
class Limits:
    """Bounds on every YAML file Trailblaze reads (trails, tool files, trailmaps, toolsets, config).

    The defaults are far above anything written by hand or recorded (a 2,000-step trail is 300 KB and
    nests about 8 levels) and far below what hurts: parsing 10 MiB takes well under a second.
    """

    max_bytes: int = 10 * 1024 * 1024
    max_depth: int = 100
    max_alias_nodes: int = 100_000

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, raised or lowered by ``TRAILBLAZE_YAML_MAX_BYTES``/``_MAX_DEPTH``/``_MAX_ALIAS_NODES``."""
        env = os.environ
        if ENV_MAX_BYTES not in env and ENV_MAX_DEPTH not in env and ENV_MAX_ALIAS_NODES not in env:
            return _DEFAULT
        return cls(max_bytes=_env_int(ENV_MAX_BYTES, cls.max_bytes),
                   max_depth=_env_int(ENV_MAX_DEPTH, cls.max_depth, ceiling=MAX_DEPTH_CEILING),
                   max_alias_nodes=_env_int(ENV_MAX_ALIAS_NODES, cls.max_alias_nodes))


_DEFAULT = Limits()


MAX_DEPTH_CEILING = 200
"""Past this, the code that walks the data (validation, JSON, copies) would meet Python's recursion limit."""


def _env_int(name: str, default: int, *, ceiling: int | None = None) -> int:
    raw = os.environ.get(name, "").strip().replace("_", "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1 or (ceiling is not None and int(raw) > ceiling):
        most = f" of at most {ceiling}" if ceiling is not None else ""
        raise BadInputError(f"{name}={os.environ[name]!r} must be a positive whole number{most}",
                            hint=f"unset it to use the default ({default})")
    return int(raw)


def check_size(size: int, path: Path | str | None, limits: Limits, line: Callable[[], int | None]) -> None:
    """Refuse input of ``size`` bytes over the limit; ``line`` finds the line where the limit is crossed."""
    if size > limits.max_bytes:
        raise YamlLimitError(
            f"the file is {size:,} bytes; YAML input is limited to {limits.max_bytes:,} bytes "
            f"(the limit is crossed on this line)", location=SourceLocation(path, line()),
            hint=f"split it into smaller files, or raise the limit with {ENV_MAX_BYTES}=<bytes>")


STR = "tag:yaml.org,2002:str"
NULL = "tag:yaml.org,2002:null"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
MERGE = "tag:yaml.org,2002:merge"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"


class YamlStructureError(BadInputError):
    """The YAML parses but cannot be built: an undefined or self-referencing alias, a duplicate key..."""


# -- nodes -----------------------------------------------------------------------------------------
class Node:
    """A positioned YAML node: ``tag`` is a plain string, marks carry ``line``/``column``/``index``."""

    __slots__ = ("anchor", "end_mark", "start_mark", "tag", "value")
    tag: str
    value: Any
    start_mark: Any
    end_mark: Any
    anchor: str | None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tag={self.tag!r}, value={self.value!r})"


class ScalarNode(Node):
    __slots__ = ("style",)
    value: str
    style: str | None

    def __init__(self, tag: str, value: str, start_mark: Any, end_mark: Any, style: str | None = None,
                 anchor: str | None = None) -> None:
        self.tag, self.value, self.start_mark, self.end_mark = tag, value, start_mark, end_mark
        self.style, self.anchor = style, anchor


class SequenceNode(Node):
    __slots__ = ("flow_style",)
    value: list[Node]
    flow_style: bool | None

    def __init__(self, tag: str, value: list[Node], start_mark: Any, end_mark: Any,
                 flow_style: bool | None = None, anchor: str | None = None) -> None:
        self.tag, self.value, self.start_mark, self.end_mark = tag, value, start_mark, end_mark
        self.flow_style, self.anchor = flow_style, anchor


class MappingNode(Node):
    __slots__ = ("flow_style",)
    value: list[tuple[Node, Node]]
    flow_style: bool | None

    def __init__(self, tag: str, value: list[tuple[Node, Node]], start_mark: Any, end_mark: Any,
                 flow_style: bool | None = None, anchor: str | None = None) -> None:
        self.tag, self.value, self.start_mark, self.end_mark = tag, value, start_mark, end_mark
        self.flow_style, self.anchor = flow_style, anchor


# -- the event source --------------------------------------------------------------------------------
_CParser: Any
try:  # the C parser (ruamel.yaml.clib); CPython wheels always have it
    from _ruamel_yaml import CParser as _CParser  # type: ignore[import-not-found,no-redef]
except ImportError:  # pragma: no cover - PyPy or a build without libyaml
    _CParser = None


def _event_source(text: str, pure: bool = False) -> Callable[[], Any]:
    if _CParser is not None and not pure:
        get: Callable[[], Any] = _CParser(text).get_event
        return get
    from ruamel.yaml import YAML

    stream = iter(YAML(typ="safe", pure=True).parse(text))
    return lambda: next(stream, None)


def _table(version: tuple[int, int]) -> dict[str | None, list[tuple[str, re.Pattern[str]]]]:
    resolver = VersionedResolver(version=version)
    return {k: [(str(t), rx) for t, rx in v] for k, v in resolver.versioned_resolver.items()}


_TABLE_12 = _table((1, 2))
_RESOLVED: dict[str, str] = {}


def resolve_plain(value: str) -> str:
    """The tag of a plain (unquoted, untagged) scalar, as ruamel's YAML 1.2 resolver decides it."""
    tag = _RESOLVED.get(value)
    if tag is not None:
        return tag
    tag = STR
    for candidate, regexp in _TABLE_12.get(value[:1], ()):
        if regexp.match(value):
            tag = candidate
            break
    if len(_RESOLVED) > 20_000:
        _RESOLVED.clear()
    _RESOLVED[value] = tag
    return tag


class _NeedsRuamel(Exception):
    """This document uses something only ruamel's constructor builds (explicit collection tags, 1.1)."""


_Scalar, _MapStart, _MapEnd = _ev.ScalarEvent, _ev.MappingStartEvent, _ev.MappingEndEvent
_SeqStart, _SeqEnd, _Alias = _ev.SequenceStartEvent, _ev.SequenceEndEvent, _ev.AliasEvent
_DocStart = _ev.DocumentStartEvent


def _loc(path: Path | str | None, mark: Any) -> SourceLocation:
    if mark is None:
        return SourceLocation(path)
    return SourceLocation(path, mark.line + 1, mark.column + 1)


def _too_deep(path: Path | str | None, mark: Any, limits: Limits) -> YamlLimitError:
    return YamlLimitError(f"YAML nested more than {limits.max_depth} levels deep", location=_loc(path, mark),
                          hint=f"flatten the structure, or raise the limit with {ENV_MAX_DEPTH}=<levels>")


def _too_many(path: Path | str | None, mark: Any, limits: Limits, anchor: str) -> YamlLimitError:
    return YamlLimitError(
        f"YAML aliases expand to more than {limits.max_alias_nodes:,} nodes (here '*{anchor}'); "
        "refusing a possible alias bomb", location=_loc(path, mark),
        hint=f"write the values out, or raise the limit with {ENV_MAX_ALIAS_NODES}=<nodes>")


def _bad_alias(path: Path | str | None, mark: Any, anchor: str, open_anchors: set[str]) -> YamlStructureError:
    if anchor in open_anchors:
        return YamlStructureError(f"the alias '*{anchor}' refers to the structure it is inside; recursive YAML "
                                  "is not allowed", location=_loc(path, mark))
    return YamlStructureError(f"the alias '*{anchor}' has no anchor '&{anchor}' before it",
                              location=_loc(path, mark))


def _second_document(path: Path | str | None, mark: Any) -> YamlStructureError:
    return YamlStructureError("a second YAML document ('---') in one file; one document per file",
                              location=_loc(path, mark))


def _collection_tag(tag: str | None, default: str) -> str:
    return default if tag is None or tag == "!" else tag


def _scalar_tag(event: Any) -> str:
    tag = event.tag
    if tag is None or tag == "!":
        if event.implicit[0] and tag is None:
            return resolve_plain(event.value)
        return STR
    return str(tag)


class _Guard:
    """The limits while one document's events stream by: nesting, anchors and what aliases expand to.

    Every value carries a *weight*, the number of nodes it stands for with aliases expanded; an alias
    adds its anchor's weight to the running total, which the alias limit caps.
    """

    __slots__ = ("anchors", "budget", "documents", "expanded", "limits", "max_depth", "open_anchors", "path")

    def __init__(self, text: str, path: Path | str | None, limits: Limits | None) -> None:
        self.limits = limits = limits or Limits.from_env()
        if len(text) > limits.max_bytes:
            check_size(len(text.encode("utf-8")), path, limits, lambda: text.count("\n", 0, limits.max_bytes) + 1)
        self.path = path
        self.max_depth, self.budget = limits.max_depth, limits.max_alias_nodes
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.open_anchors: set[str] = set()
        self.expanded = 0
        self.documents = 0

    def enter(self, event: Any, depth: int) -> None:
        """A collection starts at nesting ``depth`` (0 for the root)."""
        if depth >= self.max_depth:
            raise _too_deep(self.path, event.start_mark, self.limits)
        if event.anchor is not None:
            self.open_anchors.add(event.anchor)

    def leave(self, anchor: str, value: Any, weight: int) -> None:
        """A collection with an anchor ended: aliases may refer to it from now on."""
        self.open_anchors.discard(anchor)
        self.anchors[anchor] = (value, weight)

    def alias(self, event: Any) -> tuple[Any, int]:
        found = self.anchors.get(event.anchor)
        if found is None:
            raise _bad_alias(self.path, event.start_mark, event.anchor, self.open_anchors)
        self.expanded += found[1]
        if self.expanded > self.budget:
            raise _too_many(self.path, event.start_mark, self.limits, event.anchor)
        return found

    def document(self, event: Any) -> None:
        self.documents += 1
        if self.documents > 1:
            raise _second_document(self.path, event.start_mark)


# -- positioned nodes ----------------------------------------------------------------------------------
def compose(text: str, path: Path | str | None = None, limits: Limits | None = None, *,
            pure: bool = False) -> Node | None:
    """The node tree of one YAML document (None when empty), built within ``limits``.

    Aliases share the node they refer to (as any YAML composer does); whoever expands them is bounded
    by the alias limit checked here. Syntax errors propagate as ruamel's ``MarkedYAMLError``. ``pure``
    reads the events with ruamel's own (slower) parser, which accepts a little more than libyaml.
    """
    guard = _Guard(text, path, limits)
    get = _event_source(text, pure)
    # frames: [node, items (flat for maps), weight, anchor]
    stack: list[list[Any]] = []
    root: Node | None = None
    while True:
        event = get()
        if event is None:
            break
        kind = type(event)
        node: Node
        if kind is _Scalar:
            node = ScalarNode(_scalar_tag(event), event.value, event.start_mark, event.end_mark, event.style,
                              event.anchor)
            weight = 1
            if event.anchor is not None:
                guard.anchors[event.anchor] = (node, 1)
        elif kind is _MapStart or kind is _SeqStart:
            guard.enter(event, len(stack))
            cls = MappingNode if kind is _MapStart else SequenceNode
            tag = _collection_tag(event.tag, MAP if kind is _MapStart else SEQ)
            node = cls(tag, [], event.start_mark, None, event.flow_style, event.anchor)
            stack.append([node, node.value, 1, event.anchor])
            continue
        elif kind is _MapEnd or kind is _SeqEnd:
            node, items, weight, anchor = stack.pop()
            node.end_mark = event.end_mark
            if kind is _MapEnd:
                node.value = list(zip(items[::2], items[1::2]))
            if anchor is not None:
                guard.leave(anchor, node, weight)
        elif kind is _Alias:
            node, weight = guard.alias(event)
        elif kind is _DocStart:
            guard.document(event)
            continue
        else:
            continue
        if stack:
            top = stack[-1]
            top[1].append(node)
            top[2] += weight
        else:
            root = node
    return root


# -- plain data --------------------------------------------------------------------------------------
_MERGE_KEY = object()
_DECIMAL = re.compile(r"[-+]?[0-9]+\Z")
_CONSTRUCTOR = threading.local()


def _ruamel_yaml() -> Any:
    cached = getattr(_CONSTRUCTOR, "yaml", None)
    if cached is None:
        from ruamel.yaml import YAML

        cached = YAML(typ="safe", pure=False)
        _CONSTRUCTOR.yaml = cached
    return cached


def construct_scalar(tag: str, value: str, event_or_node: Any) -> Any:
    """A scalar's Python value for ``tag``, exactly as ruamel's safe constructor gives it."""
    if tag == STR:
        return value
    if tag == NULL:
        return None
    if tag == BOOL:
        return value.lower() == "true"
    if tag == INT and _DECIMAL.match(value) and len(value) < 4000:
        return int(value)
    from ruamel.yaml.nodes import ScalarNode as RuamelScalar

    node = RuamelScalar(tag, value, event_or_node.start_mark, event_or_node.end_mark,
                        style=getattr(event_or_node, "style", None))
    constructor = _ruamel_yaml().constructor
    if tag == INT:
        return constructor.construct_yaml_int(node)
    if tag == FLOAT:
        return constructor.construct_yaml_float(node)
    return constructor.construct_object(node, deep=True)


def construct_tagged(node: Node) -> Any:
    """A collection with an explicit tag (``!!set``, ``!!omap``, ``!custom``) built by ruamel's safe constructor."""
    from ruamel.yaml import nodes as rn

    def convert(n: Node) -> Any:
        if isinstance(n, ScalarNode):
            return rn.ScalarNode(n.tag, n.value, n.start_mark, n.end_mark, style=n.style)
        if isinstance(n, SequenceNode):
            return rn.SequenceNode(n.tag, [convert(v) for v in n.value], n.start_mark, n.end_mark,
                                   flow_style=n.flow_style)
        assert isinstance(n, MappingNode)
        return rn.MappingNode(n.tag, [(convert(k), convert(v)) for k, v in n.value], n.start_mark, n.end_mark,
                              flow_style=n.flow_style)

    return _ruamel_yaml().constructor.construct_object(convert(node), deep=True)


def _construct(tag: str, value: str, event: Any, path: Path | str | None) -> Any:
    try:
        return construct_scalar(tag, value, event)
    except (ValueError, OverflowError) as exc:  # e.g. '2001-13-45', or an int of 5,000 digits
        raise YamlStructureError(f"cannot read this value: {exc}", location=_loc(path, event.start_mark)) from None


def load(text: str, path: Path | str | None = None, limits: Limits | None = None) -> Any:
    """Plain Python data (dict/list/scalars) of one YAML document, like ruamel's safe ``load``, within limits.

    Aliases share the value they refer to, as ruamel's constructor does; syntax errors propagate as
    ruamel's ``MarkedYAMLError``, construction errors as ``ConstructorError``.
    """
    limits = limits or Limits.from_env()
    try:
        return _load(text, path, limits)
    except _NeedsRuamel:
        compose(text, path, limits)  # the limits hold; ruamel's constructor shares aliased values
        return _ruamel_yaml().load(text)


def _load(text: str, path: Path | str | None, limits: Limits) -> Any:
    guard = _Guard(text, path, limits)
    get = _event_source(text)
    # frames: [container, weight, anchor, pending key (map) or _PENDING, key event, merges or None]
    stack: list[list[Any]] = []
    root: Any = None
    pending = _PENDING
    while True:
        event = get()
        if event is None:
            break
        kind = type(event)
        value: Any
        if kind is _Scalar:
            tag = event.tag
            raw = event.value
            if tag is None and event.implicit[0]:
                # no resolver claims most first characters: then it is a string, without a lookup
                tag = resolve_plain(raw) if raw[:1] in _TABLE_12 else STR
                if tag is STR or tag == STR:
                    value = raw
                elif tag == MERGE and stack and isinstance(stack[-1][0], dict) and stack[-1][3] is pending:
                    value = _MERGE_KEY
                else:
                    value = _construct(tag, raw, event, path)
            elif tag is None or tag == "!":
                value = raw
            else:
                value = _construct(str(tag), raw, event, path)
            weight = 1
            if event.anchor is not None:
                guard.anchors[event.anchor] = (value, 1)
        elif kind is _MapStart or kind is _SeqStart:
            guard.enter(event, len(stack))
            if event.tag is not None and event.tag not in ("!", MAP, SEQ):
                raise _NeedsRuamel
            stack.append([{} if kind is _MapStart else [], 1, event.anchor, pending, None, None])
            continue
        elif kind is _MapEnd or kind is _SeqEnd:
            value, weight, anchor, _key, _kev, merges = stack.pop()
            if merges:  # merged keys first, explicit keys win (ruamel's order)
                merged: dict[Any, Any] = {}
                for source in merges:
                    for k, v in source.items():
                        merged.setdefault(k, v)
                merged.update(value)
                value = merged
            if anchor is not None:
                guard.leave(anchor, value, weight)
        elif kind is _Alias:
            value, weight = guard.alias(event)
        elif kind is _DocStart:
            guard.document(event)
            if event.version is not None and tuple(event.version) != (1, 2):
                raise _NeedsRuamel
            continue
        else:
            continue
        if not stack:
            root = value
            continue
        top = stack[-1]
        top[1] += weight
        container = top[0]
        if type(container) is list:
            container.append(value)
        elif top[3] is pending:
            if isinstance(value, (dict, list)):
                raise YamlStructureError("a map key cannot be a list or a map", location=_loc(path, event.start_mark))
            top[3], top[4] = value, event
        else:
            key = top[3]
            top[3] = pending
            if key is _MERGE_KEY:
                sources = value if isinstance(value, list) else [value]
                if not all(isinstance(s, dict) for s in sources):
                    raise YamlStructureError("a YAML merge ('<<') needs a map or a list of maps",
                                             location=_loc(path, top[4].start_mark))
                top[5] = (top[5] or []) + sources
            elif key in container:
                raise YamlStructureError(f"duplicate key '{key}'; a key may appear only once in a map",
                                         location=_loc(path, top[4].start_mark))
            else:
                container[key] = value
    return root


class _Pending:
    """No key read yet in the current map (``None`` is a valid key)."""


_PENDING = _Pending()
