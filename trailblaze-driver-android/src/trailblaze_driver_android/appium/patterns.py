"""Selector text patterns with upstream's exact semantics, on Python's regex engines.

Upstream (``TrailblazeNodeSelectorResolver.matchesPattern``) compiles selector strings as *Java*
regular expressions and matches them against the whole text, falling back to literal equality, so a
price like ``$3.00`` (valid but unmatchable as a regex) still matches itself. Two dialects exist:

* **native** (``androidAccessibility``, ``iosAxe``): no implicit flags; an invalid pattern only
  matches by literal equality.
* **maestro** (``androidMaestro``, ``iosMaestro``): ``IGNORECASE | DOTALL | MULTILINE``, and an
  invalid pattern is retried as an escaped literal with the same flags (Maestro's ``toRegexSafe``).

Recordings carry Java syntax, which Python's ``re`` does not fully share, so patterns are translated
first: ``\\Q…\\E`` quoting, leading and mid-pattern inline flags (``(?-i)``, ``(?s-i)``), ``(?<name>``
groups, ``\\z``/``\\Z``. Patterns that need Unicode properties (``\\p{L}``) or nested/intersected
character classes go to the ``regex`` package. Compiled matchers are cached per (pattern, dialect).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

Matcher = Callable[[str], bool]

_JAVA_FLAGS = {"i": re.IGNORECASE, "s": re.DOTALL, "m": re.MULTILINE, "x": re.VERBOSE}
_IGNORED_FLAGS = set("duUc")  # UNIX_LINES, UNICODE_CASE, UNICODE_CHARACTER_CLASS, CANON_EQ
_LEADING_FLAGS = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)")
_MAESTRO_FLAGS = re.IGNORECASE | re.DOTALL | re.MULTILINE


class PatternSyntaxError(ValueError):
    """The pattern is not a valid Java regular expression (as far as we can translate it)."""


def _flag_bits(letters: str) -> int:
    bits = 0
    for ch in letters:
        if ch in _JAVA_FLAGS:
            bits |= _JAVA_FLAGS[ch]
        elif ch not in _IGNORED_FLAGS:
            raise PatternSyntaxError(f"unknown inline flag '{ch}'")
    return bits


def _py_flag_letters(letters: str) -> str:
    return "".join(ch for ch in letters if ch in _JAVA_FLAGS)


def translate(pattern: str) -> tuple[str, int, int, bool]:
    """Java regex → (python pattern, flags to add, flags to remove, needs the ``regex`` package).

    Raises ``PatternSyntaxError`` for constructs Java rejects that Python would accept differently.
    """
    add = 0
    remove = 0
    pos = 0
    while True:
        m = _LEADING_FLAGS.match(pattern, pos)
        if m is None:
            break
        on, off = m.group(1), m.group(2) or ""
        add = (add | _flag_bits(on)) & ~_flag_bits(off)
        remove = (remove | _flag_bits(off)) & ~_flag_bits(on)
        pos = m.end()
    out: list[str] = []
    needs_regex = False
    # Each frame counts the scoped-flag groups opened inside that group (closed with it).
    frames: list[int] = [0]
    n = len(pattern)
    in_class = 0
    i = pos
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                raise PatternSyntaxError("trailing backslash")
            nxt = pattern[i + 1]
            if nxt == "Q":
                end = pattern.find("\\E", i + 2)
                literal = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
                out.append(re.escape(literal))
                i = n if end < 0 else end + 2
                continue
            if nxt == "E":
                raise PatternSyntaxError("\\E without a preceding \\Q")
            if nxt in "pP":
                needs_regex = True
                out.append(pattern[i:i + 2])
                i += 2
                continue
            if in_class == 0:
                if nxt == "z":
                    out.append(r"\Z")
                    i += 2
                    continue
                if nxt == "Z":
                    out.append(r"(?=\n?\Z)")
                    i += 2
                    continue
                if nxt == "R":
                    out.append(r"(?:\r\n|[\n\x0b\f\r\x85\u2028\u2029])")
                    i += 2
                    continue
                if nxt == "h":
                    out.append(r"[ \t\xa0\u1680\u180e\u2000-\u200a\u202f\u205f\u3000]")
                    i += 2
                    continue
                if nxt == "k" and i + 2 < n and pattern[i + 2] == "<":
                    close = pattern.find(">", i + 3)
                    if close < 0:
                        raise PatternSyntaxError("unterminated \\k<name>")
                    out.append(f"(?P={pattern[i + 3:close]})")
                    i = close + 1
                    continue
            if nxt == "e":
                out.append(r"\x1b")
                i += 2
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "[":
                needs_regex = True  # Java union of nested classes
                in_class += 1
            elif ch == "]":
                in_class -= 1
            elif ch == "&" and pattern.startswith("&&", i):
                needs_regex = True
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = 1
            out.append(ch)
            i += 1
            # A ']' right after '[' or '[^' is a literal member in Java and Python alike.
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("\\]")
                i += 1
            continue
        if ch == "(":
            if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                out.append("(?P<")
                i += 3
                frames.append(0)
                continue
            m = _LEADING_FLAGS.match(pattern, i)
            if m is not None:
                on, off = m.group(1), m.group(2) or ""
                _flag_bits(on), _flag_bits(off)
                on_py, off_py = _py_flag_letters(on), _py_flag_letters(off)
                if on_py or off_py:
                    out.append(f"(?{on_py}{'-' + off_py if off_py else ''}:")
                    frames[-1] += 1
                i = m.end()
                continue
            frames.append(0)
            out.append(ch)
            i += 1
            continue
        if ch == ")":
            if len(frames) == 1:
                raise PatternSyntaxError("unmatched ')'")
            out.append(")" * frames.pop())
            out.append(ch)
            i += 1
            continue
        out.append(ch)
        i += 1
    if in_class:
        raise PatternSyntaxError("unclosed character class")
    if len(frames) != 1:
        raise PatternSyntaxError("unclosed group")
    out.append(")" * frames[0])
    return "".join(out), add, remove, needs_regex


def _compile(pattern: str, base_flags: int) -> Callable[[str], Any]:
    py, add, remove, needs_regex = translate(pattern)
    flags = (base_flags | add) & ~remove
    if needs_regex:
        import regex  # type: ignore[import-untyped]  # only for \p{..} and Java set operations

        rflags = regex.V1
        for std, alt in ((re.IGNORECASE, regex.IGNORECASE), (re.DOTALL, regex.DOTALL),
                         (re.MULTILINE, regex.MULTILINE), (re.VERBOSE, regex.VERBOSE)):
            if flags & std:
                rflags |= alt
        try:
            return regex.compile(py, rflags).fullmatch  # type: ignore[no-any-return]
        except regex.error as exc:
            raise PatternSyntaxError(str(exc)) from None
    try:
        return re.compile(py, flags).fullmatch
    except re.error as exc:
        raise PatternSyntaxError(str(exc)) from None


@lru_cache(maxsize=8192)
def regex_leg(pattern: str, maestro: bool) -> Callable[[str], Any] | None:
    """The compiled full-match function for ``pattern`` in a dialect, or None (native, invalid)."""
    base = _MAESTRO_FLAGS if maestro else 0
    try:
        return _compile(pattern, base)
    except PatternSyntaxError:
        if not maestro:
            return None
        return re.compile(re.escape(pattern), _MAESTRO_FLAGS).fullmatch


@lru_cache(maxsize=8192)
def matcher(pattern: str, maestro: bool = False) -> Matcher:
    """A predicate: full regex match in the dialect, else literal (case-sensitive) equality."""
    leg = regex_leg(pattern, maestro)
    if leg is None:
        return pattern.__eq__
    fn = leg

    def match(text: str) -> bool:
        return fn(text) is not None or text == pattern

    return match


def matches(pattern: str, text: str, *, maestro: bool = False) -> bool:
    """Upstream ``matchesPattern(pattern, text, dialect)``."""
    return matcher(pattern, maestro)(text)


def is_valid(pattern: str) -> bool:
    """Whether ``pattern`` compiles as a (translated) Java regex."""
    try:
        _compile(pattern, 0)
    except PatternSyntaxError:
        return False
    return True


_META = set("\\^$.|?*+()[]{}")


def escape_for_selector(value: str) -> str:
    """How the recorder writes a literal value: as-is when it has no metacharacters, else ``\\Q…\\E``."""
    if not any(ch in _META for ch in value):
        return value
    if "\\E" in value:
        return re.escape(value)
    return f"\\Q{value}\\E"


def lenient_pattern(text: str) -> str:
    """``assertNotVisibleWithText``'s pattern: case-insensitive, as regex or escaped literal."""
    quoted = escape_for_selector(text) if any(ch in _META for ch in text) else text
    if is_valid(text):
        return f"(?i)(?:{text}|{quoted})"
    return f"(?i){quoted}"
