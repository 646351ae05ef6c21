"""``trailblaze check``: validate trails and tools without starting a device."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .shared import CONTEXT_SETTINGS, handle_errors

if TYPE_CHECKING:
    from ..checks import CheckReport
    from ..config import WorkspaceConfig
    from ..driver import DriverRegistry
    from ..plugins import PluginHost
    from ..tools.codec import ToolCodec
    from ..tools.registry import ToolRegistry
    from ..trail.actors import Actor


PLUGIN_TOOL = "PluginTool"
"""The finding of a plugin's tool whose model cannot be built (the plugin's failure, not the trail's)."""


@click.command("check", context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1)
@click.option("--strict", is_flag=True, help="Treat advisories (e.g. trailmap naming) as errors.")
@click.option("--no-servers", is_flag=True, help="Do not start declared MCP tool servers (offline/static check): "
              "names only a server could serve are then warnings, not errors.")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), help="Workspace directory (default: found from the paths or the current directory).")
@handle_errors
def command(paths: tuple[str, ...], strict: bool, no_servers: bool, workspace: Path | None) -> None:
    """Validate trails and tool definitions without running a device.

    Parses every trail in PATHS (files, directories, globs), checks each recorded tool call against
    the registered tools and their argument schemas, and runs the plugins' checks (e.g. trailmap
    naming). Declared MCP tool servers are started (as for `trailblaze tools`) to learn their tools,
    so an unknown tool name is an error with the closest known name. Every registered tool's model is
    built: one that cannot be is a warning naming plugin, tool and field. Exit 0 when clean (advisories
    are printed), 3 on errors; --strict makes advisories errors, and a plugin's unbuildable tool exit 2.
    """
    sys.exit(run_check(list(paths), strict=strict, workspace=workspace, start_servers=not no_servers))


def run_check(paths: list[str], *, strict: bool = False, workspace: Path | None = None,
              start_servers: bool = True) -> int:
    """Check ``paths`` against the workspace's tools.

    With ``start_servers`` (the default) the session hooks run on a listing session, as for
    ``trailblaze tools``, so declared MCP servers start, list their tools and stop again: every tool a run
    could call is then known, and a name nobody serves is an error with a suggestion. Without it (offline
    or static use) such names stay warnings that say why.
    """
    from ..checks import CheckReport
    from ..config import find_workspace
    from ..listings.workspace_tools import workspace_tools
    from ..plugins import get_host
    from ..runner.discovery import expand

    host = get_host()
    files = expand(paths) if paths else []
    root = workspace.resolve() if workspace else find_workspace(files[0] if files else None)
    report = CheckReport(strict=strict, tools_complete=start_servers)
    with workspace_tools(root, host, start_servers=start_servers) as (config, registry, codec):
        return _check(files, host, registry, codec, report, config)


def _drivers(host: "PluginHost") -> "DriverRegistry":
    from ..driver import DriverRegistry

    drivers = DriverRegistry()
    host.register_drivers(drivers)
    return drivers


