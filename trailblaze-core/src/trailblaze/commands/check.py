"""``trailblaze check``: validate trails and tools without starting a device."""

from __future__ import annotations

from pathlib import Path

import click

from ..checks import CheckReport
from ..config import find_workspace, load_workspace
from ..errors import ExitCode, SourceLocation, TrailblazeError
from ..memory import has_tokens
from ..plugins import get_host
from ..tools.registry import ToolRegistry


def run_check(paths: list[str], *, strict: bool = False, workspace: Path | None = None) -> int:
    from ..runner.discovery import expand
    from ..trail.args import undeclared_references
    from ..trail.parser import load_trail, locate_call

    host = get_host()
    files = expand(paths) if paths else []
    root = workspace.resolve() if workspace else find_workspace(files[0] if files else None)
    config = load_workspace(root, host)
    registry = ToolRegistry()
    host.register_tools(registry, config)
    report = CheckReport(strict=strict)
    host.check_tools(registry, report, config)
    for warning in registry.warnings:
        report.advisory("ToolNaming", warning)
    trails = 0
    for path in files:
        try:
            trail = load_trail(path, strict=strict, host=host, registry=registry)
        except TrailblazeError as exc:
            report.error("TrailFormat", exc.render())
            continue
        trails += 1
        for warning in trail.warnings:
            report.advisory("TrailFormat", warning, SourceLocation(path))
        for name, location in undeclared_references(trail):
            report.error("TrailArgs", f"'{{{{args.{name}}}}}' names no argument declared under config.args", location)
        for step in trail.steps:
            for classifier, calls in (step.recordings or {}).items():
                for i, call in enumerate(calls):
                    definition = registry.get(call.name)
                    if definition is None:
                        # Tools served per session (MCP servers) are not known here: advisory only.
                        report.advisory("UnknownTool", f"tool '{call.name}' is not registered in this workspace "
                                        "(it may come from a tool server started per session)",
                                        locate_call(trail, step.index, classifier, i), dedupe_key=f"{path}:{call.name}")
                        continue
                    if has_tokens(call.args):
                        continue
                    try:
                        definition.prepare(dict(call.args))
                    except ValueError as exc:
                        report.error("ToolArguments", str(exc), locate_call(trail, step.index, classifier, i))
    for finding in report.findings:
        click.echo(finding.render(), err=finding.severity == "error")
    errors, advisories = len(report.errors), len(report.advisories)
    click.echo(f"Checked {trails} trail(s) and {len(registry)} tool(s): {errors} error(s), {advisories} warning(s)")
    return int(ExitCode.BAD_INPUT) if errors else int(ExitCode.SUCCESS)


