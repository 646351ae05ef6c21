"""The plugin contract: every hook a ``trailblaze`` plugin may implement.

Plugins implement hooks with ``@trailblaze.hookimpl`` in a module registered under the entry-point
group ``trailblaze``. Implementations may accept any subset of a hook's arguments, so adding an argument
later breaks nobody. Built-in plugins are registered first, then installed plugins, so an installed
plugin's ``firstresult`` implementation runs before the built-in fallback (pluggy calls LIFO).

Every hook is called through pluggy, so ``wrapper=True``/``hookwrapper=True``, ``tryfirst``/``trylast``
and ``TRAILBLAZE_TRACE_PLUGINS`` hold on each of them; what a plugin's implementation (a wrapper's
included) contributes is credited to that plugin (``trailblaze.host.dispatch``).

``docs/hooks.md`` documents each hook; a test keeps the two in step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .contract.markers import hookspec

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from .checks import CheckReport
    from .config import WorkspaceConfig
    from .context import ToolContext
    from .driver import DriverRegistry
    from .files import OutputWriteError
    from .results.output_request import OutputOption, OutputRequest
    from .plugin_info import PluginQueries
    from .results.model import RunResult, TrailResult
    from .session import Session, SessionOutcome
    from .targets import TargetInfo
    from .tools.base import ToolCall, ToolDefinition, ToolResult
    from .tools.descriptors import ToolDescriptor
    from .tools.registry import ToolRegistry

CONTRACT_VERSION: tuple[int, int] = (1, 3)
"""The version of this contract, ``(major, minor)``; also ``trailblaze.CONTRACT_VERSION``.

