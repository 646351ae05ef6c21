"""Error types and the exit codes they map to.

Every error the user can cause or the environment can cause has a class here, so the CLI can turn it
into one readable line and the right exit code without a traceback. Location-carrying errors name
``file:line:column`` and the offending key because that is what lets a user fix a 500-line trail.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path


class ExitCode(enum.IntEnum):
    """Process exit codes, compatible with upstream ``TrailblazeExitCode``."""

    SUCCESS = 0
    TRAIL_FAILED = 1
    INFRASTRUCTURE = 2
    BAD_INPUT = 3

    @staticmethod
    def worst(codes: "list[ExitCode] | list[int]") -> "ExitCode":
        """Combine the exit codes of several trails: the worst wins, ranked ``2 > 3 > 1 > 0``."""
        worst = ExitCode.SUCCESS
        for code in codes:
            c = _CODES.get(int(code), ExitCode.INFRASTRUCTURE)
            if _RANK[c] > _RANK[worst]:
                worst = c
        return worst


_CODES = {int(code): code for code in ExitCode}
_RANK = {ExitCode.INFRASTRUCTURE: 3, ExitCode.BAD_INPUT: 2, ExitCode.TRAIL_FAILED: 1, ExitCode.SUCCESS: 0}
"""``ExitCode.worst``'s order, built once (it runs once per trail of a merge)."""


@dataclass(frozen=True)
class SourceLocation:
    """Where something was written: a file and, when known, a 1-based line and column."""

    file: Path | str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.file is None:
            return "<input>"
        text = str(self.file)
        if self.line is not None:
            text += f":{self.line}"
            if self.column is not None:
                text += f":{self.column}"
        return text


class TrailblazeError(Exception):
    """Base class. ``exit_code`` tells the CLI how to end; ``str(err)`` is the one line it prints."""

    exit_code: ExitCode = ExitCode.INFRASTRUCTURE

    def __init__(self, message: str, *, location: SourceLocation | None = None, key: str | None = None,
                 hint: str | None = None) -> None:
        self.message = message
        self.location = location
        self.key = key
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        text = ""
        if self.location is not None:
            text += f"{self.location}: "
        if self.key:
            text += f"'{self.key}': "
        text += self.message
        if self.hint:
            text += f" ({self.hint})"
        return text

    def __str__(self) -> str:
        return self.render()


class BadInputError(TrailblazeError):
    """The user's input is wrong: a trail, a tool file, a flag, an argument (exit 3)."""

    exit_code = ExitCode.BAD_INPUT


class ConfigError(BadInputError):
    """A configuration file or a plugin/driver configuration does not validate."""


class TrailFormatError(BadInputError):
    """A trail file breaks a rule of the trail format."""


class ToolArgumentError(BadInputError):
    """A tool call's arguments do not fit the tool's parameter schema."""


class UnknownToolError(BadInputError):
    """A tool call names a tool that no source registered for this session."""


class ToolNotAvailableError(UnknownToolError):
    """A tool call names a registered tool this session may not run: not for its driver or platform,
    or a host-only tool where host tools are refused (``trailblaze mcp`` without ``--allow-host-tools``).
    An ``UnknownToolError`` too: for the caller the tool is not there."""


class DuplicateToolError(BadInputError):
    """Two sources registered the same tool name."""


class ToolExpansionError(BadInputError):
    """A delegating tool expanded into something invalid: too deep, a cycle, bad output."""


class InfrastructureError(TrailblazeError):
    """Something around the test broke: a device, a browser, a tool server, a provider (exit 2)."""

    exit_code = ExitCode.INFRASTRUCTURE


class DriverError(InfrastructureError):
    """A driver could not start, or its device went away."""


class ToolFailure(TrailblazeError):
    """A tool ran and reported failure: an assertion did not hold, an element was missing (exit 1)."""

    exit_code = ExitCode.TRAIL_FAILED


class PluginLoadError(InfrastructureError):
    """A plugin failed to import or register and ``TRAILBLAZE_STRICT_PLUGINS=1`` made that fatal."""


class PluginToolError(InfrastructureError):
    """A plugin's tool class cannot be built: pydantic cannot make a schema of its fields (exit 2).

    Tool models are built on first use, so this surfaces when the tool is first described or called,
    named as the tool, its class and its plugin."""

    plugin: str | None = None
    """The plugin whose tool it is, when one is to blame (``trailblaze plugins`` shows it as failed)."""


class PluginHookError(InfrastructureError):
    """A plugin's hook implementation raised something that is not a ``TrailblazeError`` (exit 2).

    The message names the plugin, its distribution and version, the hook and the error, and says how
    to disable the plugin: the user can act on it without a traceback (``--debug`` shows one)."""

    def __init__(self, message: str, *, plugin: str, hook: str) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.hook = hook

__all__ = [
    "BadInputError", "ConfigError", "DriverError", "DuplicateToolError", "ExitCode", "InfrastructureError",
    "PluginHookError", "PluginLoadError", "PluginToolError", "SourceLocation", "ToolArgumentError",
    "ToolExpansionError", "ToolFailure", "ToolNotAvailableError", "TrailFormatError", "TrailblazeError",
    "UnknownToolError",
]
