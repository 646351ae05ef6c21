"""Text that comes from outside Trailblaze — a page, a device, a tool server, a subprocess — made safe
to carry, store and show.

A Python ``str`` can hold lone UTF-16 surrogates (a page produces one with ``'Hi 😀'.slice(0, 4)``, and
JSON from a browser or an Appium server decodes it as is), and then every encoder downstream — ``print``,
``json`` written as UTF-8, a report file — raises ``UnicodeEncodeError``. One such string used to abort a
whole run, leave a 0-byte report and kill the MCP server. So every boundary where outside text enters
passes it through :func:`valid_text` (or :func:`valid_data` for JSON-like values, :func:`decode_output`
for bytes), and the writers use them again, so no single bad string can take anything down.

Outside text shown on a terminal also goes through :func:`terminal_text`: a file name, a page title or a
tool's output must not be able to move the cursor, retitle the window or hide what follows (ESC and OSC
sequences).
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"


MAX_DEPTH = 64
"""Deeper than this (or a container holding itself) is left as it is: its encoder reports it."""


def _is_valid(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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


def _copy_valid(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return valid_text(value)
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {_copy_valid(k, depth + 1): _copy_valid(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_valid(v, depth + 1) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_copy_valid(v, depth + 1) for v in value)
    return value


def valid_data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, tuples, strings, scalars) with every string made valid; the
    value itself (not a copy) when nothing needed it, so callers can tell by identity."""
    if _all_valid(value, 0):
        return value
    return _copy_valid(value, 0)


def decode_output(data: bytes | str | None) -> str:
    """A subprocess's or server's output as text: UTF-8, with U+FFFD where it is not."""
    if data is None:
        return ""
    if isinstance(data, str):
        return valid_text(data)
    return data.decode("utf-8", "replace")


_TERMINAL_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_text(text: str) -> str:
    """``text`` for a terminal: valid Unicode, control characters other than newline and tab shown as
    ``\\xNN`` so no escape sequence from outside reaches the terminal."""
    text = valid_text(text)
    if not _TERMINAL_CONTROLS.search(text):
        return text
    return _TERMINAL_CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


__all__ = ["REPLACEMENT", "decode_output", "terminal_text", "valid_data", "valid_text"]
