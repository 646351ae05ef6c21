"""The ``trailblaze`` command.

Start-up is kept cheap: ``trailblaze --version`` reads entry-point metadata only, and plugins are loaded
the first time a command needs them (including to find a command a plugin adds). Every error a user
can cause ends as one line on stderr and an exit code (0 passed, 1 trail failed, 2 infrastructure,
3 bad input); ``--debug`` adds the traceback.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from ._version import version_text

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(version_text())
    ctx.exit(0)


_DEBUG_KEY = "trailblaze.debug"


def _set_debug(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_DEBUG_KEY] = True  # ``meta`` is shared by the whole context chain


def debug_enabled() -> bool:
    """``--debug`` given anywhere on the command line (before or after the subcommand), or
    ``TRAILBLAZE_DEBUG=1``: print the tracebacks behind errors."""
    ctx = click.get_current_context(silent=True)
    return os.environ.get("TRAILBLAZE_DEBUG") == "1" or bool(ctx is not None and ctx.meta.get(_DEBUG_KEY))


def _debug_option() -> click.Option:
    return click.Option(["--debug"], is_flag=True, expose_value=False, callback=_set_debug,
                        help="Print Python tracebacks for errors (also TRAILBLAZE_DEBUG=1).")


def _accept_debug(command: click.Command) -> click.Command:
    """Give ``command`` (and, for a group, its subcommands) the ``--debug`` flag, so
    ``trailblaze run … --debug`` works as ``trailblaze --debug run …`` does."""
    if not any("--debug" in getattr(p, "opts", ()) for p in command.params):
        command.params.append(_debug_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _accept_debug(sub)
    return command


class _LazyPluginGroup(click.Group):
    """Adds plugin commands on first lookup, so ``--version``/``--help`` of built-ins stay fast."""

    _plugins_host: object = None
    """The host whose plugins' commands were added; another process-wide host (tests swap hosts with
    ``installed_host``) gets its commands added on its first lookup."""

    def _load_plugin_commands(self) -> None:
        from .plugins import get_host

        host = get_host()
        if self._plugins_host is host:
            return
        self._plugins_host = host
        try:
            host.register_commands(self)
        except Exception as exc:  # noqa: BLE001 - recovery commands must keep working
            click.echo(f"trailblaze: could not load plugin commands: {exc}", err=True)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            self._load_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        return _accept_debug(command) if command is not None else None

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands()
        return super().list_commands(ctx)


def handle_errors(fn: F) -> F:
    """Turn our errors into one line and an exit code; tracebacks only with ``--debug``."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from .errors import ExitCode, TrailblazeError

        debug = debug_enabled()
        try:
            return fn(*args, **kwargs)
        except TrailblazeError as exc:
            if debug:
                traceback.print_exc()
            click.echo(f"trailblaze: error: {exc}", err=True)
            sys.exit(int(exc.exit_code))
        except KeyboardInterrupt:
            click.echo("trailblaze: interrupted", err=True)
            sys.exit(int(ExitCode.INFRASTRUCTURE))
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001
            if debug:
                traceback.print_exc()
            click.echo(f"trailblaze: internal error: {type(exc).__name__}: {exc} (run with --debug for the "
                       "traceback)", err=True)
            sys.exit(int(ExitCode.INFRASTRUCTURE))

    return wrapper  # type: ignore[return-value]


@click.group(cls=_LazyPluginGroup, context_settings=CONTEXT_SETTINGS)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version of trailblaze and of every installed plugin, then exit.")
@click.option("--debug", is_flag=True, expose_value=False, callback=_set_debug,
              help="Print Python tracebacks for errors (also TRAILBLAZE_DEBUG=1; after the subcommand too).")
def cli() -> None:
    """Trailblaze: AI-driven UI testing with recorded, replayable trails.

    A trail is a YAML file of natural-language steps, each with optional per-device recordings of
    tool calls. `trailblaze run` replays the recordings on a real browser or device (and hands
    unrecorded steps to an LLM agent when one is configured).

    \b
    Start here:
      trailblaze run examples/web-shop/trails     run trails (files, directories or globs)
      trailblaze tools --driver playwright-native list the tools a trail can call
      trailblaze check trails/                    validate trails and tool definitions
      trailblaze snapshot --url URL | -d android  what the agent sees on a page or screen
      trailblaze plugins                          list installed plugins and their status

    Exit codes: 0 passed, 1 a trail failed, 2 infrastructure failure, 3 bad input or usage.
    """


def parse_kv(values: tuple[str, ...], flag: str) -> dict[str, str]:
    from .errors import BadInputError

    out: dict[str, str] = {}
    for item in values:
        if "=" not in item:
            raise BadInputError(f"{flag} expects KEY=VALUE, got '{item}'")
        key, value = item.split("=", 1)
        if not key.strip():
            raise BadInputError(f"{flag} expects KEY=VALUE, got '{item}'")
        out[key.strip()] = value
    return out


