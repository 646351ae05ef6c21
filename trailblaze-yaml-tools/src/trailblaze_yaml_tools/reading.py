"""``CatalogReader``: how the parts of the catalog loader read the workspace — every path they look at
recorded for the on-disk cache (``cache.py``), every bad file turned into one located error while its
siblings still load."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from trailblaze import BadInputError, SourceLocation, TrailblazeError, YamlLimits, load_yaml, read_yaml_text

from .cache import Signature, digest_listing, digest_text, is_racy, signature
from .catalog_model import Advisory, Catalog
from .packing import fast_path
from .problems import Problem, located

YAML_SUFFIXES = (".yaml", ".yml")
_UNSEEN: Any = object()


class CatalogReader:
    """The reads, watches and error records every part of one catalog load shares: what it looked at (for
    the on-disk cache) and what it found wrong (into ``catalog``'s errors and advisories)."""

    def __init__(self, catalog: Catalog, limits: YamlLimits | None = None) -> None:
        self.catalog = catalog
        self.deps: dict[str, Signature] = {}
        """Every path this load looked at (files read, directories listed, paths probed) → its stat
        signature then, so a later invocation can tell whether the result still holds (``cache.py``)."""

        self.seen: dict[str, str] = {}
        """Digests of what was read at paths modified moments ago (see ``cache.is_racy``)."""
        self.started = time.time_ns()
        self.limits = limits if limits is not None else YamlLimits.from_env()

    def watch(self, path: Path | str, listing: list[str] | None = None) -> Signature:
        key = os.fspath(path)
        found: Signature = self.deps.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = self.deps[key] = signature(key)
        if listing is not None and is_racy(found, self.started):
            self.seen[key] = digest_listing(listing)
        return found

    # errors --------------------------------------------------------------------------------------
    def fail(self, problem: Problem, text: str | None, file: Path | None, base: tuple[Any, ...] = ()) -> None:
        self.catalog.errors.append(located(problem, text, file, base))

    def fail_error(self, exc: TrailblazeError, file: Path | None) -> None:
        if exc.location is None and file is not None:
            exc.location = SourceLocation(file)
            exc.args = (exc.render(),)
        self.catalog.errors.append(exc)

    def advise(self, check: str, message: str, location: SourceLocation | None = None,
               dedupe_key: str | None = None) -> None:
        self.catalog.advisories.append(Advisory(check, message, location, dedupe_key))

    def read(self, path: Path) -> tuple[str, Any] | None:
        """(text, data) of a YAML file, or None after recording its error."""
        sig = self.watch(path)
        try:
            text = read_yaml_text(path, self.limits)
            if is_racy(sig, self.started):
                self.seen[os.fspath(path)] = digest_text(text)
            return text, load_yaml(text, path, self.limits)
        except TrailblazeError as exc:
            self.fail_error(exc, path)
            return None


def subdirs(root: Path, watch: Callable[..., Any]) -> list[Path]:
    try:
        entries = list(os.scandir(root))
    except (FileNotFoundError, NotADirectoryError):
        watch(root)
        return []
    watch(root, [e.name for e in entries])
    dirs = (fast_path(e.path) for e in entries if e.is_dir() and not e.name.startswith("."))
    return sorted(dirs, key=lambda p: p.name)


def yaml_files(root: Path, watch: Callable[..., Any], *, recursive: bool = True) -> Iterator[Path]:
    """YAML files below ``root`` (recursively, sorted, hidden entries skipped); ``watch`` sees each directory."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        watch(root)
        return
    watch(root, [e.name for e in entries])
    nested = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            nested.append(entry.path)
        elif entry.name.endswith(YAML_SUFFIXES):
            yield fast_path(entry.path)
    if recursive:
        for sub in nested:
            yield from yaml_files(Path(sub), watch)


def first_existing(root: Path, names: tuple[str, ...], watch: Callable[..., Any]) -> Path | None:
    for name in names:
        candidate = root / name
        if watch(candidate) is not None and candidate.is_file():
            return candidate
    return None


def maybe_text(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return read_yaml_text(path)
    except BadInputError:
        return None

