"""Docstrings as models read them: reStructuredText markup turned into plain text.

A class tool's docstring is its description, and Python docstrings are written in reST (````code````,
``:class:`Foo```, ```link <url>`_``, ``Example::``). Models are shown the text, not the markup, so the
description is the same sentence a human reads in the rendered docs.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r":[\w:.+-]+:`([^`]+)`")
_LINK = re.compile(r"`([^`<]+?)\s*<([^`>]+)>`__?")
_REF = re.compile(r"`([^`]+)`__?")
_LITERAL = re.compile(r"``([^`]+)``")
_DEFAULT_ROLE = re.compile(r"(?<![\w`])`([^`]+)`(?![\w`])")
_STRONG = re.compile(r"\*\*([^*\n]+)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*([^*\s][^*\n]*?)\*(?![\w*])")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w-]+)::\s*(.*)$")
_ADMONITIONS = {"note", "warning", "tip", "important", "caution", "hint", "attention", "danger", "seealso"}


def _role(match: re.Match[str]) -> str:
    text = match.group(1)
    titled = re.match(r"(.+?)\s*<[^>]+>$", text)
    if titled:
        return titled.group(1)
    text = text.lstrip("!")
    return text.rsplit(".", 1)[-1] if text.startswith("~") else text


def plain_text(text: str) -> str:
    """``text`` without reST inline markup and directives; paragraphs and line breaks are kept."""
    if not text or not any(c in text for c in "`*:"):
        return text
    lines: list[str] = []
    for line in text.splitlines():
        directive = _DIRECTIVE.match(line)
        if directive:
            indent, name, rest = directive.groups()
            if name.lower() in _ADMONITIONS:
                label = "See also" if name.lower() == "seealso" else name.capitalize()
                line = f"{indent}{label}: {rest}".rstrip()
            else:
                continue  # code-block, versionadded...: the content below stays, the directive line goes
        if line.strip() == "::":
            continue
        if line.rstrip().endswith("::"):
            line = line.rstrip()[:-1]  # "Example::" introduces a literal block: "Example:"
        line = _ROLE.sub(_role, line)
        line = _LINK.sub(r"\1 (\2)", line)
        line = _LITERAL.sub(r"\1", line)
        line = _REF.sub(r"\1", line)
        line = _DEFAULT_ROLE.sub(r"\1", line)
        line = _STRONG.sub(r"\1", line)
        line = _EMPHASIS.sub(r"\1", line)
        lines.append(line)
    return "\n".join(lines).strip()