def parse_driver_options(values: tuple[str, ...]) -> dict[str, Any]:
    """``-o headless=false -o viewport.width=800``: YAML scalars, dotted keys build nested maps."""
    from .yamlio import load_fast

    out: dict[str, Any] = {}
    for key, raw in parse_kv(values, "--driver-option").items():
        try:
            value = load_fast(raw) if raw.strip() else ""
        except Exception:  # noqa: BLE001
            value = raw
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1)
@click.option("--tags", multiple=True, metavar="A,B", help="Run only trails with one of these tags (comma list, repeatable).")
@click.option("--driver", metavar="NAME", help="Driver key or upstream name (playwright-native, PLAYWRIGHT_NATIVE, host, ...). Overrides the trail's devices.")
@click.option("-d", "--device", "devices", multiple=True, metavar="PLATFORM[/ID]",
              help="Run on this device (e.g. android/emulator-5554); repeat to run every trail on several devices in parallel.")
@click.option("-o", "--driver-option", "driver_options", multiple=True, metavar="KEY=VALUE",
              help="Driver setting, e.g. -o headless=false -o base_url=http://127.0.0.1:8000 (repeatable).")
@click.option("--headed", is_flag=True, help="Show the browser window (drivers with a 'headless' setting).")
@click.option("--memory", multiple=True, metavar="KEY=VALUE", help="Seed a memory value, usable as {{KEY}} (repeatable).")
@click.option("--secret", multiple=True, metavar="KEY=VALUE", help="Like --memory, but redacted from every log, report and recording.")
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE", help="Set a declared trail argument, usable as {{args.NAME}} (repeatable).")
@click.option("--args-file", type=click.Path(path_type=Path), help="YAML or JSON map of trail arguments (applied before --arg).")
@click.option("--output-dir", type=click.Path(path_type=Path), help="Where logs and reports go (default: ./logs).")
@click.option("--llm", metavar="PROVIDER/MODEL", help="Model for steps without a recording, e.g. openai/gpt-4.1.")
@click.option("--max-llm-calls", type=int, help="Per-step cap on model calls (default 50).")
@click.option("--self-heal/--no-self-heal", default=None, help="Let the agent re-solve a step whose recording fails (default off; TRAILBLAZE_SELF_HEAL_ENABLED).")
@click.option("--use-recorded-steps/--no-use-recorded-steps", default=None, help="Force replay, or force the agent, for every step.")
@click.option("--save-recording/--no-save-recording", default=True, help="Write recordings made by the agent back into the trail (default on).")
@click.option("--no-report", is_flag=True, help="Do not write the HTML report.")
@click.option("--no-logging", is_flag=True, help="Do not write the session event logs (summary and report are still written).")
@click.option("--log-layout", type=click.Choice(["stream", "files"]), default=None,
              help="Event log layout: one session.ndjson per session (stream, default; TRAILBLAZE_LOG_LAYOUT) "
                   "or upstream's one NNN_<Kind>.json per event (files).")
