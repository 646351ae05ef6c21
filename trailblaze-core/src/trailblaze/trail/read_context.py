"""What the parts of one trail file's reading share: the file, its node reader, strictness and the
warnings collected so far.

The parser has parts (a config reader, a recording reader, its own step reading); the config reader
and the parser warn into one list, so the trail carries every warning in file order. This object is
that list and the rule for warning, handed to each part that needs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import TrailFormatError
from .nodes import Node, NodeReader


def __getattr__(name: str) -> Any:
    """``trailblaze.trail.reader_base.TrailReaderBase`` was the shared base of the config and recording
    readers until contract 1.1; its state is ``ReadContext`` now, which the readers are given."""
    if name == "TrailReaderBase":
        import warnings

        warnings.warn("trailblaze.trail.reader_base.TrailReaderBase is deprecated: use "
                      "trailblaze.trail.read_context.ReadContext", DeprecationWarning, stacklevel=2)
        return ReadContext
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["ReadContext", "allowed"]


def allowed(keys: tuple[str, ...]) -> str:
    """The hint listing the keys a map may hold."""
    return "allowed: " + ", ".join(keys)


class ReadContext:
    """One file's reading: ``warn`` is an error when strict, otherwise a rendered line in ``warnings``."""

    __slots__ = ("path", "r", "strict", "warnings")

    def __init__(self, path: Path | None, reader: NodeReader, *, strict: bool) -> None:
        self.path = path
        self.r = reader
        self.strict = strict
        self.warnings: list[str] = []

    def warn(self, node: Node, message: str, key: str | None = None, hint: str | None = None) -> None:
        if self.strict:
            self.r.fail(node, message, key, hint)
        err = TrailFormatError(message, location=self.r.loc(node), key=key, hint=hint)
        self.warnings.append(err.render())

    def count(self, node: Node, key: str) -> int | None:
        """A non-negative integer (``retries``, ``maxRetries``), or None for an explicit null."""
        if self.r.is_null(node):
            return None
        value = self.r.integer(node, f"'{key}'", key)
        if value < 0:
            self.r.fail(node, f"'{key}' must be 0 or more, got {value}", key)
        return value
