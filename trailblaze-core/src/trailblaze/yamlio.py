"""YAML reading and writing, in one place.

Two loaders on purpose: the C-accelerated safe loader reads trails fast for running; the round-trip
loader keeps comments, order and positions for saving recordings back and for pointing at the line and
column of an error. ``locate`` maps a key path to ``file:line:column`` by re-reading with positions only
when an error needs it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from .errors import BadInputError, SourceLocation

Key = str | int


class YamlSyntaxError(BadInputError):
    """The file is not valid YAML (bad indentation, unclosed quotes, tabs...)."""


def _safe() -> YAML:
    y = YAML(typ="safe", pure=False)
    return y


def _roundtrip() -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=2, sequence=4, offset=2)
    return y


_SAFE: YAML | None = None


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInputError(f"file not found: {path}") from None
    except IsADirectoryError:
        raise BadInputError(f"expected a file, got a directory: {path}") from None
    except UnicodeDecodeError as exc:
        raise BadInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def load_fast(text: str, path: Path | str | None = None) -> Any:
    """Plain Python data (dict/list/scalars) via the C safe loader when available."""
    global _SAFE
    if _SAFE is None:
        _SAFE = _safe()
    try:
        return _SAFE.load(text)
    except MarkedYAMLError as exc:
        raise _syntax_error(exc, path) from None
    except YAMLError as exc:
        raise YamlSyntaxError(f"invalid YAML: {exc}", location=SourceLocation(path)) from None


def load_roundtrip(text: str, path: Path | str | None = None) -> Any:
    """Comment- and position-preserving data (``CommentedMap``/``CommentedSeq``)."""
    try:
        return _roundtrip().load(text)
    except MarkedYAMLError as exc:
        raise _syntax_error(exc, path) from None
    except YAMLError as exc:
        raise YamlSyntaxError(f"invalid YAML: {exc}", location=SourceLocation(path)) from None


def dump_roundtrip(data: Any) -> str:
    buf = io.StringIO()
    _roundtrip().dump(data, buf)
    return buf.getvalue()


def dump_plain(data: Any) -> str:
    y = YAML(typ="safe", pure=True)
    y.default_flow_style = False
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


def plain(value: Any, *, str_keys: bool = False) -> Any:
    """Round-trip data (``CommentedMap``/``CommentedSeq``) as plain dicts and lists, for validation.

    ``str_keys`` turns every mapping key into a string (YAML lets ``1:`` or ``true:`` be keys).
    """
    if isinstance(value, Mapping):
        return {(str(k) if str_keys else k): plain(v, str_keys=str_keys) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v, str_keys=str_keys) for v in value]
    return value


def _syntax_error(exc: MarkedYAMLError, path: Path | str | None) -> YamlSyntaxError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    col = mark.column + 1 if mark is not None else None
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    if exc.context and exc.problem:
        problem = f"{exc.problem} ({exc.context})"
    return YamlSyntaxError(f"invalid YAML: {problem}", location=SourceLocation(path, line, col),
                           hint="check indentation and quoting")


def position(node: Any, key: Key | None = None) -> tuple[int | None, int | None]:
    """1-based (line, column) of ``key`` inside a round-trip ``node`` (or of the node itself)."""
    try:
        if key is None:
            lc = node.lc
            return lc.line + 1, lc.col + 1
        if isinstance(node, CommentedMap):
            pos = node.lc.key(key)
            return pos[0] + 1, pos[1] + 1
        if isinstance(node, CommentedSeq):
            pos = node.lc.item(key)
            return pos[0] + 1, pos[1] + 1
    except (AttributeError, KeyError, IndexError, TypeError):
        pass
    return None, None


def locate(root: Any, path: Sequence[Key], file: Path | str | None) -> SourceLocation:
    """The position of the deepest reachable element of ``path`` in a round-trip tree."""
    node = root
    line, col = position(root) if hasattr(root, "lc") else (None, None)
    for key in path:
        if isinstance(node, CommentedMap) and key in node:
            line, col = position(node, key)
            node = node[key]
        elif isinstance(node, CommentedSeq) and isinstance(key, int) and 0 <= key < len(node):
            line, col = position(node, key)
            node = node[key]
        else:
            break
    return SourceLocation(file, line, col)


def locate_in_text(text: str, path: Sequence[Key], file: Path | str | None) -> SourceLocation:
    """Re-read ``text`` with positions and locate ``path``; used only on the error path."""
    try:
        root = load_roundtrip(text, file)
    except BadInputError:
        return SourceLocation(file)
    return locate(root, path, file)


def load_file_fast(path: Path) -> Any:
    return load_fast(read_text(path), path)

__all__ = [
    "YamlSyntaxError", "load_fast", "load_roundtrip", "locate_in_text", "plain", "read_text",
]
