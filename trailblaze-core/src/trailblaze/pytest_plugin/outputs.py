"""The plugins' output options on pytest (``--ctrf PATH``, declared once by ``trailblaze_output_options``)
and their values for the writers.

The options are added only when trails are asked for (``--trails`` or the ``trailblaze_trails`` ini
option): a suite that does not run trails loads no Trailblaze plugin. Each option is ``--<name>`` and
``--trailblaze-<name>``; where another pytest plugin already has ``--<name>``, only the second (which
``trailblaze run -n`` always uses).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ..results.output_request import OutputOption


def add_output_options(parser: pytest.Parser, group: pytest.OptionGroup) -> None:
    """Every plugin's output options in ``group``: ``--<name>`` and ``--trailblaze-<name>``, or only the
    second where another pytest plugin already has ``--<name>``."""
    from ..plugins import get_host

    taken = {name for option in [*parser._anonymous.options, *(o for g in parser._groups for o in g.options)]
             for name in option.names()}
    for spec, info in get_host().output_options():
        twin = f"--trailblaze-{spec.name}"
        if twin in taken:
            continue
        names = [spec.flag, twin] if spec.flag not in taken else [twin]
        kinds: dict[str, Any] = ({"action": "store_true", "default": False} if spec.kind == "flag"
                                 else {"metavar": spec.value_name, "default": None})
        group.addoption(*names, dest=_dest(spec), help=f"{spec.help} (plugin {info.name})", **kinds)


def runs_trails(config: pytest.Config, args: list[str]) -> bool:
    """Trails are asked for: ``--trails`` on the command line (``addopts`` included) or the ini option."""
    if any(arg == "--trails" or arg.startswith("--trails=") for arg in args):
        return True
    try:
        return bool(config.getini("trailblaze_trails"))
    except (ValueError, KeyError):
        return False


def _dest(spec: OutputOption) -> str:
    return "trailblaze_output_" + spec.name.replace("-", "_")


def output_values(config: pytest.Config) -> dict[str, Any]:
    """The plugins' output options given to this pytest run, by option name (paths relative to the
    directory pytest started in), for ``OutputRequest.options``."""
    from ..plugins import get_host

    values: dict[str, Any] = {}
    for spec, _info in get_host().output_options():
        value = spec.value(config.getoption(_dest(spec), None))
        if isinstance(value, Path) and not value.is_absolute():
            value = Path(config.invocation_params.dir) / value
        if value is not None:
            values[spec.name] = value
    return values
