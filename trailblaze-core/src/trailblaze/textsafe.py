"""Text from outside (pages, devices, tools, subprocesses) made safe to put into an output file.

Outputs are read by other programs: a CI server drops a whole JUnit file over one character XML
forbids, a UTF-8 encoder raises on a lone surrogate, and a megabyte of tool output makes a report
nobody can open. Every output (the JSON summary, the HTML report, JUnit XML) passes its text through
``output_text`` (or ``output_value`` for a whole document), so all of them agree on what a control
character, a surrogate or an oversized string turns into.
"""

from __future__ import annotations

import re
from typing import Any

MAX_OUTPUT_CHARS = 64 * 1024
"""Longest single string an output keeps; the rest is replaced by a marker saying how much was cut."""

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""ANSI CSI (colours, cursor moves) and OSC (titles, links) sequences: styling, not text."""
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
"""C0/C1 controls other than tab and newlines, lone surrogates, and the two XML non-characters."""


def output_text(value: object, *, limit: int | None = MAX_OUTPUT_CHARS) -> str:
    """``value`` as text any output format can hold: ANSI sequences dropped, other control characters
    shown as ``\\xNN``, lone surrogates as U+FFFD, bytes decoded as UTF-8 with replacement, and cut at
    ``limit`` characters with a marker."""
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value).decode("utf-8", errors="replace")
    else:
        text = value if isinstance(value, str) else str(value)
    if limit is not None and len(text) > limit:
        text = truncated(text, limit)
    if text.isascii() and text.isprintable():
        return text
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _UNSAFE.sub(_replace, text)


def output_value(value: Any, *, limit: int | None = MAX_OUTPUT_CHARS) -> Any:
    """``value`` with every string (keys included) passed through ``output_text``; dicts, lists and
    tuples are walked, other scalars kept."""
    if isinstance(value, str):
        return output_text(value, limit=limit)
    if isinstance(value, dict):
        return {output_text(k, limit=limit) if isinstance(k, str) else k: output_value(v, limit=limit)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [output_value(v, limit=limit) for v in value]
    return value


def capped(value: Any, limit: int) -> Any:
    """``value`` with every string longer than ``limit`` cut (``truncated``); dicts and lists walked,
    nothing else changed. For files that keep text as it was (the session log), only smaller."""
    if isinstance(value, str):
        return truncated(value, limit)
    if isinstance(value, dict):
        return {k: capped(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [capped(v, limit) for v in value]
    return value


def truncated(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, ending with a marker that says how much is missing."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [truncated: {len(text) - limit} more characters]"


def _replace(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
