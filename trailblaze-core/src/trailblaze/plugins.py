"""The plugin host: loads plugins once per process and offers a typed facade over ``pm.hook``.

Entry points of the group ``trailblaze`` are loaded one at a time, so one broken plugin costs one
stderr line, not the CLI. Switches (environment variables):

* ``TRAILBLAZE_DISABLE_PLUGINS=a,b`` blocks plugins by entry-point name; ``a@dist`` blocks only the
  distribution ``dist``'s entry point ``a`` (for two distributions declaring the same name).
* ``TRAILBLAZE_LOAD_PLUGINS=a,b`` loads only these installed plugins (empty string: none; ``a@dist`` too).
* ``TRAILBLAZE_STRICT_PLUGINS=1`` turns a plugin that fails to load into a fatal error (exit 2).
* ``TRAILBLAZE_TRACE_PLUGINS=1`` prints every hook call and result to stderr.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from .errors import PluginHookError, PluginToolError, TrailblazeError
from .host.dispatch import Ledger, plugin_failed
from .host.loader import DEFAULT_PLUGINS, PluginLoader, installed_entry_points  # noqa: F401 - re-exported
from .host.outputs import OutputWriters
from .plugin_info import PluginInfo, PluginQueries  # noqa: F401 - PluginQueries: the type the contract names
from .tools.base import ToolSource
from .tools.codec import ToolCodec

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from .checks import CheckReport
    from .config import WorkspaceConfig
    from .context import ToolContext
    from .driver import DriverRegistry
    from .errors import InfrastructureError
    from .results.output_request import OutputOption, OutputRequest
    from .results.model import RunResult, TrailResult
    from .session import Session, SessionOutcome
    from .llm.registry import LlmProviderRegistry
    from .targets import TargetInfo
    from .tools.base import ToolCall, ToolDefinition, ToolResult
    from .contract.sources import Contributions
    from .tools.descriptors import ToolDescriptor
    from .tools.registry import ToolRegistry


class PluginHost:
    """The typed facade over ``pm.hook``: every hook call in the code base goes through a method here.

    It *has* a ``PluginLoader`` (what was loaded, each plugin behind its guard) and calls every hook
    through pluggy, with a ``host.dispatch.Ledger`` where a contribution must be credited to its plugin
    (tools, drivers, provider types, trailmap directories, config sections) or where plugins are isolated
    from each other (``trailblaze_session_finished``, ``trailblaze_register_commands``)."""

    def __init__(self, *, load_entrypoints: bool = True, builtins: Iterable[str] = DEFAULT_PLUGINS,
                 stderr: Callable[[str], None] | None = None) -> None:
        self.loader = PluginLoader(load_entrypoints=load_entrypoints, builtins=builtins, stderr=stderr)
        self.pm = self.loader.pm
        self._execute_hook = self.pm.hook.trailblaze_execute_tool  # on every tool call: one lookup, once
        self._llm_providers: LlmProviderRegistry | None = None
        self.outputs = OutputWriters(self.loader)
        """The run-output hooks: the options plugins declare and the writers, each isolated."""

    # -- the loader's, for tests and embedding --------------------------------------------------
    def register(self, plugin: Any, name: str | None = None) -> str:
        """Register a plugin object (module or instance) by hand, e.g. for one test."""
        return self.loader.register(plugin, name)

    def unregister(self, name: str) -> None:
        self.loader.unregister(name)

    def plugins(self, *, include_builtins: bool = False) -> list[PluginInfo]:
        return self.loader.plugins(include_builtins=include_builtins)

    def info(self, name: str) -> PluginInfo | None:
        return self.loader.info(name)

    @property
    def strict(self) -> bool:
        return self.loader.strict

    @property
    def trace(self) -> bool:
        return self.loader.trace

    def hook_failed(self, info: PluginInfo, hook: str, exc: BaseException) -> PluginHookError:
        """Mark ``info`` as failed and build the one-line error naming it (see ``host.dispatch``)."""
        return plugin_failed(info, hook, exc)

    # -- attribution --------------------------------------------------------------------------
    def _call(self, ledger: Ledger, **kwargs: Any) -> Any:
        with ledger.open():
            return getattr(self.pm.hook, ledger.hook)(**kwargs)

    @staticmethod
    def _crediting(hook: str, registry: "Contributions", *, isolate: bool = False) -> Ledger:
        """A ledger under which whatever ``registry`` gets during a plugin's turn is that plugin's."""
        turns: list[Any] = []

        def enter(info: PluginInfo) -> None:
            turn = registry.contributing(info.source)
            turn.__enter__()
            turns.append(turn)

        def leave(info: PluginInfo) -> None:
            turns.pop().__exit__(None, None, None)

        return Ledger(hook, isolate=isolate, enter=enter, leave=leave)

    def probe(self) -> None:
        """Run the cheap discovery hooks into scratch registries and build every registered tool's
        model, so ``trailblaze plugins`` shows a plugin that imports, registers or declares something
        broken as ``error`` instead of ``ok``: the same failure ``tools``, ``check`` and ``run`` then
        stop on (exit 2). Each plugin is isolated from the next, so one broken plugin does not hide
        another; tools are registered against the current workspace (an empty one when there is none
        or its config does not load), and the workspace's own bad input (a broken tool file) is not a
        plugin's failure."""
        from pathlib import Path

        from .config import WorkspaceConfig, find_workspace, load_workspace
        from .driver import DriverRegistry
        from .tools.registry import ToolRegistry

        drivers = DriverRegistry()
        self._call(self._crediting("trailblaze_register_drivers", drivers, isolate=True), registry=drivers)
        self._call(Ledger("trailblaze_config_sections", isolate=True))
        self._call(Ledger("trailblaze_trailmap_dirs", isolate=True))
        try:
            root = find_workspace()
            workspace = load_workspace(root, self) if root is not None else WorkspaceConfig(root=Path.cwd())
        except TrailblazeError:
            workspace = WorkspaceConfig(root=Path.cwd())
        registry = ToolRegistry()
        ledger = self._crediting("trailblaze_register_tools", registry, isolate=True)
        self._call(ledger, registry=registry, config=workspace, host=self)
        for info, error in ledger.errors:
            if isinstance(error, PluginToolError):  # a tool name a plugin's own code got wrong
                self._tool_failed(error.plugin or info.name, error)
        for definition, error in registry.unbuildable():
            self._tool_failed(definition.source.plugin, error)

    def _tool_failed(self, plugin: str | None, error: PluginToolError) -> None:
        info = self.info(plugin) if plugin else None
        if info is not None:
            info.fail(f"error: {error.message}", error.message)

    # -- typed facade -------------------------------------------------------------------------
    def register_tools(self, registry: "ToolRegistry", config: "WorkspaceConfig") -> None:
        self._call(self._crediting("trailblaze_register_tools", registry), registry=registry, config=config, host=self)

    def trailmap_dirs(self) -> "list[tuple[ToolSource, Path]]":
        """Packaged trailmap roots, each with the plugin that ships it (for messages and attribution),
        in registration order (built-ins first)."""
        from pathlib import Path

        ledger = Ledger("trailblaze_trailmap_dirs")
        found = self._call(ledger)
        return [(info.source, Path(path)) for info, paths in reversed(ledger.credited(found)) for path in paths]

    def script_tools(self, spec: Any, config: "WorkspaceConfig") -> "list[ToolDefinition] | None":
        return self.pm.hook.trailblaze_script_tools(spec=spec, config=config)  # type: ignore[no-any-return]

    def register_drivers(self, registry: "DriverRegistry") -> None:
        self._call(self._crediting("trailblaze_register_drivers", registry), registry=registry)

    def config_sections(self) -> dict[str, tuple[type[Any], PluginInfo]]:
        """Every claimed ``trailblaze.yaml`` section with its model and the plugin claiming it."""
        ledger = Ledger("trailblaze_config_sections")
        found = self._call(ledger)
        sections: dict[str, tuple[type[Any], PluginInfo]] = {}
        for info, claimed in reversed(ledger.credited(found)):
            for key, model in claimed.items():
                sections[key] = (model, info)
        return sections

    def json_schemas(self) -> dict[str, dict[str, Any]]:
        """Every plugin's editor schemas (``trailblaze_json_schemas``), merged; later plugins win a key."""
        schemas: dict[str, dict[str, Any]] = {}
        for found in reversed(self.pm.hook.trailblaze_json_schemas()):
            schemas.update(found)
        return schemas

    def codec(self, registry: "ToolRegistry | None" = None) -> ToolCodec:
        """The codec that decodes, encodes and describes ``registry``'s calls through this host's plugins:
        every reader of trails takes one, so every command answers the contract hooks alike."""
        return ToolCodec(self, registry)

    # The four contract calls. The core's built-in plugin (``builtin.contract``) answers each last, so
    # a None here only happens on a host built without it; it is then an error, not a silent default.
    def tool_descriptor(self, definition: "ToolDefinition", provider: str | None = None) -> "ToolDescriptor":
        found: ToolDescriptor | None = self.pm.hook.trailblaze_tool_descriptor(definition=definition, provider=provider)
        return found if found is not None else self._unanswered("trailblaze_tool_descriptor", definition.name)

    def decode_tool(self, name: str, args: dict[str, Any], registry: "ToolRegistry | None") -> "ToolCall":
        found: ToolCall | None = self.pm.hook.trailblaze_decode_tool(name=name, args=args, registry=registry)
        return found if found is not None else self._unanswered("trailblaze_decode_tool", name)

    def encode_tool(self, call: "ToolCall") -> dict[str, Any]:
        found: dict[str, Any] | None = self.pm.hook.trailblaze_encode_tool(call=call)
        return found if found is not None else self._unanswered("trailblaze_encode_tool", call.name)

    def execute_tool(self, call: "ToolCall", definition: "ToolDefinition", prepared: Any,
                     context: "ToolContext") -> "ToolResult | list[ToolCall]":
        found: ToolResult | list[ToolCall] | None = self._execute_hook(
            call=call, definition=definition, prepared=prepared, context=context)
        return found if found is not None else self._unanswered("trailblaze_execute_tool", call.name)

    def _unanswered(self, hook: str, name: str) -> NoReturn:
        from .errors import InfrastructureError

        raise InfrastructureError(f"no plugin answered {hook} for tool '{name}'",
                                  hint="the core's builtin.contract plugin answers it; was this host built without it?")

    def target_info(self, target: str, config: "WorkspaceConfig") -> "TargetInfo | None":
        found: TargetInfo | None = self.pm.hook.trailblaze_target_info(target=target, config=config)
        return found

    def filter_tools(self, session: "Session", tools: "list[ToolDefinition]") -> "list[ToolDefinition]":
        kept = list(tools)
        for result in self.pm.hook.trailblaze_filter_tools(session=session, tools=list(tools)):
            if result is not None:
                names = {d.name for d in result}
                kept = [d for d in kept if d.name in names]
        return kept

    def check_tools(self, registry: "ToolRegistry", report: "CheckReport", config: "WorkspaceConfig") -> None:
        self.pm.hook.trailblaze_check_tools(registry=registry, report=report, config=config)

    def check_run_outputs(self, request: "OutputRequest") -> None:
        self.pm.hook.trailblaze_check_run_outputs(request=request)

    def output_options(self) -> "list[tuple[OutputOption, PluginInfo]]":
        """Every output option the plugins declare, with its plugin (see ``host.outputs``)."""
        return self.outputs.options()

    def write_run_outputs(self, result: "RunResult", request: "OutputRequest", *,
                          writers: Literal["all", "core", "plugins"] = "all") -> "list[InfrastructureError]":
        """Every writer runs, isolated from the others; their failures come back (see ``host.outputs``)."""
        return self.outputs.write(result, request, writers=writers)

    def trail_finished(self, trail: "TrailResult", request: "OutputRequest", redact: Any) -> None:
        """A finished trail to the outputs that keep up as the run goes (``trailblaze_trail_finished``)."""
        self.pm.hook.trailblaze_trail_finished(trail=trail, request=request, redact=redact)

    def run_durations(self, source: "Path") -> dict[str, float]:
        """``--durations``: the first plugin that reads ``source`` answers; none: no durations (by count)."""
        found: dict[str, float] | None = self.pm.hook.trailblaze_run_durations(source=source)
        return found or {}

    def session_started(self, session: "Session", *, started: list[str] | None = None) -> None:
        """Call each plugin's hook in hook order, appending its name to ``started`` *before* its turn,
        so that a plugin failing halfway is still told the session finished (see ``runner.lifecycle``)."""
        def enter(info: PluginInfo) -> None:
            if started is not None and info.name not in started:
                started.append(info.name)

        self._call(Ledger("trailblaze_session_started", enter=enter), session=session)

    def session_finished(self, session: "Session", outcome: "SessionOutcome", *,
                         only: Sequence[str] | None = None) -> list[str]:
        """Call every implementation (or those of the plugins in ``only``) even if one raises, last
        started first (the reverse of ``trailblaze_session_started``'s order; wrappers wrap the whole
        call, as pluggy's always do); return the errors as lines."""
        hook = "trailblaze_session_finished"
        impls = self.pm.hook.trailblaze_session_finished.get_hookimpls()
        if only is not None:
            impls = [impl for impl in impls if impl.plugin_name in only]
        plain = [impl for impl in impls if not (impl.wrapper or impl.hookwrapper)]
        wrappers = [impl for impl in impls if impl.wrapper or impl.hookwrapper]
        ledger = Ledger(hook, isolate=True)
        with ledger.open():
            # pluggy calls the list last to first: reversed, the plain implementations run in the order
            # opposite to the started hook's; ``pm._hookexec`` is what ``pm.hook`` calls (with tracing).
            self.pm._hookexec(hook, [*reversed(plain), *wrappers], {"session": session, "outcome": outcome}, False)
        errors = []
        for info, error in ledger.errors:
            errors.append(error.message if isinstance(error, PluginHookError)
                          else f"plugin '{info.name}' failed in {hook}: {error}")
        return errors

    def register_commands(self, cli: "click.Group") -> None:
        """Plugins add commands; they never replace one that exists (a built-in such as ``run``, or an
        earlier plugin's), so what ``trailblaze run`` means does not depend on what is installed."""
        before: list[dict[str, Any]] = []

        def enter(info: PluginInfo) -> None:
            before.append(dict(cli.commands))

        def leave(info: PluginInfo) -> None:
            for name, command in before.pop().items():
                if cli.commands.get(name) is not command:
                    cli.commands[name] = command
                    self.loader.stderr(f"trailblaze: plugin '{info.name}' tried to replace the command "
                                       f"'{name}'; kept the existing one")

        ledger = Ledger("trailblaze_register_commands", isolate=True, enter=enter, leave=leave)
        self._call(ledger, cli=cli)
        for info, error in ledger.errors:
            if isinstance(error, PluginHookError):
                self.loader.stderr(f"trailblaze: {error.message}")
            else:
                self.loader.stderr(f"trailblaze: plugin '{info.name}' failed to add its commands: {error}")

    def register_llm_providers(self, registry: Any) -> None:
        self._call(self._crediting("trailblaze_register_llm_providers", registry), registry=registry)

    def llm_providers(self) -> "LlmProviderRegistry":
        """The LLM provider types this host's plugins register, built on first use."""
        if self._llm_providers is None:
            from .llm.registry import LlmProviderRegistry

            registry = LlmProviderRegistry()
            self.register_llm_providers(registry)
            self._llm_providers = registry
        return self._llm_providers


_HOST: PluginHost | None = None


def get_host() -> PluginHost:
    """The process-wide host; plugins are discovered on first use and never again."""
    global _HOST
    if _HOST is None:
        _HOST = PluginHost()
    return _HOST


def set_host(host: PluginHost | None) -> PluginHost | None:
    """Swap the process-wide host (tests). Returns the previous one."""
    global _HOST
    previous, _HOST = _HOST, host
    return previous


__all__ = [
    "PluginHost", "PluginInfo", "get_host", "set_host",
]
