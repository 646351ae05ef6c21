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


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: surrogate pairs joined, lone surrogates replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 round trip: a pair of surrogate code points becomes its character, a lone one U+FFFD.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def valid_data(value: Any, _path: frozenset[int] = frozenset()) -> Any:
    """A JSON-like value (dicts, lists, tuples, strings, scalars) with every string made valid; the
    value itself (not a copy) when nothing needed it, so callers can tell by identity. A container that
    holds itself is left as it is (its encoder reports it)."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict | list | tuple) and not hasattr(value, "_fields"):
        if id(value) in _path:
            return value
        inner = _path | {id(value)}
        if isinstance(value, dict):
            items = [(valid_data(k, inner), valid_data(v, inner)) for k, v in value.items()]
            if all(nk is k and nv is v for (nk, nv), (k, v) in zip(items, value.items(), strict=True)):
                return value
            return dict(items)
        members = [valid_data(v, inner) for v in value]
        if all(n is v for n, v in zip(members, value, strict=True)):
            return value
        return members if isinstance(value, list) else tuple(members)
    return value


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
