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
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..errors import BadInputError
from ..files import write_atomic
from ..json_encode import model_json

M = TypeVar("M", bound=BaseModel)


def line_of(value: Any) -> bytes:
    """One line for a JSON-ready value. ASCII: a lone surrogate some outside text carried stays a
    valid ``\\uXXXX`` escape, and no byte of a line can be mistaken for a newline."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def model_line(model: BaseModel) -> bytes:
    """``model`` as one line: the bytes ``model_dump_json`` would give (``json_encode.model_json``, else
    pydantic's core), without decoding them to text and encoding them again; the stdlib only for text
    neither will encode."""
    fast = model_json(model)
    if fast is not None:
        return fast + b"\n"
    try:
        return model.__pydantic_serializer__.to_json(model) + b"\n"
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


def iter_models(path: Path, model: type[M], *, max_line: int, max_text: int,
                cap: Callable[[Any, int], Any]) -> Iterator[M]:
    """Each record of a JSON Lines file, one line in memory at a time (a merge of a 200 MB bundle
    holds its records, not its bytes twice over): a line longer than ``max_line`` bytes is bad input,
    strings longer than ``max_text`` characters are cut by ``cap`` before validation (only a line longer
    than ``max_text`` bytes can hold one, so the common line goes straight to pydantic's parser); bad
    input names ``path:line`` and the key. A last line without its newline that does not parse is an
    append a killed process cut short, and is left out."""
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise BadInputError(f"file not found: {path}") from None
    except OSError as exc:
        raise BadInputError(f"{path}: not readable ({exc})") from None
    with fh:
        number = 0
        while True:
            try:
                line = fh.readline(max_line + 1)
            except OSError as exc:
                raise BadInputError(f"{path}: not readable ({exc})") from None
            if not line:
                return
            number += 1
            if len(line) > max_line:
                raise BadInputError(f"{path}:{number}: a record longer than {max_line // (1024 * 1024)} MiB",
                                    hint="a bundle's records are capped (docs/scale-out.md)")
            if not line.strip():
                continue
            if not line.endswith(b"\n") and not _parses(line):
                return  # an append a killed process cut short
            yield _validated(path, number, line, model, max_text, cap)


def _validated(path: Path, number: int, line: bytes, model: type[M], max_text: int,
               cap: Callable[[Any, int], Any]) -> M:
    try:
        if len(line) <= max_text:
            try:
                return model.model_validate_json(line)
            except ValidationError as exc:
                if exc.errors()[0]["type"] != "json_invalid":
                    raise
                # pydantic's parser refuses a lone surrogate's \\uXXXX escape, which the writers emit
                # for text that carried one (``line_of``); the stdlib reads it, the outputs replace it.
        return model.model_validate(cap(json.loads(line), max_text))
    except ValidationError as exc:
        raise BadInputError(f"{path}:{number}: {first_error(exc)}") from None
    except ValueError:
        raise BadInputError(f"{path}:{number}: not a JSON record") from None


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


__all__ = ["append_line", "first_error", "iter_models", "line_of", "model_line", "read_models", "write_lines"]
