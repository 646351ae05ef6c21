"""Session memory and the one place tokens are interpolated (upstream §1.5).

Interpolation happens once, at the dispatch boundary, over every string in a call's arguments. Unknown
tokens stay literal (one warning each). Secret values are tracked so every log, report and recording
can redact them; the "sensitive" mark is sticky for the session.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

from .untrusted import valid_text

_TOKEN = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}|\$\{([^{}]*)\}")
_ESCAPED = re.compile(r"(\\+)(\{\{\s*[^{}]*?\s*\}\}|\$\{[^{}]*\}|\{\{|\$\{)")
"""A token or opener after backslashes: an odd count makes it literal (``\\{{x}}`` is the text ``{{x}}``)."""
_OPENER = re.compile(r"(\\*)(\{\{|\$\{)")
_ARGS_PATH = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*(\.[a-zA-Z_][a-zA-Z0-9_]*)*$")
REDACTED = "***"
T = TypeVar("T")


class UnknownTokenWarning(UserWarning):
    """A ``{{token}}`` that nothing could resolve; it is left in place literally."""


class MalformedArgsTokenError(ValueError):
    """An ``{{args.…}}`` token that is not a plain dotted path."""


class Memory:
    """Key/value memory of one session (or of every actor of a trail with several devices, which share
    it: writes are serialised by a lock, so a value one device stores is whole when another reads it),
    with sensitive (secret) keys."""

    def __init__(self, values: Mapping[str, Any] | None = None, *, args: Mapping[str, Any] | None = None) -> None:
        self._values: dict[str, str] = {}
        self._sensitive: set[str] = set()
        self._lock = threading.RLock()
        self.args: dict[str, Any] = dict(args or {})
        self._warned: set[str] = set()
        self.on_unknown_token: Callable[[str], None] | None = None
        """Where the one warning per unknown token goes (the runner prints it); default: ``warnings``."""
        self.facts: dict[str, str] = {}
        """Values tokens resolve to that are not remembered values (``run.shard_index``: where the session
        runs, ``runner/run_facts.py``): a remembered value of the same name wins, and they stay out of
        ``snapshot`` (prompts, ``dumpMemory``, tool servers' context), which show what the trail stored."""
        for k, v in (values or {}).items():
            self.remember(k, v)

    # -- seeding ------------------------------------------------------------------------------
    @classmethod
    def seeded(cls, *, config_memory: Mapping[str, Any] | None = None, cli_memory: Mapping[str, Any] | None = None,
               secrets: Mapping[str, Any] | None = None, args: Mapping[str, Any] | None = None) -> "Memory":
        """Seeding precedence: ``config.memory`` < ``--memory`` < ``--secret``."""
        mem = cls(args=args)
        for source in (config_memory or {}, cli_memory or {}):
            for k, v in source.items():
                mem.remember(k, v)
        for k, v in (secrets or {}).items():
            mem.remember(k, v, sensitive=True)
        return mem

    # -- access -------------------------------------------------------------------------------
    def remember(self, key: str, value: Any, *, sensitive: bool = False) -> None:
        with self._lock:
            if sensitive:  # marked first: a reader never sees the value of a secret as a plain one
                self._sensitive.add(key)
            self._values[key] = _as_text(value)

    def forget(self, key: str) -> None:
        with self._lock:
            self._values.pop(key, None)  # the sensitive mark survives on purpose

    def get(self, key: str) -> str | None:
        return self._values.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def is_sensitive(self, key: str) -> bool:
        return key in self._sensitive

    @property
    def sensitive_keys(self) -> frozenset[str]:
        return frozenset(self._sensitive)

    def snapshot(self, *, include_sensitive: bool = False) -> dict[str, str]:
        """The values; secrets excluded unless asked for (envelopes, prompts and logs never ask)."""
        with self._lock:
            if include_sensitive:
                return dict(self._values)
            return {k: v for k, v in self._values.items() if k not in self._sensitive}

    def secret_tokens(self, value: Any) -> list[str]:
        """The tokens in ``value``'s strings that name a secret (``{{password}}``, ``${memory.password}``)."""
        found: list[str] = []
        if isinstance(value, str):
            if "{{" in value or "${" in value:
                for match in _TOKEN.finditer(value):
                    token = (match.group(1) if match.group(1) is not None else match.group(2) or "").strip()
                    key = token[7:] if token.startswith("memory.") and token[7:] in self._sensitive else token
                    if key in self._sensitive:
                        found.append(match.group(0))
        elif isinstance(value, dict):
            for v in value.values():
                found.extend(self.secret_tokens(v))
        elif isinstance(value, list):
            for v in value:
                found.extend(self.secret_tokens(v))
        return found

    def secret_values(self) -> list[str]:
        # A copy first: the run's Redactor reads this from other threads (list() of a dict is atomic).
        items = list(self._values.items())
        return sorted({v for k, v in items if k in self._sensitive and v}, key=len, reverse=True)

    def apply_delta(self, delta: Mapping[str, Any] | None, deletions: list[Any] | None = None) -> None:
        """Apply a tool's ``memoryDelta``/``memoryDeletions``; non-string entries are skipped."""
        with self._lock:
            for k, v in (delta or {}).items():
                if isinstance(k, str) and isinstance(v, str):
                    self._values[k] = v
            for k in deletions or []:
                if isinstance(k, str):
                    self.forget(k)

    # -- interpolation ------------------------------------------------------------------------
    def interpolate(self, value: Any) -> Any:
        """Resolve tokens in every string of ``value`` (dicts and lists walked). Single pass."""
        if isinstance(value, str):
            if "{{" not in value and "${" not in value:
                return value
            return self._interpolate_str(value)
        if isinstance(value, dict):
            return {k: self.interpolate(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.interpolate(v) for v in value]
        return value

    def _interpolate_str(self, text: str) -> Any:
        whole = _TOKEN.fullmatch(text.strip()) if text.strip() == text else None
        if whole is not None:
            token = (whole.group(1) if whole.group(1) is not None else whole.group(2) or "").strip()
            if token.startswith("args."):
                found, native = self._lookup_arg(token[5:])
                if found and not isinstance(native, (dict, list)):
                    return native  # a string that is exactly one args token keeps the arg's type
        if "\\{{" in text or "\\${" in text:
            return self._interpolate_escaped(text)
        return _TOKEN.sub(self._replace, text)

    def _interpolate_escaped(self, text: str) -> str:
        """Interpolation where backslashes escape: ``\\{{`` and ``\\${`` are literal text (the backslash
        dropped), ``\\\\`` before an opener is one literal backslash (see ``escape_literal``)."""
        out: list[str] = []
        pos = 0
        for match in _ESCAPED.finditer(text):
            out.append(_TOKEN.sub(self._replace, text[pos:match.start()]))
            slashes, opener = len(match.group(1)), match.group(2)
            out.append("\\" * (slashes // 2))
            out.append(opener if slashes % 2 else _TOKEN.sub(self._replace, opener))
            pos = match.end()
        out.append(_TOKEN.sub(self._replace, text[pos:]))
        return "".join(out)

    def _replace(self, match: "re.Match[str]") -> str:
        token = (match.group(1) if match.group(1) is not None else match.group(2) or "").strip()
        if token.startswith("args."):
            found, native = self._lookup_arg(token[5:])
            if found and not isinstance(native, (dict, list)):
                return _as_text(native)
            if found:
                # Upstream defers array/object substitution: the token stays literal, with one notice.
                return self._unknown(match.group(0), token, deferred=True)
            return self._unknown(match.group(0), token)
        if token.startswith("memory."):
            # The stripped key wins; the literal key ``memory.x`` only when there is no ``x``.
            if token[7:] in self._values:
                return self._values[token[7:]]
            if token in self._values:
                return self._values[token]
            return self._unknown(match.group(0), token)
        if token in self._values:
            return self._values[token]
        if token in self.facts:
            return self.facts[token]
        return self._unknown(match.group(0), token)

    def _lookup_arg(self, path: str) -> tuple[bool, Any]:
        if not _ARGS_PATH.match(path):
            raise MalformedArgsTokenError(
                f"malformed args token '{{{{args.{path}}}}}': only dotted names are allowed, never expressions")
        node: Any = self.args
        for part in path.split("."):
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            else:
                return False, None
        return True, node

    def _unknown(self, literal: str, token: str, *, deferred: bool = False) -> str:
        if os.environ.get("TRAILBLAZE_MEMORY_BLANK_UNKNOWN_TOKENS") == "1" and not deferred:
            return ""
        if token not in self._warned:
            self._warned.add(token)
            message = f"unknown token {literal} left as is (no memory value or arg named '{token}')"
            if deferred:
                message = (f"token {literal} left as is: it names an array/object arg, and substituting "
                           "those is not supported yet")
            if self.on_unknown_token is not None:
                self.on_unknown_token(message)
            else:
                warnings.warn(message, UnknownTokenWarning, stacklevel=4)
        return literal

    # -- redaction ----------------------------------------------------------------------------
    def redact(self, value: Any) -> Any:
        """Replace secret values wherever they occur, in strings, dicts and lists."""
        if not self._sensitive:  # the common case: nothing to scan for
            return value
        secrets = self.secret_values()
        if not secrets:
            return value
        return redact(value, secrets)


def escape_literal(value: Any) -> Any:
    """``value`` with every ``{{`` and ``${`` in its strings escaped (``\\{{``), so text that came from
    a page or a device (a button named ``{{shopUrl}}``) replays as that text instead of being
    interpolated. Recorders pass page-derived arguments through it; ``Memory.interpolate`` undoes it."""
    if isinstance(value, str):
        if "{{" not in value and "${" not in value:
            return value
        return _OPENER.sub(lambda m: m.group(1) * 2 + "\\" + m.group(2), value)
    if isinstance(value, dict):
        return {k: escape_literal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [escape_literal(v) for v in value]
    return value


def has_tokens(value: Any) -> bool:
    """Whether any string in ``value`` contains a ``{{…}}`` or ``${…}`` token (resolved only at dispatch)."""
    if isinstance(value, str):
        return "{{" in value or "${" in value
    if isinstance(value, dict):
        return any(has_tokens(v) for v in value.values())
    if isinstance(value, list):
        return any(has_tokens(v) for v in value)
    return False


def redact(value: Any, secrets: list[str]) -> Any:
    """``value`` with every secret, and every spelling of it an output or an app derives, replaced by ``***``.

    Outputs encode text before it reaches a file: a report escapes HTML, JSON escapes quotes and
    non-ASCII, a URL percent-encodes, WebDriver sends typed text also as a JSON list of characters
    (``"value":["p","w"]``, which Appium logs). Apps derive spellings of their own: an upper-cased echo
    (``LOWERSECRET99``), a base64 token (``user:pass`` in a Basic header). Matching the raw value alone
    would let all of those through, so each secret is matched in every one of them, in one regex pass
    (see ``secret_pattern`` for which spellings and the length rule)."""
    return _redact(value, _pattern(tuple(secrets)))


DERIVED_MIN_LENGTH = 8
"""Secrets at least this long are also matched case-insensitively and in base64; shorter ones only as
written and in the exact encodings (HTML, JSON, URL), where a case-folded or base64 match of a short value
(``pin1``) would hide ordinary text."""


def secret_forms(secrets: Iterable[str]) -> list[str]:
    """Each secret and its exact encodings (HTML, JSON, URL), longest first so no shorter form splits a
    longer: for matching bytes (a zip's entries) where a pattern cannot run."""
    return list(_forms(tuple(secrets)))


def secret_pattern(secrets: Iterable[str]) -> "re.Pattern[str]":
    """One pattern matching every spelling of ``secrets``: as written and HTML-, JSON- and URL-encoded
    (every secret); for a secret of ``DERIVED_MIN_LENGTH`` characters or more also in any letter case
    (of each of those) and base64 of the secret as written (standard and URL-safe alphabets, padded or
    not, at any of the three byte offsets, so ``b64("user:" + secret)`` is caught). Longest first."""
    return _pattern(tuple(secrets)).pattern


@lru_cache(maxsize=64)
def _forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    # Cached: every log entry is redacted, and the secrets of a run rarely change.
    forms: set[str] = set()
    for s in secrets:
        if s:
            forms.update(_encodings(s))
    return tuple(sorted(forms, key=len, reverse=True))


def _encodings(s: str) -> set[str]:
    forms = {s, html.escape(s), html.escape(s, quote=False), json.dumps(s)[1:-1],
             json.dumps(s, ensure_ascii=False)[1:-1], quote(s, safe=""), quote_plus(s)}
    if len(s) > 1:
        chars = [json.dumps(c, ensure_ascii=False) for c in s]
        forms.update((",".join(chars), ", ".join(chars)))
    return forms


def _base64_forms(text: str) -> set[str]:
    """``text``'s UTF-8 bytes in base64 wherever they sit in the encoded stream: at offset 0 whole
    (padded and not), and at offsets 0, 1 and 2 the characters that depend on ``text`` alone."""
    data = text.encode("utf-8")
    forms: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(data).decode("ascii")
        forms.update((whole, whole.rstrip("=")))
        for offset in (0, 1, 2):
            encoded = encode(b"\0" * offset + data).decode("ascii").rstrip("=")
            first, end = -(-8 * offset // 6), 8 * (offset + len(data)) // 6
            forms.add(encoded[first:end])
    return forms


class _Spellings:
    """Every spelling of one secret set, matched in one regex pass; a string that holds none of them (the
    common case, on every log entry) is let through after substring checks, which cost a fraction of
    the pass (``str.__contains__`` is a C search, the pattern is not: ``(?i:…)`` alternatives match
    character by character)."""

    def __init__(self, secrets: tuple[str, ...]) -> None:
        exact: set[str] = set()
        folded: set[str] = set()
        for s in secrets:
            if not s:
                continue
            if len(s) < DERIVED_MIN_LENGTH:
                exact.update(_encodings(s))
                continue
            for spelling in {s, s.upper(), s.casefold()}:  # ``ß``→``SS``: more than (?i) sees
                folded.update(_encodings(spelling))
            folded.update(_base64_forms(s))
        folded = {f.lower() for f in folded}
        exact -= folded
        alternatives = sorted([(f, True) for f in folded] + [(f, False) for f in exact],
                              key=lambda item: len(item[0]), reverse=True)
        self.pattern = re.compile("|".join(f"(?i:{re.escape(f)})" if blind else re.escape(f)
                                           for f, blind in alternatives) or r"(?!)")
        self._exact = _shortest_needles(exact)
        self._folded = _shortest_needles(folded)

    def sub(self, text: str) -> str:
        for needle in self._exact:  # plain loops: a generator per string costs more than the searches
            if needle in text:
                return self.pattern.sub(REDACTED, text)
        if self._folded:
            lowered = text.lower()
            for needle in self._folded:
                if needle in lowered:
                    return self.pattern.sub(REDACTED, text)
        return text


_NEEDLE = 12
"""Characters of a form the substring check looks for: enough to rule out ordinary text, few enough that
forms sharing a beginning (a secret, its HTML and URL escapes) share one search."""


def _shortest_needles(forms: set[str]) -> tuple[str, ...]:
    """Beginnings of the forms such that a text holding none of them holds no form at all."""
    kept: list[str] = []
    for form in sorted({f[:_NEEDLE] for f in forms}, key=len):
        if not any(k in form for k in kept):
            kept.append(form)
    return tuple(kept)


@lru_cache(maxsize=64)
def _pattern(secrets: tuple[str, ...]) -> _Spellings:
    # Cached as ``_forms``: built once per secret set, then one pass per string.
    return _Spellings(secrets)


def _redact(value: Any, spellings: _Spellings) -> Any:
    if isinstance(value, str):
        return spellings.sub(value)
    if isinstance(value, dict):
        return {k: _redact(v, spellings) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v, spellings) for v in value]
    if isinstance(value, tuple):
        return tuple(_redact(v, spellings) for v in value)
    return value


class Redactor:
    """The one redaction point of a run: everything a run prints or writes passes through it.

    It knows the ``--secret`` values from the start and every session's memory as sessions open, so a
    secret a tool registers mid-run (``web_fillSecret`` with a literal value) is covered too. The
    summary, the HTML report, the console lines and the errors of ``trailblaze run`` use it; so should
    any new output (``RunResult.redact`` is the same object): call it on a value (strings, dicts,
    lists, tuples are walked) or on a whole rendered text before writing it."""

    def __init__(self, secrets: Iterable[Any] = ()) -> None:
        self._fixed = {_as_text(s) for s in secrets if _as_text(s)}
        self._memories: list[Memory] = []
        self._lock = threading.Lock()

    def watch(self, memory: "Memory") -> None:
        """Also redact every secret ``memory`` holds, now or later."""
        with self._lock:
            self._memories.append(memory)

    def unwatch(self, memory: "Memory") -> None:
        """A session ended: keep the secrets it had, let go of its memory (each call walks the memories
        watched, so a long run or ``trailblaze mcp`` must not keep every session's)."""
        with self._lock:
            self._fixed.update(memory.secret_values())
            self._memories = [m for m in self._memories if m is not memory]

    def add(self, secret: str) -> None:
        with self._lock:
            if secret:
                self._fixed.add(secret)

    def secrets(self) -> list[str]:
        with self._lock:
            values = set(self._fixed)
            for memory in self._memories:
                values.update(memory.secret_values())
        return sorted(values, key=len, reverse=True)

    def __call__(self, value: T) -> T:
        if not self._fixed:
            for memory in self._memories:
                if memory._sensitive:
                    break
            else:
                return value  # the common case, on every log entry: nothing to scan for, no lock taken
        secrets = self.secrets()
        if not secrets:
            return value
        return redact(value, secrets)  # type: ignore[no-any-return]


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return valid_text(value)  # remembered page text: valid Unicode wherever it is used next
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e16 else str(value)
    return str(value)

__all__ = [
    "DERIVED_MIN_LENGTH", "REDACTED", "Memory", "Redactor", "escape_literal", "has_tokens", "redact",
    "secret_forms", "secret_pattern",
]
