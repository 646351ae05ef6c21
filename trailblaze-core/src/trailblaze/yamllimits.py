"""The bounds on every YAML input (size, nesting depth, alias expansion) and the one error past them.

``yamlstream`` enforces depth and aliases while it reads events; the readers in ``yamlio`` check the size
before a byte is parsed. The environment variables that move the bounds are documented in
docs/trail-format.md ("Limits").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .errors import BadInputError, SourceLocation

ENV_MAX_BYTES = "TRAILBLAZE_YAML_MAX_BYTES"
ENV_MAX_DEPTH = "TRAILBLAZE_YAML_MAX_DEPTH"
ENV_MAX_ALIAS_NODES = "TRAILBLAZE_YAML_MAX_ALIAS_NODES"


class YamlLimitError(BadInputError):
    """A YAML input is larger, deeper or expands further through aliases than the limits allow."""


@dataclass(frozen=True)
class Limits:
    """Bounds on every YAML file Trailblaze reads (trails, tool files, trailmaps, toolsets, config).

    The defaults are far above anything written by hand or recorded (a 2,000-step trail is 300 KB and
    nests about 8 levels) and far below what hurts: parsing 10 MiB takes well under a second.
    """

    max_bytes: int = 10 * 1024 * 1024
    max_depth: int = 100
    max_alias_nodes: int = 100_000

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, raised or lowered by ``TRAILBLAZE_YAML_MAX_BYTES``/``_MAX_DEPTH``/``_MAX_ALIAS_NODES``."""
        env = os.environ
        if ENV_MAX_BYTES not in env and ENV_MAX_DEPTH not in env and ENV_MAX_ALIAS_NODES not in env:
            return _DEFAULT
        return cls(max_bytes=_env_int(ENV_MAX_BYTES, cls.max_bytes),
                   max_depth=_env_int(ENV_MAX_DEPTH, cls.max_depth, ceiling=MAX_DEPTH_CEILING),
                   max_alias_nodes=_env_int(ENV_MAX_ALIAS_NODES, cls.max_alias_nodes))


_DEFAULT = Limits()


MAX_DEPTH_CEILING = 200
"""Past this, the code that walks the data (validation, JSON, copies) would meet Python's recursion limit."""


def _env_int(name: str, default: int, *, ceiling: int | None = None) -> int:
    raw = os.environ.get(name, "").strip().replace("_", "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1 or (ceiling is not None and int(raw) > ceiling):
        most = f" of at most {ceiling}" if ceiling is not None else ""
        raise BadInputError(f"{name}={os.environ[name]!r} must be a positive whole number{most}",
                            hint=f"unset it to use the default ({default})")
    return int(raw)


def check_size(size: int, path: Path | str | None, limits: Limits, line: Callable[[], int | None]) -> None:
    """Refuse input of ``size`` bytes over the limit; ``line`` finds the line where the limit is crossed."""
    if size > limits.max_bytes:
        raise YamlLimitError(
            f"the file is {size:,} bytes; YAML input is limited to {limits.max_bytes:,} bytes "
            f"(the limit is crossed on this line)", location=SourceLocation(path, line()),
            hint=f"split it into smaller files, or raise the limit with {ENV_MAX_BYTES}=<bytes>")


__all__ = ["ENV_MAX_ALIAS_NODES", "ENV_MAX_BYTES", "ENV_MAX_DEPTH", "MAX_DEPTH_CEILING", "Limits",
           "YamlLimitError", "check_size"]
