"""Where secrets come from besides ``--secret KEY=VALUE``: the environment and a secrets file.

A value on the command line is visible to every user of the machine (``ps``, ``/proc/*/cmdline``) and
lands in shell history and in agent configs that teams commit; ``--secret-env`` and ``--secrets-file``
keep the value out of argv and out of any committed file. Every source feeds the same ``secrets``
mapping, so a value from any of them is redacted wherever a ``--secret`` value is.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import BadInputError, SourceLocation

_SCALARS = (str, int, float, bool)


def gather_secrets(*, pairs: Mapping[str, str] | None = None, env_names: Iterable[str] = (),
                   files: Iterable[Path | str] = (), env: Mapping[str, str] | None = None,
                   env_flag: str = "--secret-env", file_flag: str = "--secrets-file") -> dict[str, str]:
    """One secrets mapping: the files first, then the environment, then ``--secret`` pairs (the most
    explicit source wins). ``env_flag``/``file_flag`` name the option in errors (the pytest plugin spells
    them ``--trailblaze-…``)."""
    found: dict[str, str] = {}
    for file in files:
        found.update(load_secrets_file(Path(file), flag=file_flag))
    found.update(secrets_from_env(env_names, os.environ if env is None else env, flag=env_flag))
    found.update(pairs or {})
    return found


def secrets_from_env(names: Iterable[str], env: Mapping[str, str], *,
                     flag: str = "--secret-env") -> dict[str, str]:
    """``NAME`` reads the variable NAME; ``NAME=VAR`` reads VAR into the secret NAME."""
    out: dict[str, str] = {}
    for item in names:
        name, _, var = item.partition("=")
        name, var = name.strip(), (var.strip() or name.strip())
        if not name or not var:
            raise BadInputError(f"{flag} expects NAME or NAME=ENVVAR, got '{item}'")
        if var not in env:
            raise BadInputError(f"{flag} {item}: the environment variable {var} is not set",
                                hint=f"export {var}=... before running, or drop the option")
        out[name] = env[var]
    return out


def load_secrets_file(path: Path, *, flag: str = "--secrets-file") -> dict[str, str]:
    """A YAML or JSON map of secret names to values, from a file only its owner (and group) can read."""
    from .yamlio import load_fast, locate_in_text, read_text

    try:
        info = path.stat()
    except OSError as exc:
        raise BadInputError(f"{flag} {path}: cannot read it ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInputError(f"{flag} {path}: not a regular file")
    if info.st_mode & stat.S_IROTH:
        raise BadInputError(f"{flag} {path}: the file is readable by every user of this machine "
                            f"(mode {stat.filemode(info.st_mode)}); secrets files must not be",
                            hint=f"chmod 600 {path}")
    text = read_text(path)
    data: Any
    if path.suffix == ".json" and text.strip():
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BadInputError(f"{flag}: invalid JSON: {getattr(exc, 'msg', exc)}",
                                location=SourceLocation(path, getattr(exc, "lineno", None),
                                                        getattr(exc, "colno", None))) from None
    else:
        data = load_fast(text, path)
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise BadInputError(f"{flag}: expected a map of secret names to values, got {type(data).__name__}",
                            location=SourceLocation(path, 1, 1))
    out: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not key.strip() or not isinstance(value, _SCALARS):
            where = locate_in_text(text, [str(key)], path)
            raise BadInputError(f"{flag}: the secret '{key}' must be a name with a text value "
                                f"(got {type(value).__name__})", location=where, key=str(key))
        out[key.strip()] = str(value).lower() if isinstance(value, bool) else str(value)
    return out
