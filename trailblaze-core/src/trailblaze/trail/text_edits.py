"""The text primitives save-back splices with: YAML fragments rendered to match a file's layout, and edits
located on composed nodes (find an entry, the column of a node, where a line ends, remove an entry).

Kept apart from ``saveback.py``, which decides *what* to write (which step, which recording, conflicts,
locking); these only know YAML text.
"""

from __future__ import annotations

import io
import re
import threading
from typing import Any

from ruamel.yaml import YAML

from .nodes import MappingNode, Node, ScalarNode, SequenceNode, content_end

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")

# -- rendering ----------------------------------------------------------------------------------
_DUMPERS = threading.local()


def _dumper(flow: bool) -> YAML:
    cached: YAML | None = getattr(_DUMPERS, "flow" if flow else "block", None)
    if cached is None:
        cached = _new_dumper(flow)
        setattr(_DUMPERS, "flow" if flow else "block", cached)
    return cached


def _new_dumper(flow: bool) -> YAML:
    y = YAML(typ="safe", pure=True)
    y.default_flow_style = flow
    y.width = 4096
    y.allow_unicode = True
    y.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def block_yaml(data: Any, indent: int, nl: str) -> str:
    """``data`` as block YAML, every line indented by ``indent`` spaces, no trailing newline."""
    buf = io.StringIO()
    _dumper(False).dump(data, buf)
    lines = buf.getvalue().rstrip("\n").split("\n")
    strip = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    return nl.join((" " * indent + line[strip:]) if line.strip() else "" for line in lines)


def flow_yaml(data: Any) -> str:
    buf = io.StringIO()
    _dumper(True).dump(data, buf)
    return " ".join(buf.getvalue().split("\n")).strip()


def yaml_key(name: str) -> str:
    return name if _PLAIN_KEY.match(name) and name not in ("true", "false", "null", "~") else flow_yaml(name)


# -- node helpers -------------------------------------------------------------------------------
def map_entry(node: Node, key: str) -> tuple[Node, Node] | None:
    if isinstance(node, MappingNode):
        for knode, vnode in node.value:
            if isinstance(knode, ScalarNode) and knode.value == key:
                return knode, vnode
    return None


def navigate(root: Node, path: tuple[str | int, ...]) -> Node:
    node = root
    for part in path:
        if isinstance(part, int):
            assert isinstance(node, SequenceNode)
            node = node.value[part]
        else:
            found = map_entry(node, part)
            assert found is not None, part
            node = found[1]
    return node


def line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def column(text: str, index: int) -> int:
    return index - line_start(text, index)


def after_line(text: str, end: int) -> int:
    """Where to insert new lines after ``end``: past a trailing comment on that line, before its newline."""
    eol = text.find("\n", end)
    if eol < 0:
        eol = len(text)
    rest = text[end:eol].strip()
    if rest and not rest.startswith("#"):
        return end
    return eol - 1 if eol > 0 and text[eol - 1] == "\r" else eol


def is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:null"


class Edit:
    def __init__(self, start: int, end: int, replacement: str) -> None:
        self.start, self.end, self.replacement = start, end, replacement

    def apply(self, text: str) -> str:
        return text[: self.start] + self.replacement + text[self.end:]


def remove_entry(text: str, knode: Node, vnode: Node) -> Edit:
    """Remove ``key: value`` of a block map, with its whole lines when it owns them."""
    start = knode.start_mark.index
    end = content_end(vnode, text) if not is_null(vnode) else max(vnode.end_mark.index, knode.end_mark.index)
    first = line_start(text, start)
    # the rest of the last line: keep it unless it is blank or a comment of the removed entry
    eol = text.find("\n", end)
    eol = len(text) if eol < 0 else eol
    rest = text[end:eol].strip()
    if text[first:start].strip() == "":
        if rest == "" or rest.startswith("#"):
            end = eol + 1 if eol < len(text) else eol
            return Edit(first, end, "")
        return Edit(first, end, "")  # pragma: no cover - flow content after a block value
    # the key shares its line with a '- ' item marker: pull the next key up to this line
    nxt = end
    while nxt < len(text) and text[nxt] in " \t\r\n":
        nxt += 1
    return Edit(start, nxt, "")


__all__ = ["Edit", "after_line", "block_yaml", "column", "flow_yaml", "is_null", "line_start", "map_entry",
           "navigate", "remove_entry", "yaml_key"]