def _check(files: list[Path], host: PluginHost, registry: ToolRegistry, codec: ToolCodec,
           report: CheckReport, config: WorkspaceConfig) -> int:
    from ..errors import ExitCode, SourceLocation, TrailblazeError
    from ..memory import has_tokens
    from ..runner.driver_pins import unprovided_pins
    from ..runner.driver_settings import check_trail_driver_settings
    from ..session import suggest_tool_name
    from ..trail.args import undeclared_references
    from ..trail.parser import load_trail, locate_call

    strict = report.strict
    host.check_tools(registry, report, config)
    for _definition, error in registry.unbuildable():
        # A plugin's tool that no model can be built for: a warning, an error (exit 2) under --strict.
        report.advisory(PLUGIN_TOOL, error.message)
    for warning in registry.warnings:
        report.advisory("ToolNaming", warning)
    trails = 0
    unknown: dict[str, list[tuple[Path, SourceLocation]]] = {}
    """Tool names nobody registers (servers not started), with each call's trail and place."""
    no_model = _no_model(config, host)
    registered: list[DriverRegistry] = []  # the driver classes, imported only once a trail names a driver

    def drivers() -> DriverRegistry:
        if not registered:
            registered.append(_drivers(host))
        return registered[0]
    for path in files:
        try:
            trail = load_trail(path, strict=strict, codec=codec)
        except TrailblazeError as exc:
            report.error("TrailFormat", exc.render())
            continue
        trails += 1
        for warning in trail.warnings:
            report.advisory("TrailFormat", warning, SourceLocation(path))
        for finding in report.errors_for(trail.recorded_tool_names()):
            report.error(finding.check, f"{finding.message} (called by {path})", finding.location)
        for message, location in undeclared_references(trail):
            report.error("TrailArgs", message, location)
        unprovided = (unprovided_pins(trail, drivers())
                      if trail.config.devices or trail.config.driver else None)
        if unprovided is not None:
            report.error("NoDriver", f"{unprovided.message} ({unprovided.hint})", unprovided.location)
        for actor in trail.config.actors.values():
            missing = _actor_without_driver(actor, drivers())
            if missing is not None:
                report.error("NoDriver", missing, trail.config.actor_locations.get(actor.name))
        if trail.config.drivers:
            for problem in check_trail_driver_settings(trail, config, drivers()):
                hint = f" ({problem.hint})" if problem.hint else ""
                report.error("DriverSettings", problem.message + hint, problem.location)
        target = trail.config.target or config.defaults.target
        info = host.target_info(target, config) if target else None
        exempt = info.validation_exempt if info is not None and info.validation_exempt else None
        for step in trail.steps:
            if no_model is not None and step.kind != "tools" and (not step.recordable or not step.recordings):
                # Advisory; an error with --strict (what CI runs): the run would stop at this step.
                why = "is marked recordable: false" if not step.recordable else "has no recording"
                report.advisory("NeedsLlm", f"step {step.index + (0 if trail.trailhead else 1)} {why} and needs an "
                                f"LLM, but {no_model}", step.location or SourceLocation(path))
            for classifier, calls in (step.recordings or {}).items():
                for i, call in enumerate(calls):
                    definition = registry.get(call.name)
                    if definition is None and exempt is not None and target is not None:
                        report.exempt("UnknownTool", f"unknown tool '{call.name}'",
                                      locate_call(trail, step.index, classifier, i), target, exempt)
                        continue
                    if definition is None:
                        where = locate_call(trail, step.index, classifier, i)
                        if report.tools_complete:  # an error at each call: each is a line to fix
                            report.unknown_tool("UnknownTool", f"unknown tool '{call.name}'; "
                                                f"{suggest_tool_name(call.name, registry)}", where)
                        else:  # undecided: one warning per name, said once for every trail calling it
                            unknown.setdefault(call.name, []).append((path, where))
                        continue
                    if has_tokens(call.args):
                        continue
                    try:
                        definition.prepare(dict(call.args))
                    except ValueError as exc:
                        where = locate_call(trail, step.index, classifier, i)
                        if exempt is not None and target is not None:
                            report.exempt("ToolArguments", str(exc), where, target, exempt)
                        else:
                            report.error("ToolArguments", str(exc), where)
    for name, sites in unknown.items():
        callers = len({caller for caller, _ in sites})
        more = f" (called {len(sites)} times by {callers} trail(s); first here)" if len(sites) > 1 else ""
        report.unknown_tool("UnknownTool", f"unknown tool '{name}'; {suggest_tool_name(name, registry)}{more}",
                            sites[0][1], dedupe_key=name)
    for finding in report.findings:
        click.echo(finding.render(), err=finding.severity == "error")
    errors, advisories = len(report.errors), len(report.advisories)
    unread = f" ({len(files) - trails} could not be read)" if len(files) > trails else ""
    click.echo(f"Checked {len(files)} trail(s){unread} and {len(registry)} tool(s): {errors} error(s), "
               f"{advisories} warning(s)")
    if any(finding.check == PLUGIN_TOOL for finding in report.errors):
        return int(ExitCode.INFRASTRUCTURE)  # an installed plugin is broken, not the trails
    return int(ExitCode.BAD_INPUT) if errors else int(ExitCode.SUCCESS)


def _actor_without_driver(actor: Actor, drivers: DriverRegistry) -> str | None:
    """Why no installed driver can run ``actor`` (None when one can)."""
    if actor.driver is not None:
        cls = drivers.get(actor.driver)
        if cls is None:
            return f"actor '{actor.name}' wants driver '{actor.driver}', which no installed plugin provides " \
                   f"(installed drivers: {', '.join(drivers.keys())})"
        if cls.platform != actor.platform:
            return f"actor '{actor.name}' is on platform '{actor.platform}' but driver '{actor.driver}' drives " \
                   f"'{cls.platform}'"
        return None
    if not drivers.for_platform(actor.platform):
        return f"actor '{actor.name}' is on platform '{actor.platform}', which no installed driver drives " \
               f"(installed drivers: {', '.join(drivers.keys())})"
    return None


def _no_model(config: WorkspaceConfig, host: PluginHost) -> str | None:
    """Why no model would solve an unrecorded step (None when one is configured): ``check`` runs
    without ``--llm``, so the workspace, user files and ``TRAILBLAZE_DEFAULT_MODEL`` decide."""
    from ..errors import TrailblazeError
    from ..llm.config import NO_MODEL, chosen_model, load_settings

    try:
        ref, source = chosen_model(load_settings(config, host.llm_providers()), None)
    except TrailblazeError:
        return None  # a broken llm section is reported where the settings are used
    if ref is None:
        return ("no model is configured (--llm at run time, TRAILBLAZE_DEFAULT_MODEL, or llm.defaults.model in "
                "trails/config/trailblaze.yaml)")
    if ref.strip().lower() in NO_MODEL:
        return f"the model is set to '{ref}' ({source})"
    return None
