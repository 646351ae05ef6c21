"""The plugin host: loads plugins once per process and offers a typed facade over ``pm.hook``.

Entry points of the group ``trailblaze`` are loaded one at a time, so one broken plugin costs one
stderr line, not the CLI. Switches (environment variables):

* ``TRAILBLAZE_DISABLE_PLUGINS=a,b`` blocks plugins by entry-point name.
* ``TRAILBLAZE_LOAD_PLUGINS=a,b`` loads only these installed plugins (empty string: none).
* ``TRAILBLAZE_STRICT_PLUGINS=1`` turns a plugin that fails to load into a fatal error (exit 2).
* ``TRAILBLAZE_TRACE_PLUGINS=1`` prints every hook call and result to stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from .errors import PluginHookError, TrailblazeError
from .plugin_loading import DEFAULT_PLUGINS, PluginLoader, installed_entry_points  # noqa: F401 - re-exported
from .plugin_queries import PluginInfo
from .tools.base import ToolSource
from .tools.codec import ToolCodec

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from .checks import CheckReport
    from .config import WorkspaceConfig
    from .context import ToolContext
    from .driver import DriverRegistry
    from .files import OutputWriteError
    from .results.output_request import OutputRequest
    from .results.model import RunResult, TrailResult
    from .session import Session, SessionOutcome
    from .llm.registry import LlmProviderRegistry
    from .targets import TargetInfo
    from .tools.base import ToolCall, ToolDefinition, ToolResult
    from .tools.descriptors import ToolDescriptor
    from .tools.registry import ToolRegistry


class PluginHost(PluginLoader):
    """The typed facade over ``pm.hook``: every hook call in the code base goes through a method here
    (loading the plugins is ``PluginLoader``'s)."""

    def probe(self) -> None:
        """Run the cheap discovery hooks into scratch registries, so ``trailblaze plugins`` can show a
        plugin that imports or registers something broken as ``error`` instead of ``ok``: the same
        failure ``tools``, ``check`` and ``run`` then stop on (exit 2). Tools are registered plugin by
        plugin against the current workspace (an empty one when there is none or its config does not
        load), so one broken plugin does not hide the next; a workspace's own bad input (a broken tool
        file) is not a plugin's failure."""
        from pathlib import Path

        from .config import WorkspaceConfig, find_workspace, load_workspace
        from .driver import DriverRegistry
        from .tools.registry import ToolRegistry

        for step in (lambda: self.register_drivers(DriverRegistry()), self.config_sections, self.trailmap_dirs):
            try:
                step()
            except PluginHookError:
                pass  # the guard recorded it on the plugin's status
        try:
            root = find_workspace()
            workspace = load_workspace(root, self) if root is not None else WorkspaceConfig(root=Path.cwd())
        except TrailblazeError:
            workspace = WorkspaceConfig(root=Path.cwd())
        for info, fn, argnames in self._impls("trailblaze_register_tools"):
            registry = ToolRegistry()
            kwargs = {"registry": registry, "config": workspace, "host": self}
            try:
                with registry.contributing(info.source):
                    fn(**{k: kwargs[k] for k in argnames})
            except TrailblazeError:
                pass  # a PluginHookError is on the plugin's status; bad input belongs to the workspace

    # -- typed facade -------------------------------------------------------------------------
    def register_tools(self, registry: "ToolRegistry", config: "WorkspaceConfig") -> None:
        for info, fn, argnames in self._impls("trailblaze_register_tools"):
            kwargs = {"registry": registry, "config": config, "host": self}
            with registry.contributing(info.source):
                fn(**{k: kwargs[k] for k in argnames})

    def trailmap_dirs(self) -> "list[tuple[ToolSource, Path]]":
        """Packaged trailmap roots, each with the plugin that ships it (for messages and attribution)."""
        from pathlib import Path

        out: list[tuple[ToolSource, Path]] = []
        for info, result in self._call_each("trailblaze_trailmap_dirs"):
            for path in result or []:
                out.append((info.source, Path(path)))
        return out

    def script_tools(self, spec: Any, config: "WorkspaceConfig") -> "list[ToolDefinition] | None":
        return self.pm.hook.trailblaze_script_tools(spec=spec, config=config)  # type: ignore[no-any-return]

    def register_drivers(self, registry: "DriverRegistry") -> None:
        for info, fn, argnames in self._impls("trailblaze_register_drivers"):
            with registry.contributing(info.source):
                fn(**{k: {"registry": registry}[k] for k in argnames})

    def config_sections(self) -> dict[str, tuple[type[Any], PluginInfo]]:
        sections: dict[str, tuple[type[Any], PluginInfo]] = {}
        for info, result in self._call_each("trailblaze_config_sections"):
            for key, model in (result or {}).items():
                sections[key] = (model, info)
        return sections

    def json_schemas(self) -> dict[str, dict[str, Any]]:
        """Every plugin's editor schemas (``trailblaze_json_schemas``), merged; later plugins win a key."""
        schemas: dict[str, dict[str, Any]] = {}
        for _info, result in self._call_each("trailblaze_json_schemas"):
            schemas.update(result or {})
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

    def write_run_outputs(self, result: "RunResult", request: "OutputRequest") -> "list[OutputWriteError]":
        """Every writer runs; what each could not write comes back, in hook order, for the runner to show."""
        failed: list[OutputWriteError] = []
        for found in self.pm.hook.trailblaze_write_run_outputs(result=result, request=request):
            failed.extend(found or ())
        return failed

    def trail_finished(self, trail: "TrailResult", request: "OutputRequest", redact: Any) -> None:
        """A finished trail to the outputs that keep up as the run goes (``trailblaze_trail_finished``)."""
        self.pm.hook.trailblaze_trail_finished(trail=trail, request=request, redact=redact)

    def run_durations(self, source: "Path") -> dict[str, float]:
        """``--durations``: the first plugin that reads ``source`` answers; none: no durations (by count)."""
        found: dict[str, float] | None = self.pm.hook.trailblaze_run_durations(source=source)
        return found or {}

    def session_started(self, session: "Session", *, started: list[str] | None = None) -> None:
        """Call each plugin's hook in hook order, appending its name to ``started`` *before* the call,
        so that a plugin failing halfway is still told the session finished (see ``runner.lifecycle``)."""
        for info, fn, argnames in reversed(self._impls("trailblaze_session_started")):
            if started is not None:
                started.append(info.name)
            fn(**{k: {"session": session}[k] for k in argnames})

    def session_finished(self, session: "Session", outcome: "SessionOutcome", *,
                         only: Sequence[str] | None = None) -> list[str]:
        """Call every implementation (or those of the plugins in ``only``, last started first) even if
        one raises; return the errors as lines."""
        errors = []
        impls = self._impls("trailblaze_session_finished")
        if only is not None:
            order = {name: i for i, name in enumerate(only)}
            impls = sorted((i for i in impls if i[0].name in order), key=lambda i: -order[i[0].name])
        for info, fn, argnames in impls:
            kwargs = {"session": session, "outcome": outcome}
            try:
                fn(**{k: kwargs[k] for k in argnames})
            except PluginHookError as exc:
                errors.append(exc.message)
            except Exception as exc:  # noqa: BLE001 - a TrailblazeError raised by the plugin itself
                errors.append(f"plugin '{info.name}' failed in trailblaze_session_finished: {exc}")
        return errors

    def register_commands(self, cli: "click.Group") -> None:
        """Plugins add commands; they never replace one that exists (a built-in such as ``run``, or an
        earlier plugin's), so what ``trailblaze run`` means does not depend on what is installed."""
        for info, fn, argnames in self._impls("trailblaze_register_commands"):
            existing = dict(cli.commands)
            try:
                fn(**{k: {"cli": cli}[k] for k in argnames})
            except PluginHookError as exc:
                self._stderr(f"trailblaze: {exc.message}")
            except Exception as exc:  # noqa: BLE001
                self._stderr(f"trailblaze: plugin '{info.name}' failed to add its commands: {exc}")
            for name, command in existing.items():
                if cli.commands.get(name) is not command:
                    cli.commands[name] = command
                    self._stderr(f"trailblaze: plugin '{info.name}' tried to replace the command '{name}'; "
                                 "kept the existing one")

    def register_llm_providers(self, registry: Any) -> None:
        for info, fn, argnames in self._impls("trailblaze_register_llm_providers"):
            with registry.contributing(info.source):
                fn(**{k: {"registry": registry}[k] for k in argnames})

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
