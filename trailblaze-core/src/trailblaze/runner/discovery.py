"""Expanding ``trailblaze run`` arguments (files, directories, globs) into trail files."""

from __future__ import annotations

import glob
from collections.abc import Iterable
from pathlib import Path

from ..errors import BadInputError

TRAIL_SUFFIXES = (".trail.yaml", ".trail.yml")
TRAIL_NAMES = ("trail.yaml", "trail.yml")
PROPOSAL_SUFFIXES = (".healed.trail.yaml", ".healed.trail.yml")
"""A healed recording that its proving replay did not pass, saved beside its trail (``runner/heal_check.py``):
not a trail of the suite, so a directory never yields it; named on the command line it runs like any."""


def is_trail_file(path: Path) -> bool:
    return (path.name in TRAIL_NAMES or path.name.endswith(TRAIL_SUFFIXES)) and not is_proposal(path)


def is_proposal(path: Path) -> bool:
    """``login.healed.trail.yaml``: a proposal for ``login.trail.yaml``, not a trail of its own."""
    return path.name.endswith(PROPOSAL_SUFFIXES)


def proposal_path(path: Path) -> Path:
    """``login.trail.yaml`` → ``login.healed.trail.yaml`` (``trail.yaml`` → ``trail.healed.trail.yaml``)."""
    name = path.name
    for suffix in (*TRAIL_SUFFIXES, ".yaml", ".yml"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return path.with_name(name + PROPOSAL_SUFFIXES[0])


def expand(paths: Iterable[str]) -> list[Path]:
    """Files are taken as given; directories yield every ``*.trail.yaml``/``trail.yaml`` below them
    (``trails/config`` excluded); globs are expanded. Order is stable and duplicates are dropped."""
    found: list[Path] = []
    for raw in paths:
        matches = [Path(p) for p in sorted(glob.glob(raw, recursive=True))] if glob.has_magic(raw) else [Path(raw)]
        if not matches:
            raise BadInputError(f"no trail matches '{raw}'")
        for path in matches:
            if path.is_dir():
                below = sorted(p for p in path.rglob("*") if p.is_file() and is_trail_file(p)
                               and "config" not in p.relative_to(path).parts[:-1])
                if not below:
                    raise BadInputError(f"no trail files (*.trail.yaml or trail.yaml) under {path}")
                found.extend(below)
            elif path.is_file():
                found.append(path)
            else:
                raise BadInputError(f"file not found: {path}")
    seen: set[Path] = set()
    unique = []
    for p in found:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def nothing_tagged(tags: Iterable[str], files: int) -> BadInputError:
    """``--tags`` that select none of the trails given: bad input (exit 3) with and without ``-n``, as
    paths that hold no trail are, rather than a green run that tested nothing."""
    return BadInputError(f"--tags {','.join(tags)} selected none of the {files} trail file(s) given",
                         hint="a trail's tags are its 'config: tags:' list; "
                              "leave --tags out to run every trail")
