"""A problem found in one YAML file, and how it becomes a ``file:line:column: 'key': message`` error.

Files are parsed with the fast safe loader, which keeps no positions. A problem therefore carries the
key path where it was found; only when it is reported is the file re-read with positions
(``trailblaze.locate_in_yaml``). That keeps the common, error-free path as fast as a bare YAML load.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from trailblaze import BadInputError, SourceLocation

Key = str | int


class Problem(Exception):
    """Something wrong at ``path`` (a key path into the file's data) of the file being loaded."""

    def __init__(self, message: str, path: Sequence[Key] = (), *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path: tuple[Key, ...] = tuple(path)
        self.hint = hint

    def at(self, *prefix: Key) -> Problem:
        """The same problem, found inside ``prefix`` (for nested parsers that see only a subtree)."""
        self.path = (*prefix, *self.path)
        return self


class ToolFileError(BadInputError):
    """A tool, toolset, target or trailmap file that does not load; it fails alone."""


def located(problem: Problem, text: str | None, file: Path | None,
            base: Sequence[Key] = ()) -> ToolFileError:
    """Turn a ``Problem`` into an error naming file:line:column and the key."""
    path = (*base, *problem.path)
    if text is not None and file is not None:
        # imported here: this module loads with the plugin (through ``definitions``), and loading the plugin
        # for merge-reports/--help must not pay for ruamel, which only a problem's location needs
        from trailblaze import locate_in_yaml

        location = locate_in_yaml(text, list(path), file)
    else:
        location = SourceLocation(file)
    key = next((str(k) for k in reversed(path) if isinstance(k, str)), None)
    return ToolFileError(problem.message, location=location, key=key, hint=problem.hint)


def suggest(word: str, known: Sequence[str]) -> str | None:
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
