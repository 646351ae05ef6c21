"""Text that comes from outside Trailblaze — a page, a device, a tool server, a subprocess — made safe
to carry, store and show. One module, three purposes, one set of rules:

- **At the boundary** (:func:`valid_text`, :func:`valid_data`, :func:`decode_output`): a Python ``str``
  can hold lone UTF-16 surrogates (a page produces one with ``'Hi 😀'.slice(0, 4)``, and JSON from a
  browser or an Appium server decodes it as is), and then every encoder downstream — ``print``, ``json``
  written as UTF-8, a report file — raises ``UnicodeEncodeError``. One such string used to abort a whole
  run, leave a 0-byte report and kill the MCP server. So every boundary where outside text enters makes
  it valid Unicode, and the writers do it again, so no single bad string can take anything down.
- **On the terminal** (:func:`terminal_text`): a file name, a page title or a tool's output must not be
  able to move the cursor, retitle the window or hide what follows (ESC and OSC sequences), so control
  characters are shown escaped; and a line that quotes outside output (a failure message, a tool server's
  stderr) is cut at ``MAX_OUTPUT_CHARS`` as files are, so a 7 MB line from a program is not printed
  whole.
- **In an output file** (:func:`output_text`, :func:`output_value`, :func:`capped`): outputs are read by
  other programs. A CI server drops a whole JUnit file over one character XML forbids, and a megabyte of
  tool output makes a report nobody can open. The JSON summary, the HTML report and JUnit XML pass their
  text through here, so all of them agree on what a control character, a surrogate or an oversized
  string turns into.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

REPLACEMENT = "\ufffd"

MAX_DEPTH = 64
"""Deeper than this (or a container holding itself) is left as it is: its encoder reports it."""

MAX_OUTPUT_CHARS = 64 * 1024
"""Longest single string an output keeps; the rest is replaced by a marker saying how much was cut."""

_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
"""C0 and C1 control characters other than tab, newline and carriage return: never shown as they are."""
_TERMINAL_UNSAFE = re.compile(f"[{_CONTROLS}\r]")
"""On a terminal a carriage return moves the cursor back over what was printed, so it is escaped too."""
_OUTPUT_UNSAFE = re.compile(f"[{_CONTROLS}\ufffe\uffff]")
"""In a file a carriage return is text; the two non-characters XML forbids are escaped."""
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""ANSI CSI (colours, cursor moves) and OSC (titles, links) sequences: styling, not text."""


