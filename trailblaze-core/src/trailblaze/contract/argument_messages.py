"""How a bad argument or setting is phrased: the same words for every tool kind and every configuration.

Tools (``tools/params.py``, ``tools/base.py``) and configuration sections (``config.py``) both report
pydantic errors this way, so this module sits below both; ``trailblaze.tools.params`` re-exports it.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError


def known_arguments_hint(known: Iterable[str]) -> str:
    """`` (known: a, b)``: the same wording for every tool kind (class, YAML, MCP) and configuration."""
    names = sorted(known)
    return f" (known: {', '.join(names)})" if names else " (it takes no arguments)"


def format_validation_error(exc: ValidationError, *, owner: str, known: Iterable[str] | None = None) -> str:
    """One line per pydantic error, phrased like the rest of our argument errors; with ``known``, an
    unknown top-level argument lists the known ones, as YAML and MCP tools' errors do."""
    parts: list[str] = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err.get("loc", ()))
        kind = err.get("type", "")
        if kind == "missing":
            parts.append(f"{owner}: missing required argument '{loc}'")
        elif kind == "extra_forbidden":
            hint = known_arguments_hint(known) if known is not None and "." not in loc else ""
            parts.append(f"{owner}: unknown argument '{loc}'{hint}")
        else:
            got = err.get("input")
            parts.append(f"{owner}: argument '{loc}': {err.get('msg', 'invalid')}, got {got!r}")
    return "; ".join(parts)


__all__ = ["format_validation_error", "known_arguments_hint"]
