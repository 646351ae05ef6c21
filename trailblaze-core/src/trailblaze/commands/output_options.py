"""The plugins' output formats on the command line and where a whole run's results are merged.

A plugin declares the options of its format once (``trailblaze_output_options``); this module puts them
on ``trailblaze run`` and ``trailblaze merge-reports`` (the pytest plugin adds its own twins from the
same declarations), hands their values to the writers (``OutputRequest.options``), and calls the
plugins' writers where a run's results come together from bundles: ``merge-reports`` and the xdist
controller (``pytest_plugin/workers.py``). A plugin's format is so written once per run, by the process
that has every result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..errors import InfrastructureError
    from ..plugins import PluginHost
    from ..report.merged import Merged
    from ..results.output_request import BundleContext, OutputOption

_VALUES = "trailblaze.output_options"
"""Where the given values wait in ``ctx.meta`` (shared by the whole context chain) for the command."""


class PluginOutputOption(click.Option):
    """A plugin's output option on a command: its value goes to ``ctx.meta``, not to the command's
    arguments, so the commands' signatures do not depend on what is installed."""

    def __init__(self, spec: OutputOption, plugin: str) -> None:
        self.spec = spec
        self.plugin = plugin
        kinds: dict[str, Any] = {
            "path": {"type": click.Path(path_type=Path), "metavar": spec.value_name},
            "text": {"type": str, "metavar": spec.value_name},
            "flag": {"is_flag": True},
        }
        super().__init__([spec.flag], expose_value=False, callback=_keep, help=f"{spec.help} (plugin {plugin})",
                         **kinds[spec.kind])


def _keep(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    assert isinstance(param, PluginOutputOption)
    given = param.spec.value(value)
    if given is not None:
        ctx.meta.setdefault(_VALUES, {})[param.spec.name] = given


def add_output_options(command: click.Command, host: PluginHost, warn: Any = None) -> None:
    """Give ``command`` the output options of ``host``'s plugins (again, when tests swap hosts); a flag
    the command already has is left out with one line naming the plugin."""
    if getattr(command, "_output_options_host", None) is host:
        return
    command.params = [p for p in command.params if not isinstance(p, PluginOutputOption)]
    taken = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    for spec, info in host.output_options():
        if spec.flag in taken:
            (warn or _stderr)(f"trailblaze: plugin '{info.name}' declared the output option {spec.flag}, which "
                              f"`trailblaze {command.name}` already has; left out")
            continue
        command.params.append(PluginOutputOption(spec, info.name))
    command._output_options_host = host  # type: ignore[attr-defined]


def _stderr(line: str) -> None:
    click.echo(line, err=True)


def given_output_options() -> dict[str, Any]:
    """The plugins' output options given to the running command, by option name."""
    ctx = click.get_current_context(silent=True)
    return dict(ctx.meta.get(_VALUES, {})) if ctx is not None else {}


def pytest_output_args(values: Mapping[str, Any]) -> list[str]:
    """``values`` on a pytest command line (``trailblaze run -n``): through the ``--trailblaze-<name>``
    twins the pytest plugin adds, which no other pytest plugin's option can shadow."""
    args: list[str] = []
    for name, value in values.items():
        if value is True:
            args.append(f"--trailblaze-{name}")
        elif value is not None:
            args += [f"--trailblaze-{name}", str(Path(value).resolve()) if isinstance(value, Path) else str(value)]
    return args


def write_merged_outputs(merged: Merged, context: BundleContext, host: PluginHost, *,
                         junit_xml: Path | None, report: bool, options: Mapping[str, Any],
                         interrupted: str | None = None) -> Sequence[InfrastructureError]:
    """The plugins' formats of a run whose core outputs ``merge_bundles`` just wrote (summary, JUnit,
    report, bundle): each writer gets the whole run, as a plain run's writers get theirs; what failed
    comes back, one error each, for the caller to show (exit 2)."""
    from ..config import current_workspace_config
    from ..report.merge import merged_run
    from ..results.output_request import OutputRequest

    if not host.outputs.plugins_write():
        return []
    run = merged_run(merged)
    run.interrupted = interrupted
    request = OutputRequest(merged.output_dir, context, junit_xml=junit_xml, html_report=report,
                            options=dict(options), config=current_workspace_config(host))
    return host.write_run_outputs(run, request, writers="plugins")


__all__ = ["PluginOutputOption", "add_output_options", "given_output_options",
           "pytest_output_args", "write_merged_outputs"]