The minor number grows when a hook or a hook argument is added, or a hook or a public name is deprecated
(it still works, with a warning); the major number grows when a deprecated one is retired. A published
plugin written for ``(1, n)`` keeps working on every ``(1, m)``. 1.2 made ``trailblaze.__all__`` the
public API and deprecated the submodule paths 1.1 called public; 1.3 added ``trailblaze_output_options``
and called ``trailblaze_write_run_outputs`` once per run, in the process that has every result. The policy, step by step, and the list
of deprecations are in ``docs/hooks.md`` ("Contract version and deprecation policy")."""


# -- discovery -----------------------------------------------------------------------------------
@hookspec
def trailblaze_register_tools(registry: "ToolRegistry", config: "WorkspaceConfig",
                              host: "PluginQueries") -> None:
    """Add tool definitions to a session's registry.

    Called once per registry with every plugin. Tools added here are attributed to the calling plugin
    (in a wrapper, before or after its ``yield`` too), so conflict errors and ``trailblaze tools`` can
    name it. An invalid tool name, or one another plugin already registered, is this plugin's failure.

    :param registry: the registry to fill; use ``registry.add_tool(ToolClass)`` for class-backed tools
        or ``registry.add(definition)`` for any ``ToolDefinition``.
    :param config: the workspace configuration (root directory, parsed ``trailblaze.yaml``).
    :param host: what this plugin may ask of the others while registering (packaged trailmap
        directories, ``script:`` tool factories, tool decoding, the plugin set); ``PluginQueries`` is
        the narrow face of the plugin host, so the contract does not name the host itself.
    """


@hookspec
def trailblaze_trailmap_dirs() -> "list[Path] | None":
    """Directories of packaged trailmaps this plugin ships as package data.

    Each path is a *trailmaps root* laid out like a workspace's ``trails/config/trailmaps/``: every
    subdirectory ``<id>/`` is one trailmap (``trailmap.yaml``, ``tools/``, ``toolsets/``...). The plugin
    that reads trailmaps (``trailblaze-yaml-tools``) loads them; a workspace trailmap with the same id
    shadows a packaged one wholesale. Return paths that exist inside your installed package.

    :return: a list of directories, or None.
    """


@hookspec(firstresult=True)
def trailblaze_script_tools(spec: Any, config: "WorkspaceConfig") -> "list[ToolDefinition] | None":
    """Turn a ``script:`` tool declaration into tool definitions. ``firstresult``.

    Called by the plugin that reads tool files (``trailblaze-yaml-tools``) for every ``script:`` tool
    file, scripted-tool descriptor and trailmap ``mcp_servers`` entry; the plugin that runs scripts as
    tool servers (``trailblaze-mcp-subprocess``) answers. None from every plugin means nobody can run
    scripts, and the caller reports which distribution to install. The contract (the fields of
    ``spec``) is written down in ``trailblaze-yaml-tools/SCRIPT_HANDOFF.md``.

    :param spec: a ``trailblaze_yaml_tools.script.ScriptToolSpec``: the script path, runtime, declared
        tools (names, descriptions, JSON Schemas, flags), owning trailmap, file and line.
    :param config: the workspace configuration.
    :return: one definition per declared tool (may be empty for a server whose tools are listed at
        session start), or None to pass.
    """


@hookspec
def trailblaze_register_drivers(registry: "DriverRegistry") -> None:
    """Add driver classes (subclasses of ``trailblaze.Driver``) with ``registry.add_driver(cls)``.

    :param registry: the process-wide driver registry.
    """


@hookspec
def trailblaze_config_sections() -> "dict[str, type[Any]] | None":
    """Claim top-level keys of ``trails/config/trailblaze.yaml``.

    Return ``{key: PydanticModel}``; the core validates each claimed section with its model (errors
    name file, line and key) and rejects keys nobody claimed.

    :return: a mapping of section name to a pydantic model class, or None.
    """


# -- descriptors and serialization (the contract: every tool takes these paths) -------------------
@hookspec(firstresult=True)
def trailblaze_tool_descriptor(definition: "ToolDefinition", provider: "str | None") -> "ToolDescriptor | None":
    """Describe a tool for a model or an MCP client. ``firstresult``.

    Every descriptor the agent, ``trailblaze tools`` or an MCP client sees comes from this hook. The
    plugin owning the definition's kind answers (YAML tools, MCP tools); the core answers last for
    everything else. A wrapper (``@hookimpl(wrapper=True)``) can adjust whatever the owner produced,
    e.g. reword a description for one model provider.

    :param definition: the tool definition to describe.
    :param provider: the model provider type the descriptor is for (``openai``, ``anthropic``, ...),
        or None when it is not for a model (``trailblaze tools``, MCP clients).
    :return: a ``ToolDescriptor``, or None to let the next plugin answer.
    """


@hookspec(firstresult=True)
def trailblaze_decode_tool(name: str, args: "dict[str, Any]", registry: "ToolRegistry | None") -> "ToolCall | None":
    """Decode one tool call read from a trail, a tool body or a log. ``firstresult``.

    Every recorded call the core reads goes through this hook. ``name`` is the name as written; for
    upstream's legacy JSON form ``{"class": "<Kotlin FQCN>", ...fields}`` it is the class name, which
    the plugin owning that tool maps to its own name (the web plugin maps
    ``xyz.block.trailblaze.playwright.tools.PlaywrightNativeClickTool`` to ``web_click``). The core
    answers last: a ``ToolCall`` for a registered name, else an ``OtherTool`` resolved at dispatch.

    :param name: the tool name (or legacy class name) as written.
    :param args: the raw arguments as written.
    :param registry: the session or workspace registry when one exists, else None.
    :return: a ``ToolCall``, or None to let the next plugin answer.
    """


@hookspec(firstresult=True)
def trailblaze_encode_tool(call: "ToolCall") -> "dict[str, Any] | None":
    """Encode one tool call for a recording written into a trail (``{name: args}``). ``firstresult``.

    Every call the core writes back (agent recordings, self-heal, ``step --save``, the session's
    ``recording.trail.yaml``) goes through this hook; the core answers last with ``{name: args}``.

    :param call: the call to encode.
    :return: a one-key map ``{name: args}``, or None to let the next plugin answer.
    """


# -- execution ------------------------------------------------------------------------------------
@hookspec(firstresult=True)
def trailblaze_execute_tool(call: "ToolCall", definition: "ToolDefinition", prepared: Any,
                            context: "ToolContext") -> "ToolResult | list[ToolCall] | None":
    """Execute one tool call. ``firstresult``.

    The dispatcher makes every call through this hook: the plugin owning the definition's kind
    answers (YAML tools expand into calls, MCP tools call their server); the core answers last with
    ``definition.invoke`` (class tools). A wrapper (``@hookimpl(wrapper=True)``) sees every call of
    every kind, so it can time, retry or veto calls without touching any driver.

    :param call: the call after memory interpolation.
    :param definition: the registered definition for ``call.name``.
    :param prepared: the validated arguments (a dict, or a ``Tool`` instance for class tools).
    :param context: the running tool context.
    :return: a ``ToolResult``, a list of ``ToolCall`` (the call delegates to them), or None to let
        the next plugin answer.
    """


@hookspec
def trailblaze_filter_tools(session: "Session", tools: "list[ToolDefinition]") -> "list[ToolDefinition] | None":
    """Narrow the tools a session offers (to the model and in ``trailblaze tools``) to its toolsets.

    Every implementation that returns a list narrows the set further (the results are intersected);
    return None to leave it alone. Dispatch of recorded calls is not affected: a recording may call
    any registered tool that supports the session's driver.

    :param session: the running session (driver, device, target, workspace).
    :param tools: the candidate definitions, already filtered by driver and platform.
    :return: the subset to keep, or None.
    """


# -- targets --------------------------------------------------------------------------------------
@hookspec(firstresult=True)
def trailblaze_target_info(target: str, config: "WorkspaceConfig") -> "TargetInfo | None":
    """Describe the target (app under test) ``target`` of a workspace. ``firstresult``.

    Drivers and the agent read the answer as ``session.target_info`` (the web driver's base URL, the
    agent's target system prompt), so they never import the plugin that knows targets.
    ``trailblaze-yaml-tools`` answers from trailmaps and ``targets:``.

    :param target: the target id (the trail's ``config.target`` or the workspace default).
    :param config: the workspace configuration.
    :return: a ``trailblaze.targets.TargetInfo``, or None when this plugin does not know the target.
    """


# -- checks ---------------------------------------------------------------------------------------
@hookspec
def trailblaze_check_tools(registry: "ToolRegistry", report: "CheckReport", config: "WorkspaceConfig") -> None:
    """Inspect the registered tools and add findings (errors or advisories) to ``report``.

    Run by ``trailblaze check`` and before every ``trailblaze run``.

    :param registry: the fully populated registry.
    :param report: where findings go: ``report.error(...)``, ``report.advisory(...)``.
    :param config: the workspace configuration.
    """


# -- lifecycle ------------------------------------------------------------------------------------
@hookspec
def trailblaze_session_started(session: "Session") -> None:
    """A session's driver has started; set up per-session resources (spawn tool servers, ...).

    Raise ``InfrastructureError`` to fail the session (exit 2).

    :param session: the session; its ``registry`` may still be extended here.
    """


@hookspec
def trailblaze_session_finished(session: "Session", outcome: "SessionOutcome") -> None:
    """A session ended, successfully or not; release what ``trailblaze_session_started`` acquired.

    Called even when the session failed or was interrupted, last started first (the reverse of
    ``trailblaze_session_started``'s order); one implementation raising does not stop the others (its
    error becomes a warning naming the plugin). Must not raise.

    :param session: the session.
    :param outcome: how it ended.
    """


# -- run outputs ----------------------------------------------------------------------------------
@hookspec
def trailblaze_output_options() -> "list[OutputOption] | None":
    """The command-line options of this plugin's output format, declared once for every command that
    writes outputs: ``trailblaze run`` (``-n`` included), ``trailblaze merge-reports`` and the pytest
    plugin (with ``--trails``) each offer ``--<name>`` with its help text (pytest also
    ``--trailblaze-<name>``), and the writers read the values as ``request.option(name)``.

    Called once per process. A name another option of the command already has, or another plugin
    declared first, is left out with one line naming the plugin. (Since contract 1.3.)

    :return: ``trailblaze.OutputOption`` s (``OutputOption("ctrf", "Also write a CTRF JSON report there.")``),
        or None.
    """


@hookspec
def trailblaze_check_run_outputs(request: "OutputRequest") -> None:
    """Refuse, before any device starts, an output this run asked for and cannot write.

    Called once per ``trailblaze run`` (and per pytest process) right after the output directory is
    checked, so a run whose report cannot be written fails in a second instead of after minutes of
    trails. The core's JUnit, Allure, HTML and bundle writers answer it (``builtin.outputs``).

    :param request: the outputs asked for (``--junit-xml``, ``--alluredir``, the HTML report) and the
        output directory.
    :raises BadInputError: naming the option and what is wrong with it (exit 3).
    """


@hookspec
def trailblaze_write_run_outputs(result: "RunResult", request: "OutputRequest") -> "list[OutputWriteError] | None":
    """Write a finished run's outputs (reports, result files) from its ``RunResult``.

    Called once per run with the whole run's results, by the process that has them all: ``trailblaze
    run`` (each ``--shard`` is a run of its own), pytest without xdist, the xdist controller after it
    merged its workers (``run -n``, ``pytest --trails -n``) and ``trailblaze merge-reports``; never in an
    xdist worker (only the core writes the worker's own bundle there). Signals are deferred so no file
    is left half-written. Write each file whole (``trailblaze.write_new``/``write_atomic``), pass outside
    text through ``result.redact``, read your options with ``request.option(name)`` and your
    ``trailblaze.yaml`` section with ``request.section(name)``. Return the files you could not write
    (``OutputWriteError``): each is one line and the run exits 2. Writers are isolated from each other:
    one that raises is one line naming its plugin, every other output is still written, exit 2. The
    core's answer (``builtin.outputs``) writes the JUnit XML, the Allure results, the HTML report
    (setting ``result.report_path``) and then the result bundle; in the controller and in
    ``merge-reports`` those are merged from the bundles before the plugins' writers are called.

    :param result: the run, already redacted where it holds outside text.
    :param request: the outputs asked for and the run's output directory and bundle context.
    :return: the files this plugin could not write (``OutputWriteError``), or None.
    """


@hookspec
def trailblaze_trail_finished(trail: "TrailResult", request: "OutputRequest", redact: Any) -> None:
    """A trail ended on one device, every attempt done: keep an output current while the run goes on.

    Called by ``trailblaze run`` and the pytest plugin (each process, each xdist worker) as each trail
    ends, from the thread that ran it (one thread per ``-d`` device), before the trail's history is
    stored. The core appends the trail's attempts to the run's result bundle (``builtin.outputs``), so a
    run killed later still leaves every trail it finished; ``trailblaze_write_run_outputs`` still writes
    every output whole at the end. Be quick, and do not raise: what cannot be written now is written at
    the end. (Since contract 1.2.)

    :param trail: the trail's last attempt, the earlier ones in ``trail.attempts``.
    :param request: the run's outputs, output directory and bundle context (its run id).
    :param redact: the run's redaction: pass every outside text through it before writing.
    """


@hookspec(firstresult=True)
def trailblaze_run_durations(source: "Path") -> "dict[str, float] | None":
    """Seconds per trail × device of an earlier run, which ``--shard`` balances by (``--durations``).

    The first plugin that can read ``source`` answers; the core reads result bundles, JSON summaries and
    the results store (``builtin.outputs``). A ``source`` that does not exist yet (a CI's first run) has
    no durations: return an empty mapping; the run then shards by count.

    :param source: the ``--durations`` path.
    :return: seconds keyed by ``runner.shards.pair_key`` (and by trail key), or None when this plugin
        does not read such a file.
    :raises BadInputError: ``source`` is of this plugin's kind but unreadable (exit 3).
    """


# -- CLI ------------------------------------------------------------------------------------------
@hookspec
def trailblaze_register_commands(cli: "click.Group") -> None:
    """Add subcommands to the ``trailblaze`` command: ``cli.add_command(my_command)``.

    :param cli: the root click group.
    """


# -- LLM ------------------------------------------------------------------------------------------
@hookspec
def trailblaze_register_llm_providers(registry: Any) -> None:
    """Add LLM provider types (``openai``, ``anthropic``, ...) with ``registry.add_provider(cls)``.

    :param registry: the provider registry.
    """


# -- authoring ------------------------------------------------------------------------------------
@hookspec
def trailblaze_json_schemas() -> "dict[str, dict[str, Any]] | None":
    """JSON Schemas of the files and ``trailblaze.yaml`` sections this plugin reads, for editors.

    ``trailblaze schema`` merges them with the core's (trail files, ``defaults``, ``drivers``) so that
    editors complete and flag keys exactly as the loader would. Build them from the models your loader
    validates with (``Model.model_json_schema()``), so the two never drift apart. Where a file holds tool
    calls (a YAML tool's body), write ``{"$ref": "#/$defs/toolCall"}``: the core fills it in from the
    installed tools' descriptors.

    :return: schemas keyed by file kind (``tool``, ``trailmap``, ``toolset``, ``target``) or by
        workspace section (``workspace.mcpServers``), or None.
    """
