"""What a result bundle may hold and where it may point: a bundle is untrusted input.

``merge-reports`` reads bundles that CI artifacts, other machines and other projects made, so a bundle
is checked like any outside input before anything in it is followed or kept:

- **Where it points.** Every file its manifest names (``files``) is inside the bundle: a relative path
  with no ``..`` that still lies inside the bundle once symlinks are followed. The manifest and the
  records are regular files inside it too. Anything else is refused (exit 3, one line naming the bundle
  and the entry), so a manifest cannot pull a file of the merging machine into the merged report.
- **How big it is.** A record (one line of ``results.jsonl``) is at most ``MAX_RECORD_BYTES``, the
  manifest at most ``MAX_MANIFEST_BYTES``; every string is cut at ``MAX_TEXT`` characters (64 KiB with its marker) with a
  ``[truncated: N more characters]`` marker (the cap every output file applies, ``untrusted.output_text``),
  so the merged summary, JUnit and report stay the size of the suite, not of one hostile record.
- **When it ran.** A timestamp that is not a number a clock could show (negative, NaN, infinite, past
  the year 9999) is clamped, so one record cannot crash the merge's dates.

docs/scale-out.md lists these caps; the writers keep to them (``write_bundle`` cuts strings the same way).
"""

from __future__ import annotations

import math
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated

from pydantic import AfterValidator

from ..errors import BadInputError
from ..untrusted import MAX_OUTPUT_CHARS

MAX_TEXT = MAX_OUTPUT_CHARS - 64
"""Characters a string of a bundle keeps; the rest is replaced by a marker saying how much was cut. The
marker fits in the 64 Ki characters every output file keeps (``untrusted.MAX_OUTPUT_CHARS``), so the
merged summary, JUnit and report keep a bundle's cut string whole instead of cutting it a second time."""
MAX_RECORD_BYTES = 32 * 1024 * 1024
"""Bytes one record (a line of ``results.jsonl``) may take: with every string cut at ``MAX_TEXT``, a
trail needs hundreds of steps each carrying a 64 KiB message to come near it."""
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
"""Bytes ``bundle.json`` may take (a merge of merges lists every input bundle: about 1 KB each)."""
LATEST_TIME = 253_402_300_799.0
"""9999-12-31T23:59:59Z: the latest time every date formatter shows."""


def clamp_time(value: float) -> float:
    """A timestamp (seconds since the epoch) inside ``0 … LATEST_TIME``; NaN is 0."""
    if math.isnan(value):
        return 0.0
    return min(max(value, 0.0), LATEST_TIME)


Timestamp = Annotated[float, AfterValidator(clamp_time)]
"""A bundle's timestamp field: clamped as it is read."""


def inside(root: Path, entry: str, what: str) -> Path:
    """``entry`` (a path the bundle at ``root`` names) as a path inside the bundle, or bad input naming
    the bundle and the entry when it is absolute, climbs out with ``..``, or leads out by a symlink."""
    if not entry or PurePosixPath(entry).is_absolute() or PureWindowsPath(entry).is_absolute() \
            or PureWindowsPath(entry).drive or ".." in PurePosixPath(entry.replace("\\", "/")).parts:
        raise BadInputError(f"bundle {root}: {what} {entry!r} is not a path inside the bundle",
                            hint="a bundle names its files relative to its own directory")
    path = root / entry
    contained(root, path, what)
    return path


def contained(root: Path, path: Path, what: str) -> Path:
    """``path`` with its symlinks followed, or bad input when that leaves the bundle at ``root``."""
    base = root.resolve()
    real = path.resolve()
    if real != base and base not in real.parents:
        raise BadInputError(f"bundle {root}: {what} {path.relative_to(root).as_posix()!r} is a symlink to "
                            f"{real}, outside the bundle", hint="copy the file into the bundle instead of linking it")
    return real


def regular_file(root: Path, path: Path, what: str, *, max_bytes: int | None = None) -> Path:
    """``path`` checked to be a regular file inside the bundle (not a FIFO or a device that would block
    or never end), at most ``max_bytes`` long; bad input otherwise. Missing files are left to the reader."""
    real = contained(root, path, what)
    try:
        info = real.stat()
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise BadInputError(f"bundle {root}: {what} {path.relative_to(root).as_posix()!r}: not readable ({exc})") \
            from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInputError(f"bundle {root}: {what} {path.relative_to(root).as_posix()!r} is not a regular file")
    if max_bytes is not None and info.st_size > max_bytes:
        raise BadInputError(f"bundle {root}: {what} {path.relative_to(root).as_posix()!r} is {info.st_size:,} "
                            f"bytes, over the {max_bytes // (1024 * 1024)} MiB a bundle's {what} may take")
    return path


__all__ = ["LATEST_TIME", "MAX_MANIFEST_BYTES", "MAX_RECORD_BYTES", "MAX_TEXT", "Timestamp", "clamp_time", "contained", "inside",
           "regular_file"]
