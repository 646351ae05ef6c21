"""Positioned YAML nodes and turning them into plain data, for the trail parser and save-back.

Why not ``yaml.load`` and then re-read with the round-trip loader to find positions? Because building
nodes from the C parser's events (``yamlstream.compose``) and plain data from them ourselves costs
*less* than ruamel's safe ``load`` (its resolver and constructor are generic and slow), and every node
keeps its ``start_mark``/``end_mark``. So one fast pass gives the parser plain data,
``file:line:column`` for every key and every recorded tool call, and the raw text of every scalar —
which matters for upstream compatibility: a memory value ``pin: 0042`` or an arg default ``zip: 007`` is
the *text* ``"0042"``/``"007"`` upstream (kaml reads scalar content), while a YAML 1.2 loader would hand
us the integer 42. The round-trip loader (comments, quoting) is never needed here: save-back splices text
at these positions instead of re-dumping the document. The same pass enforces the input limits (depth,
alias expansion, size), so nothing below ever walks an unbounded tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from ruamel.yaml import YAML
from ruamel.yaml.constructor import ConstructorError

from .. import yamlio, yamlstream
from ..errors import BadInputError, SourceLocation, TrailFormatError
from ..yamlstream import MappingNode, Node, ScalarNode, SequenceNode

__all__ = ["MappingNode", "Node", "NodeReader", "ScalarNode", "SequenceNode", "compose"]

_STR = yamlstream.STR
_NULL = yamlstream.NULL
_BOOL = yamlstream.BOOL
_INT = yamlstream.INT
_FLOAT = yamlstream.FLOAT
_MERGE = yamlstream.MERGE
_MAP = yamlstream.MAP
_SEQ = yamlstream.SEQ


def compose(text: str, path: Path | str | None) -> tuple[Node | None, YAML | None]:
    """The node tree of ``text`` (None for an empty document), within the input limits.

    The second element is kept for callers that pass it on to ``NodeReader``; nodes need no YAML
    object any more. Syntax errors are ``YamlSyntaxError`` naming ``file:line:column``.
    """
    return yamlio.compose(text, path), None


class NodeReader:
    """Reads nodes of one file: positions, checked map entries, plain values and raw scalar text.

    ``error`` is the exception class raised by ``fail`` (``TrailFormatError`` for trails,
    ``BadInputError`` for an args file).
    """

    def __init__(self, path: Path | str | None, yaml: YAML | None = None,
                 error: type[BadInputError] = TrailFormatError) -> None:
        self.path = path
        self.error = error

    # -- positions -----------------------------------------------------------------------------
    def loc(self, node: Node | None) -> SourceLocation:
        if node is None or node.start_mark is None:
            return SourceLocation(self.path)
        return SourceLocation(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def fail(self, node: Node | None, message: str, key: str | None = None, hint: str | None = None) -> NoReturn:
        raise self.error(message, location=self.loc(node), key=key, hint=hint)

    # -- maps ----------------------------------------------------------------------------------
    def entries(self, node: MappingNode) -> Iterator[tuple[str, Node, Node]]:
        """``(key, key_node, value_node)`` of a map whose keys must be text; duplicates are errors."""
        seen: set[str] = set()
        for knode, vnode in node.value:
            if knode.tag == _MERGE:
                self.fail(knode, "YAML merge keys ('<<') are not supported here; write the keys out")
            if not isinstance(knode, ScalarNode) or knode.tag == _NULL:
                self.fail(knode, "keys here must be plain names, not a list, a map or nothing")
            key = knode.value
            if key in seen:
                self.fail(knode, "duplicate key; a key may appear only once in a map", key)
            seen.add(key)
            yield key, knode, vnode

    # -- scalars -------------------------------------------------------------------------------
    @staticmethod
    def is_null(node: Node | None) -> bool:
        return node is None or (isinstance(node, ScalarNode) and node.tag == _NULL)

    def text(self, node: Node, what: str, key: str | None = None) -> str | None:
        """A scalar's text as written (``0042`` stays ``"0042"``, ``true`` is ``"true"``); None for null.

        Upstream reads every scalar into a string field by its content, so numbers and booleans in
        text fields are accepted, never re-formatted.
        """
        if isinstance(node, ScalarNode):
            if node.tag == _NULL:
                return None
            if (node.tag or "").startswith("tag:yaml.org,2002:"):
                return str(node.value)
        kind = "a list" if isinstance(node, SequenceNode) else "a map" if isinstance(node, MappingNode) else \
            f"a value tagged {node.tag}"
        self.fail(node, f"{what} must be text, got {kind}", key)

    def boolean(self, node: Node, what: str, key: str | None = None) -> bool:
        if isinstance(node, ScalarNode) and node.tag == _BOOL:
            return str(node.value).lower() == "true"
        self.fail(node, f"{what} must be true or false, got {self.describe(node)}", key)

    def integer(self, node: Node, what: str, key: str | None = None) -> int:
        if isinstance(node, ScalarNode) and node.tag == _INT:
            value = self.plain(node)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        self.fail(node, f"{what} must be a whole number, got {self.describe(node)}", key)

    def describe(self, node: Node) -> str:
        if isinstance(node, SequenceNode):
            return "a list"
        if isinstance(node, MappingNode):
            return "a map"
        if node.tag == _NULL:
            return "nothing (null)"
        shown = str(node.value)
        if len(shown) > 40:
            shown = shown[:39] + "…"
        return repr(shown) if node.tag == _STR else shown

    # -- plain data ----------------------------------------------------------------------------
    def plain(self, node: Node) -> Any:
        """The Python value of ``node``: what ``yaml.load`` would give (dict/list/str/int/…).

        Recursion is safe: ``compose`` refused deeper nesting, recursive aliases and alias bombs.
        """
        if isinstance(node, ScalarNode):
            tag = node.tag
            if tag == _STR:
                return node.value
            try:
                return yamlstream.construct_scalar(tag, node.value, node)
            except (ConstructorError, ValueError) as exc:
                self.fail(node, f"cannot read this value: {getattr(exc, 'problem', None) or exc}")
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                return self._construct_tagged(node)
            return [self.plain(v) for v in node.value]
        if isinstance(node, MappingNode):
            if node.tag != _MAP:
                return self._construct_tagged(node)
            out: dict[Any, Any] = {}
            merged: dict[Any, Any] = {}
            for knode, vnode in node.value:
                if knode.tag == _MERGE:
                    for src in (vnode.value if isinstance(vnode, SequenceNode) else [vnode]):
                        value = self.plain(src)
                        if not isinstance(value, dict):
                            self.fail(src, "a YAML merge ('<<') needs a map")
                        for k, v in value.items():
                            merged.setdefault(k, v)
                    continue
                key = self.plain(knode)
                if isinstance(key, (list, dict)):
                    self.fail(knode, "a map key cannot be a list or a map")
                if key in out:
                    self.fail(knode, "duplicate key; a key may appear only once in a map", str(key))
                out[key] = self.plain(vnode)
            if merged:
                for k, v in merged.items():
                    out.setdefault(k, v)
            return out
        self.fail(node, "unsupported YAML node")  # pragma: no cover

    def _construct_tagged(self, node: Node) -> Any:
        try:
            return yamlstream.construct_tagged(node)
        except ConstructorError as exc:
            self.fail(node, f"cannot read this value: {exc.problem or exc}")


def content_end(node: Node, text: str) -> int:
    """Index just past the last character that belongs to ``node`` itself.

    Block collections in libyaml end where the *next* token starts (after trailing comments and
    blank lines); the last scalar or flow collection inside them ends exactly. Trailing blank
    space is never part of a node.
    """
    current = node
    while True:
        if isinstance(current, MappingNode) and not current.flow_style and current.value:
            current = current.value[-1][1]
            continue
        if isinstance(current, SequenceNode) and not current.flow_style and current.value:
            current = current.value[-1]
            continue
        break
    end = int(current.end_mark.index)
    start = int(node.start_mark.index)
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return end