@click.option("--test-name", help="Name used in the session id.")
@click.option("--junit-xml", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="Also write a JUnit XML report (a testcase per trail and device) for CI.")
@handle_errors
def run(paths: tuple[str, ...], tags: tuple[str, ...], driver: str | None, devices: tuple[str, ...],
        driver_options: tuple[str, ...],
        headed: bool, memory: tuple[str, ...], secret: tuple[str, ...], args: tuple[str, ...],
        args_file: Path | None, output_dir: Path | None, llm: str | None, max_llm_calls: int | None,
        self_heal: bool | None, use_recorded_steps: bool | None, save_recording: bool, no_report: bool,
        no_logging: bool, log_layout: str | None, test_name: str | None, junit_xml: Path | None) -> None:
    """Run trails: replay each step's recording for the device, or hand it to the agent.

    PATHS are trail files, directories (every *.trail.yaml and trail.yaml below) or globs. Logs go to
    ./logs/<session>/, a JSON summary and an HTML report to ./logs/reports/. Several trails: the exit
    code is the worst (2 > 3 > 1 > 0).

    \b
    Examples:
      trailblaze run examples/web-shop/trails
      trailblaze run trails/login.trail.yaml --arg email=a@b.c --secret password=s3cret
      trailblaze run "trails/**/*.trail.yaml" --tags smoke --headed
    """
    from .errors import BadInputError, ExitCode
    from .runner import RunOptions
    from .runner.run import Runner

    if not paths:
        raise BadInputError("no trails given", hint="usage: trailblaze run PATH... (see trailblaze run --help)")
    options = RunOptions(
        tags=[t.strip() for group in tags for t in group.split(",") if t.strip()],
        driver=driver, devices=[d for group in devices for d in group.split(",") if d.strip()],
        driver_options=parse_driver_options(driver_options), headed=headed,
        memory=parse_kv(memory, "--memory"), secrets=parse_kv(secret, "--secret"), args=parse_kv(args, "--arg"),
        args_file=args_file, output_dir=output_dir, llm=llm, max_llm_calls=max_llm_calls,
        self_heal=self_heal, use_recorded_steps=use_recorded_steps, save_recording=save_recording,
        report=not no_report, logging=not no_logging, log_layout=log_layout, test_name=test_name, junit_xml=junit_xml,
        debug=debug_enabled(),
    )
    from .runner.interrupt import RunInterrupted, handle_signals

    try:
        with handle_signals():
            result = Runner(options).run(list(paths))
    except RunInterrupted as exc:
        # The summary and report are written; children are stopped by the sessions' cleanup.
        click.echo(f"trailblaze: {exc}: the summary and report list every trail", err=True)
        sys.exit(int(ExitCode.INFRASTRUCTURE))
    sys.exit(int(result.exit_code))


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--all", "show_all", is_flag=True, help="Include the core's built-in plugins (always in --json).")
@click.option("--hook", metavar="NAME", help="Only plugins implementing this hook (built-ins included).")
@handle_errors
def plugins(as_json: bool, show_all: bool, hook: str | None) -> None:
    """List installed plugins with version, hooks and status.

    Works even when a plugin is broken: its status says why (and how to disable it).
    """
    import json

    from .plugins import get_host

    host = get_host()
    host.probe()
    infos = host.plugins(include_builtins=show_all or as_json or bool(hook))
    if hook:
        infos = [i for i in infos if hook in i.hooks]
    if as_json:
        click.echo(json.dumps([i.to_json() for i in infos], indent=2))
        return
    if not infos:
        click.echo("No plugins installed." + ("" if show_all else " (use --all to include built-ins)"))
        return
    for info in infos:
        version = f" {info.version}" if info.version else ""
        dist = f" ({info.distribution}{version})" if info.distribution else ""
        click.echo(f"{info.name}{dist}: {info.status}")
        if info.hooks:
            click.echo(f"    hooks: {', '.join(info.hooks)}")


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (descriptors and sources).")
@click.option("--driver", metavar="NAME", help="Only tools that run on this driver (and the toolsets it enables).")
@click.option("--target", metavar="ID", help="Only tools of this target's toolsets (trailmaps).")
@click.option("--search", "-s", metavar="TEXT", help="Only tools whose name or description contains TEXT.")
@click.option("--all", "show_all", is_flag=True, help="Include tools hidden from the model (recording-only).")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), help="Workspace directory (default: found from the current directory).")
@handle_errors
def tools(as_json: bool, driver: str | None, target: str | None, search: str | None, show_all: bool,
          workspace: Path | None) -> None:
    """List the toolbox: every tool a trail or the agent can call, with its source.

    \b
    Examples:
      trailblaze tools --driver playwright-native
      trailblaze tools --search tap --json
    """
    import json

    from .toolbox import list_toolbox

    entries = list_toolbox(driver=driver, target=target, search=search, include_hidden=show_all or bool(as_json),
                           workspace=workspace)
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    if not entries:
        click.echo("No tools match.")
        return
    for e in entries:
        flags = []
        if not e["surfaceToLlm"]:
            flags.append("recording-only")
        if e["isVerification"]:
            flags.append("verification")
        if e["requiresHost"]:
            flags.append("host")
        flag_text = f" [{', '.join(flags)}]" if flags else ""
        click.echo(f"{e['name']}{flag_text}  — {e['source']}")
        desc = (e["description"] or "").strip().splitlines()
        if desc:
            click.echo(f"    {desc[0][:110]}")


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1)
@click.option("--strict", is_flag=True, help="Treat advisories (e.g. trailmap naming) as errors.")
@click.option("--no-servers", is_flag=True, help="Do not start declared MCP tool servers (offline/static check): "
              "names only a server could serve are then warnings, not errors.")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), help="Workspace directory (default: found from the paths or the current directory).")
@handle_errors
def check(paths: tuple[str, ...], strict: bool, no_servers: bool, workspace: Path | None) -> None:
    """Validate trails and tool definitions without running a device.

    Parses every trail in PATHS (files, directories, globs), checks each recorded tool call against
    the registered tools and their argument schemas, and runs the plugins' checks (e.g. trailmap
    naming). Declared MCP tool servers are started (as for `trailblaze tools`) to learn their tools,
    so an unknown tool name is an error with the closest known name. Exit 0 when clean (advisories
    are printed), 3 on errors; --strict makes advisories errors.
    """
    from .commands.check import run_check

    sys.exit(run_check(list(paths), strict=strict, workspace=workspace, start_servers=not no_servers))


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("kind", required=False, type=click.Choice(["trail", "tool", "trailmap", "toolset", "workspace"]))
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
              help="Write <kind>.schema.json files here (every kind when KIND is not given).")
