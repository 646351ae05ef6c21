"""The state every part of the trail reader shares: the node reader, the file, strictness, the codec.

The parser is split by job (config reading, recording reading, step reading); each part is a mixin
over this base so they share one ``warn`` and one list of warnings.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import TrailFormatError
from ..tools.codec import ToolCodec
from .nodes import Node, NodeReader

__all__ = ["TrailReaderBase"]


def _allowed(keys: tuple[str, ...]) -> str:
    return "allowed: " + ", ".join(keys)


class TrailReaderBase:
    """What every reading mixin needs: the node reader, the file, strictness, the codec, the warnings."""

    def __init__(self, path: Path | None, reader: NodeReader, *, strict: bool, codec: ToolCodec) -> None:
        self.path = path
        self.r = reader
        self.strict = strict
        self.codec = codec
        self.warnings: list[str] = []

    def warn(self, node: Node, message: str, key: str | None = None, hint: str | None = None) -> None:
        if self.strict:
            self.r.fail(node, message, key, hint)
        err = TrailFormatError(message, location=self.r.loc(node), key=key, hint=hint)
        self.warnings.append(err.render())

    def count(self, node: Node, key: str) -> int | None:
        if self.r.is_null(node):
            return None
        value = self.r.integer(node, f"'{key}'", key)
        if value < 0:
            self.r.fail(node, f"'{key}' must be 0 or more, got {value}", key)
        return value
