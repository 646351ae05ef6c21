"""YAML reading and writing, in one place.

Two loaders on purpose: the fast one (``yamlstream``: libyaml's events built into plain data or
positioned nodes) reads trails, tool files, trailmaps and toolsets; the round-trip loader keeps
comments, order and positions for configuration that is edited and for pointing at the line and column
of an error. ``locate_in_text`` maps a key path to ``file:line:column`` by re-reading with positions
only when an error needs it.

Every reader here is bounded (``yamlstream.Limits``): the file size is checked before reading, and
nesting depth and alias expansion while parsing — the round-trip loader included, which is only
reached after the bounded pass accepted the text.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from . import yamlstream
from .errors import BadInputError, SourceLocation
from .yamlstream import Limits, YamlLimitError

Key = str | int


class YamlSyntaxError(BadInputError):
    """The file is not valid YAML (bad indentation, unclosed quotes, tabs...)."""


def _roundtrip() -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def read_text(path: Path | str, limits: Limits | None = None) -> str:
    """The file's text; one over the size limit is refused before it is read (``YamlLimitError``).

    Plain ``os`` calls rather than ``open()``: no buffered file object is built around a read that
    takes the whole file at once, which makes reading the 10,000 files of a large tool workspace a
    third as costly.
    """
    limits = limits or Limits.from_env()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            if st.st_size > limits.max_bytes:
                yamlstream.check_size(st.st_size, path, limits,
                                      lambda: _read_all(fd, limits.max_bytes).count(b"\n") + 1)
            data = _read_all(fd, limits.max_bytes + 1, st.st_size + 1, regular=stat.S_ISREG(st.st_mode))
        finally:
            os.close(fd)
        if len(data) > limits.max_bytes:  # grew while we looked, or a pipe/special file
            yamlstream.check_size(len(data), path, limits, lambda: data.count(b"\n", 0, limits.max_bytes) + 1)
        text = data.decode("utf-8")
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
    except FileNotFoundError:
        raise BadInputError(f"file not found: {path}") from None
    except IsADirectoryError:
        raise BadInputError(f"expected a file, got a directory: {path}") from None
    except UnicodeDecodeError as exc:
        raise BadInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _read_all(fd: int, most: int, first: int = 1 << 16, *, regular: bool = False) -> bytes:
    """Up to ``most`` bytes from ``fd``'s current position to its end: for a regular file, usually one
    read of ``first`` (a short read there is its end)."""
    chunks: list[bytes] = []
    total = 0
    want = min(first, most)
    while total < most:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if regular and len(chunk) < want:
            break
        want = min(1 << 20, most - total)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def load_fast(text: str, path: Path | str | None = None, limits: Limits | None = None) -> Any:
    """Plain Python data (dict/list/scalars), as ruamel's safe loader gives it, built from C events."""
    if limits is None:
        return _parsing(yamlstream.load, text, path)
    return _parsing(lambda t, p: yamlstream.load(t, p, limits), text, path)


def compose(text: str, path: Path | str | None = None) -> yamlstream.Node | None:
    """Positioned nodes of ``text`` (None when empty), within the limits; syntax errors as ``YamlSyntaxError``."""
    node: yamlstream.Node | None = _parsing(yamlstream.compose, text, path)
    return node


def _parsing(parse: Callable[[str, Path | str | None], Any], text: str, path: Path | str | None) -> Any:
    """``parse(text, path)`` with ruamel's errors turned into ``YamlSyntaxError`` naming file:line:column."""
    try:
        return parse(text, path)
    except MarkedYAMLError as exc:
        raise _syntax_error(exc, path) from None
    except YAMLError as exc:
        raise YamlSyntaxError(f"invalid YAML: {exc}", location=SourceLocation(path)) from None


def load_roundtrip(text: str, path: Path | str | None = None) -> Any:
    """Comment- and position-preserving data (``CommentedMap``/``CommentedSeq``).

    The text first passes the bounded composer: ruamel's pure-Python composer recurses per nesting
    level and would otherwise meet hostile depth before any limit does.
    """
    try:
        compose(text, path)
    except YamlSyntaxError:
        # libyaml is stricter than ruamel's own parser in places (a ':' inside a flow scalar such as
        # '{url: http://h}' is valid YAML 1.2): check the limits on ruamel's events instead.
        _parsing(lambda t, p: yamlstream.compose(t, p, pure=True), text, path)
    return _parsing(lambda t, _p: _roundtrip().load(t), text, path)


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
        node = compose(text, file)
    except BadInputError:
        return SourceLocation(file)
    return locate_node(node, path, file)


def locate_node(root: yamlstream.Node | None, path: Sequence[Key], file: Path | str | None) -> SourceLocation:
    """The position of the deepest reachable element of ``path`` (a key's position for map entries)."""
    if root is None:
        return SourceLocation(file)
    node: yamlstream.Node = root
    mark = root.start_mark
    for key in path:
        if isinstance(node, yamlstream.MappingNode):
            entry = next(((k, v) for k, v in node.value
                          if isinstance(k, yamlstream.ScalarNode) and k.value == str(key)), None)
            if entry is None:
                break
            mark, node = entry[0].start_mark, entry[1]
        elif isinstance(node, yamlstream.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            node = node.value[key]
            mark = node.start_mark
        else:
            break
    return SourceLocation(file, mark.line + 1, mark.column + 1)


def load_file_fast(path: Path) -> Any:
    return load_fast(read_text(path), path)

__all__ = [
    "Limits", "YamlLimitError", "YamlSyntaxError", "compose", "load_fast", "load_file_fast", "load_roundtrip",
    "locate", "locate_in_text", "locate_node", "plain", "read_text",
]