@click.option("--no-servers", is_flag=True, help="Do not start declared MCP tool servers (tool names nobody else "
              "serves are then allowed, untyped).")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), help="Workspace whose tools type the tool calls (default: found from the current directory).")
@handle_errors
def schema(kind: str | None, out_dir: Path | None, no_servers: bool, workspace: Path | None) -> None:
    """Print or write JSON Schemas for editors (completion and checks while you type).

    The schemas come from the same rules the loader applies, and tool calls in trails and YAML tools are
    typed from this workspace's tools (see docs/editors.md).

    \b
    Examples:
      trailblaze schema trail > trail.schema.json
      trailblaze schema --out .vscode/schemas
    """
    from .schemas import run_schema

    for line in run_schema(kind, out_dir, workspace=workspace, start_servers=not no_servers):
        click.echo(line)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option("--driver", metavar="NAME", help="Driver key or upstream name (playwright-native, android-appium-uiautomator2, ...).")
@click.option("-d", "--device", metavar="PLATFORM[/ID]", help="Device to look at, as for `run` (e.g. android/emulator-5554, ios, web).")
@click.option("-o", "--driver-option", "driver_options", multiple=True, metavar="KEY=VALUE",
              help="Driver setting, e.g. -o viewport=390x844 or -o server_url=http://127.0.0.1:4723 (repeatable).")
@click.option("--url", metavar="URL", help="Open this page or deep link first (web: relative to the configured base_url).")
@click.option("--wait-for", metavar="TEXT", help="Wait until TEXT is on screen before taking the snapshot (exit 1 if it never is).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0), default=10.0, show_default=True,
              metavar="SECONDS", help="How long --wait-for waits.")
@click.option("--bounds", is_flag=True, help="Add each element's box {x,y,w,h} in screen pixels.")
@click.option("--offscreen", is_flag=True, help="Include elements scrolled out of view.")
@click.option("--urls", is_flag=True, help="Show link targets (web).")
@click.option("--all", "all_elements", is_flag=True, help="Everything: offscreen elements, and on devices the "
              "layout containers the compact text folds away.")
@click.option("--raw", "--playwright", "--page-source", "raw", is_flag=True,
              help="Print the platform's own description instead (Playwright's aria snapshot, Appium's page-source XML).")
@click.option("--screenshot", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="Also save a PNG screenshot of the screen to FILE.")
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False),
              help="Workspace whose drivers: settings apply (default: found from the current directory).")
@handle_errors
def snapshot(driver: str | None, device: str | None, driver_options: tuple[str, ...], url: str | None,
             wait_for: str | None, timeout_s: float, bounds: bool, offscreen: bool, urls: bool, all_elements: bool,
             raw: bool, screenshot: Path | None, headed: bool, workspace: Path | None) -> None:
    """Print what the agent sees: the compact snapshot of a page or device screen, with refs.

    The device starts exactly as in `trailblaze run` (driver choice, the workspace's drivers:
    settings, -o, -d, managed Appium server, plugin hooks) and is stopped afterwards. Use it to find
    refs, ARIA descriptors and resource ids for hand-written recordings. Without --driver/-d, a web
    URL opens a browser; otherwise the workspace's defaults.driver or the only installed driver.

    \b
    Examples:
      trailblaze snapshot --url http://127.0.0.1:8000/ --bounds
      trailblaze snapshot --url /cart --wait-for "Your cart" -o viewport=390x844
      trailblaze snapshot -d android/emulator-5554 --offscreen
      trailblaze snapshot --driver ios-appium-xcuitest --raw > screen.xml
    """
    from .commands.snapshot import SnapshotRequest, take_snapshot

    flags = {"bounds": bounds, "offscreen": offscreen, "urls": urls, "all": all_elements}
    request = SnapshotRequest(driver=driver, device=device, driver_options=parse_driver_options(driver_options),
                              url=url, wait_for=wait_for, timeout_s=timeout_s,
                              detail=frozenset(name for name, on in flags.items() if on), raw=raw,
                              screenshot=screenshot, headed=headed, workspace=workspace)
    sys.exit(take_snapshot(request))


# `trailblaze mcp`: the command module imports click only; the MCP SDK loads when the command runs.
from .mcp_server.command import make_command as _make_mcp_command  # noqa: E402
from .commands.plugin import plugin_group as _plugin_group  # noqa: E402

cli.add_command(_make_mcp_command())
cli.add_command(_plugin_group)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=argv, prog_name="trailblaze")


if __name__ == "__main__":
    main()
