"""The state one ``trailblaze mcp`` workbench holds, shared by its parts (devices, tool offering,
trail recording): what the server was started with, the connected device and the steps recorded."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..contract.device import SessionDriver
from ..errors import BadInputError
from ..runner.options import RunOptions
from ..session import Session
from ..tools.base import ToolCall

if TYPE_CHECKING:
    from ..memory import Redactor
    from ..plugins import PluginHost
    from ..runner.lifecycle import SessionFactory, SessionLifecycle
    from ..runner.workspace import ToolWorkspace

__all__ = ["BenchState", "McpSettings", "StepKind"]

StepKind = Literal["step", "verify"]



@dataclass
class RecordedStep:
    """One step of the trail being recorded: consecutive calls under the same text and kind."""

    kind: StepKind
    text: str
    classifier: str
    calls: list[ToolCall] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "classifier": self.classifier,
                "recording": [c.to_json() for c in self.calls]}


@dataclass
class McpSettings:
    """What ``trailblaze mcp`` was started with (the CLI flags map onto it 1:1)."""

    workspace: Path | None = None
    target: str | None = None
    allow_host_tools: bool = False
    secrets: dict[str, str] = field(default_factory=dict)
    memory: dict[str, str] = field(default_factory=dict)
    driver_options: dict[str, Any] = field(default_factory=dict)
    headed: bool = False
    llm: str | None = None
    max_llm_calls: int | None = None
    output_dir: Path | None = None
    logging: bool = True
    setup: list[str] = field(default_factory=list)
    """Setup trails replayed by ``replay_setup`` (``session start``/``record --setup``)."""

    def run_options(self) -> RunOptions:
        return RunOptions(driver_options=dict(self.driver_options), memory=dict(self.memory),
                          secrets=dict(self.secrets), output_dir=self.output_dir, llm=self.llm,
                          max_llm_calls=self.max_llm_calls, headed=self.headed, logging=self.logging,
                          report=False, save_recording=False, test_name="mcp",
                          host_tools=self.allow_host_tools)


@dataclass
class _Connected:
    lifecycle: SessionLifecycle
    close: contextlib.ExitStack

    @property
    def session(self) -> Session:
        return self.lifecycle.session

    @property
    def driver(self) -> SessionDriver[Session]:
        driver = self.lifecycle.session.driver
        assert driver is not None
        return driver


class BenchState:
    """The attributes ``Workbench.__init__`` sets, declared once for the parts that read them."""

    settings: McpSettings
    host: PluginHost
    factory: SessionFactory
    redactor: Redactor
    ws: ToolWorkspace
    connected: _Connected | None
    steps: list[RecordedStep]
    trail_name: str | None
    last_snapshot: str | None
    tool_descriptors: list[dict[str, Any]]
    _base_options: RunOptions
    _registry_fingerprint: tuple[int, ...]

    def classifier(self) -> str:
        c = self._require()
        return "-".join(c.session.device.classifiers) or c.driver.key

    def _require(self) -> _Connected:
        if self.connected is None:
            raise BadInputError("no device is connected",
                                hint="call the 'device' tool first, e.g. {\"action\": \"WEB\"} or {\"action\": \"ANDROID\"}")
        return self.connected
