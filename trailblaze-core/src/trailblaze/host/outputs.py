"""The run-output hooks of a plugin host: the options plugins declare for their output formats
(``trailblaze_output_options``) and the writers (``trailblaze_write_run_outputs``), each writer isolated
from the others so one that raises is one line naming it and every other output is still written."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..errors import PluginHookError
from .dispatch import Ledger

if TYPE_CHECKING:
    from ..errors import InfrastructureError
    from ..plugin_info import PluginInfo
    from ..results.model import RunResult
    from ..results.output_request import OutputOption, OutputRequest
    from .loader import PluginLoader


class OutputWriters:
    """A ``PluginHost``'s part for run outputs, over its ``loader``; the declared options are asked once."""

    def __init__(self, loader: PluginLoader) -> None:
        self.loader = loader
        self.pm = loader.pm
        self._options: list[tuple[OutputOption, PluginInfo]] | None = None

    def options(self) -> "list[tuple[OutputOption, PluginInfo]]":
        """Every output option the plugins declare, with its plugin, in registration order; asked once.
        A plugin whose hook raises, answers with something that is not an ``OutputOption``, or repeats a
        name an earlier plugin took, costs one line naming it and loses that option, not the command."""
        if self._options is None:
            from ..results.output_request import OutputOption

            ledger = Ledger("trailblaze_output_options", isolate=True)
            with ledger.open():
                found = self.pm.hook.trailblaze_output_options()
            for info, error in ledger.errors:
                self.loader.stderr(f"trailblaze: {error.message if isinstance(error, PluginHookError) else error}")
            options: list[tuple[OutputOption, PluginInfo]] = []
            taken: dict[str, PluginInfo] = {}
            for info, declared in reversed(ledger.credited(found)):
                for option in declared if isinstance(declared, (list, tuple)) else [declared]:
                    if not isinstance(option, OutputOption):
                        self.loader.stderr(f"trailblaze: plugin '{info.name}' declared an output option that is "
                                           f"not a trailblaze.OutputOption: {option!r}; left out")
                    elif option.name in taken:
                        self.loader.stderr(f"trailblaze: plugin '{info.name}' declared the output option "
                                           f"{option.flag}, which plugin '{taken[option.name].name}' declared "
                                           "first; left out")
                    else:
                        taken[option.name] = info
                        options.append((option, info))
            self._options = options
        return self._options

    def plugins_write(self) -> bool:
        """Whether any plugin other than the built-in ones writes a format of its own: a merge builds the
        whole run's ``RunResult`` for them only then (for 10,000 trails that is most of a second)."""
        for impl in self.pm.hook.trailblaze_write_run_outputs.get_hookimpls():
            info = self.loader.info(impl.plugin_name)
            if info is None or not info.builtin:
                return True
        return False

    def write(self, result: "RunResult", request: "OutputRequest", *,
              writers: Literal["all", "core", "plugins"] = "all") -> "list[InfrastructureError]":
        """Every writer runs, isolated from the others; what each could not write, or its failure as one
        line naming its plugin, comes back in hook order for the caller to show (exit 2).

        ``writers`` says whose: ``all`` for a whole run in one process; ``core`` in an xdist worker (its
        own bundle, which the controller merges; a plugin's format is written once, by the controller);
        ``plugins`` where the core's outputs were merged from bundles (the controller, ``merge-reports``)."""
        from ..errors import InfrastructureError
        from ..files import OutputWriteError

        hook = "trailblaze_write_run_outputs"
        def builtin(name: str) -> bool:
            info = self.loader.info(name)
            return info is not None and info.builtin

        unwanted = [plugin for name, plugin in self.pm.list_name_plugin()
                    if plugin is not None and writers != "all" and builtin(name) != (writers == "core")]
        caller = self.pm.subset_hook_caller(hook, unwanted) if unwanted else getattr(self.pm.hook, hook)
        ledger = Ledger(hook, isolate=True)
        with ledger.open():
            found = caller(result=result, request=request)
        failed: list[InfrastructureError] = []
        for item in found:
            failed.extend(item or ())
        for info, error in ledger.errors:
            if isinstance(error, PluginHookError):
                failed.append(error)
            else:  # a TrailblazeError the plugin raised instead of returning: still named, still exit 2
                named = OutputWriteError(f"plugin '{info.name}' could not write its outputs: {error}")
                named.__cause__ = error
                failed.append(named)
        return failed