# -- shared ---------------------------------------------------------------------------------------------
def _is_valid(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(match: re.Match[str]) -> str:
    """A control character as the ``\\xNN`` (or ``\\uNNNN``) a reader sees instead of its effect."""
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _map_strings(value: Any, fn: Callable[[str], str], *, keys: bool, depth: int = 0) -> Any:
    """A copy of a JSON-like value with ``fn`` applied to every string (and to string keys when
    ``keys``); other scalars, named tuples and anything deeper than ``MAX_DEPTH`` kept as they are."""
    if isinstance(value, str):
        return fn(value)
    if depth > MAX_DEPTH:
        return value
    def inner(item: Any) -> Any:
        return _map_strings(item, fn, keys=keys, depth=depth + 1)

    if isinstance(value, dict):
        return {(inner(k) if keys else k): inner(v) for k, v in value.items()}
    if isinstance(value, list):
        return [inner(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(inner(v) for v in value)
    return value


# -- at the boundary --------------------------------------------------------------------------------------
def valid_text(text: str) -> str:
    """``text`` as valid Unicode: surrogate pairs joined, lone surrogates replaced by U+FFFD."""
    if _is_valid(text):
        return text
    # UTF-16 round trip: a pair of surrogate code points becomes its character, a lone one U+FFFD.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _all_valid(value: Any, depth: int) -> bool:
    """Whether every string in ``value`` is valid (the common case, checked without copying)."""
    kind = type(value)
    if kind is str:
        return _is_valid(value)
    if depth > MAX_DEPTH:
        return True
    if kind is dict:
        for key, item in value.items():
            if not (_all_valid(key, depth + 1) and _all_valid(item, depth + 1)):
                return False
        return True
    if kind is list or kind is tuple:
        for item in value:
            if not _all_valid(item, depth + 1):
                return False
        return True
    return not isinstance(value, str) or _is_valid(value)


def valid_data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, tuples, strings, scalars) with every string made valid; the
    value itself (not a copy) when nothing needed it, so callers can tell by identity."""
    if _all_valid(value, 0):
        return value
    return _map_strings(value, valid_text, keys=True)


def decode_output(data: bytes | bytearray | str | None) -> str:
    """A subprocess's or server's output as text: UTF-8, with U+FFFD where it is not."""
    if data is None:
        return ""
    if isinstance(data, str):
        return valid_text(data)
    return bytes(data).decode("utf-8", "replace")


# -- on the terminal --------------------------------------------------------------------------------------
def terminal_text(text: str, *, limit: int | None = None) -> str:
    """``text`` for a terminal: valid Unicode, control characters other than newline and tab shown as
    ``\\xNN`` so no escape sequence from outside reaches the terminal; cut at ``limit`` characters with
    a marker (``truncated``, as files are) when one is given. Progress and error lines pass
    ``MAX_OUTPUT_CHARS``; output the user asked for whole (a snapshot) passes none."""
    if limit is not None and len(text) > limit:
        text = truncated(text, limit)
    text = valid_text(text)
    if not _TERMINAL_UNSAFE.search(text):
        return text
    return _TERMINAL_UNSAFE.sub(_escaped, text)


# -- in an output file ------------------------------------------------------------------------------------
def output_text(value: object, *, limit: int | None = MAX_OUTPUT_CHARS) -> str:
    """``value`` as text any output format can hold: ANSI sequences dropped, other control characters
    shown as ``\\xNN``, lone surrogates as U+FFFD, bytes decoded as UTF-8 with replacement, and cut at
    ``limit`` characters with a marker (``truncated``: the one cut files, the console and the session
    replies share)."""
    if isinstance(value, (bytes, bytearray)):
        text = decode_output(value)
    else:
        text = value if isinstance(value, str) else str(value)
    if limit is not None and len(text) > limit:
        text = truncated(text, limit)
    if text.isascii() and text.isprintable():
        return text
    text = valid_text(text)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _OUTPUT_UNSAFE.sub(_escaped, text)


def output_value(value: Any, *, limit: int | None = MAX_OUTPUT_CHARS) -> Any:
    """``value`` with every string (keys included) passed through ``output_text``; dicts, lists and
    tuples are walked, other scalars kept."""
    return _map_strings(value, lambda text: output_text(text, limit=limit), keys=True)


def needs_output_text(text: str, limit: int | None = MAX_OUTPUT_CHARS) -> bool:
    """Whether ``output_text`` would change ``text``: one length check (none when ``limit`` is None)
    and one scan, so a writer can check a whole serialised document, or walk one and pass only the
    strings that need it (most need nothing)."""
    if limit is not None and len(text) > limit:
        return True
    if len(text) > 4096 and text.isascii():  # a whole document: deleting what is kept is one pass in C
        return bool(text.encode("ascii").translate(None, _ASCII_KEPT))
    return _OUTPUT_CHANGES.search(text) is not None


_ASCII_KEPT = bytes([9, 10, 13, *range(0x20, 0x7F)])
"""The ASCII characters ``output_text`` keeps as they are (every one but ``_CONTROLS``): what is left of
an ASCII text once these are deleted is what ``_OUTPUT_CHANGES`` would find. On a 10,000-trail JUnit
document (7 MB) that is 6 ms; the character-class search, which tries every position, took 40 ms."""


_OUTPUT_CHANGES = re.compile(f"[{_CONTROLS}\ufffe\uffff\ud800-\udfff]")
"""What ``output_text`` changes besides length: control characters (ESC included), the two
non-characters XML forbids, and surrogates (a valid string holds none)."""
_JSON_RAW_CHANGES = re.compile("[\x7f-\x9f\ufffe\uffff\ud800-\udfff]")
_JSON_ESCAPED_CHANGES = re.compile(r"\\(?:u00|[bf])")
"""In ``json.dumps(..., ensure_ascii=False)`` text, what ``output_text`` would change: raw DEL, C1
controls, non-characters and surrogates, and the escapes of C0 controls (``\\u0001``, ``\\b``,
``\\f``). Looked for with ``isascii`` and one search that starts from the backslash (a literal
prefix the regular expression engine scans for in C: 9 ms over an 18 MB summary, where a regular
expression with alternatives took 0.3 s and three substring searches 56 ms); a false alarm (a text
holding a backslash and ``b``) only costs the slow path."""


def output_json(value: Any) -> str:
    """``value`` as JSON text with every string following the output rules (``output_value``): checked
    on the serialised text first, so a document that holds nothing the rules change (nearly every one)
    is serialised once and not walked string by string; strings longer than ``MAX_OUTPUT_CHARS`` are
    the caller's to cut before (a merge's records are cut as they are read)."""
    import json

    from pydantic_core import PydanticSerializationError

    from .json_encode import dumps

    try:  # the same compact text as the stdlib's, encoded in Rust (``json_encode``): a seventh of its time
        text = dumps(value).decode("utf-8")
    except PydanticSerializationError:  # a lone surrogate: the rules below replace it
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    raw = "\x7f" in text if text.isascii() else _JSON_RAW_CHANGES.search(text) is not None
    if not raw and _JSON_ESCAPED_CHANGES.search(text) is None:
        return text
    return json.dumps(output_value(value), ensure_ascii=False, separators=(",", ":"))


def capped(value: Any, limit: int) -> Any:
    """``value`` with every string longer than ``limit`` cut (``truncated``); dicts and lists walked,
    nothing else changed. For files that keep text as it was (the session log), only smaller."""
    return _map_strings(value, lambda text: truncated(text, limit), keys=False)


def truncated(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, ending with a marker that says how much is missing."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [truncated: {len(text) - limit} more characters]"


__all__ = ["MAX_OUTPUT_CHARS", "REPLACEMENT", "capped", "decode_output", "needs_output_text", "output_json",
           "output_text", "output_value", "terminal_text", "truncated", "valid_data", "valid_text"]
