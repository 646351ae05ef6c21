"""JSON Lines files of pydantic records: written whole, appended one durable line at a time, read back
with the line a bad record is on.

A result bundle's ``results.jsonl`` grows one line per finished trail, so an xdist worker keeps its
bundle current with one short append (and an ``fsync``) per trail instead of rewriting every earlier
record each time — the cost stays flat however many trails a worker runs, and a worker killed
mid-run leaves every line it finished. A line is written with its newline in one ``write``; a last
line without its newline that does not parse is an append the kill cut short, and is left out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..errors import BadInputError
from ..files import write_atomic

M = TypeVar("M", bound=BaseModel)


def line_of(value: Any) -> bytes:
    """One line for a JSON-ready value. ASCII: a lone surrogate some outside text carried stays a
    valid ``\\uXXXX`` escape, and no byte of a line can be mistaken for a newline."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def model_line(model: BaseModel) -> bytes:
    """``model`` as one line, serialised by pydantic's core (the stdlib only for text it will not encode)."""
    try:
        return model.model_dump_json().encode("utf-8") + b"\n"
    except (ValueError, UnicodeError):
        return line_of(model.model_dump(mode="json"))


def write_lines(path: Path, lines: Iterable[bytes]) -> Path:
    """Replace ``path`` with ``lines`` (each ending in a newline) in one atomic step."""
    return write_atomic(path, b"".join(lines))


def append_line(path: Path, line: bytes) -> None:
    """Add one line and make it durable before returning, so a crash right after keeps it."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_models(path: Path, adapter: TypeAdapter[list[M]]) -> list[M]:
    """Every record of a JSON Lines file, validated in one pass; bad input names ``path:line`` and the key."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BadInputError(f"file not found: {path}") from None
    except OSError as exc:
        raise BadInputError(f"{path}: not readable ({exc})") from None
    raw = data.split(b"\n")
    if raw and raw[-1].strip() and not _parses(raw[-1]):
        raw.pop()  # an append a killed process cut short
    numbers: list[int] = []
    lines: list[bytes] = []
    for number, line in enumerate(raw, start=1):
        if line.strip():
            numbers.append(number)
            lines.append(line)
    try:
        return adapter.validate_json(b"[" + b",".join(lines) + b"]")
    except ValidationError as exc:
        raise BadInputError(_located(path, exc, numbers, lines)) from None


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _located(path: Path, exc: ValidationError, numbers: Sequence[int], lines: Sequence[bytes]) -> str:
    err = exc.errors()[0]
    loc = list(err["loc"])
    if err["type"] == "json_invalid" or not loc or not isinstance(loc[0], int):
        # Which line is not JSON: the first that does not parse on its own.
        bad = next((n for n, line in zip(numbers, lines, strict=True) if not _parses(line)),
                   numbers[0] if numbers else 1)
        return f"{path}:{bad}: not a JSON record"
    return f"{path}:{numbers[loc[0]]}: {first_error(exc, skip=1)}"


def first_error(exc: ValidationError, *, skip: int = 0) -> str:
    """``key 'a.b': message (and N more)`` for the first error, its location without ``skip`` leading parts."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in list(err["loc"])[skip:]) or "(top)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"key '{where}': {err['msg']}{more}"


__all__ = ["append_line", "first_error", "line_of", "model_line", "read_models", "write_lines"]
