"""The state behind ``trailblaze mcp``: the connected device, the calls recorded on it, trail writing.

Nothing here knows MCP; the server module maps it onto the protocol (and tests drive it directly).
Everything that touches the device runs on one dedicated thread: Playwright's sync API, like most
device SDKs, must be used from the thread that started it, while the MCP server lives on an asyncio
loop. ``Workbench.submit`` is the only way in.

A ``Workbench`` has its parts as fields, each built here with what it needs: ``devices`` (the connected
device, ``devices.py``), ``offer`` (the tools offered to a client, ``tool_offer.py``), ``recording`` (the
trail being recorded, ``trail_recording.py``) and ``actions`` (calls and agent steps on the device,
recorded, ``acting.py``). Its own methods are the threading, the setup and trail runs, and the calls
the server, the commands and the live sessions make, handed to the part that does them.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import io
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from ..errors import BadInputError
from ..memory import Redactor
from ..plugins import PluginHost, get_host
from ..recorder import RecordedStepDraft
from ..runner.lifecycle import SessionFactory
from ..session import SessionOutcome
from ..tools.base import ToolDefinition
from .acting import DeviceActions, Outcome
from .bench_state import Connected, McpSettings, RecordedStep, StepKind
from .devices import Devices
from .tool_offer import SESSION_TOOLS, ToolOffer
from .trail_recording import TrailRecording

T = TypeVar("T")

PLATFORM_ACTIONS = {"WEB": "web", "ANDROID": "android", "IOS": "ios", "HOST": "host"}
CLOSE_TIMEOUT_S = 120.0
"""How long closing waits for a call still running on the device (a long agent step, a ``wait``)."""


class Workbench:
    """One ``trailblaze mcp`` process's device, tool offer, recording and device thread. See the module
    docstring."""

    def __init__(self, settings: McpSettings | None = None, *, host: PluginHost | None = None) -> None:
        self.settings = settings or McpSettings()
        self.host = host or get_host()
        self._base_options = self.settings.run_options()
        self.factory = SessionFactory(self._base_options, host=self.host)
        self.redactor = Redactor(self.settings.secrets.values())
        """What every result, resource and log line passes through: ``--secret`` values, then each device
        session's own secrets as it opens (the run's one redaction point, as ``trailblaze run`` has)."""
        root = self.settings.workspace.resolve() if self.settings.workspace else None
        self.ws = self.factory.workspace_for(root)
        if self.ws.error is not None:
            raise self.ws.error
        self.devices = Devices(self.factory, self.ws, self.settings, self.redactor)
        self.offer = ToolOffer(self.ws, allow_host_tools=self.settings.allow_host_tools, target=self.settings.target)
        self.recording = TrailRecording(self.ws.config, codec=self.host.codec, target=self.settings.target)
        self.actions = DeviceActions(self.devices, self.offer, self.recording)
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="trailblaze-device")
        self._closed = False
        self._lock = threading.Lock()

    # -- threading --------------------------------------------------------------------------------
    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> "concurrent.futures.Future[T]":
        """Run ``fn`` on the device thread."""
        return self._executor.submit(fn, *args, **kwargs)

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> list[str]:
        """End the device session (hooks told, driver stopped, logs flushed) and the device thread.

        Waits for a call still running on the device first: stopping a browser under a running tool
        would leave its half-done state in the logs instead of a clean end."""
        with self._lock:
            if self._closed:
                return []
            self._closed = True
        future = self._executor.submit(self.disconnect, SessionOutcome.CANCELLED)
        try:
            problems = future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            problems = [f"a call was still running on the device after {timeout:g} s; the device was not stopped"]
        self._executor.shutdown(wait=False, cancel_futures=True)
        return problems

    # -- the device (device thread) ---------------------------------------------------------------
    @property
    def connected(self) -> Connected | None:
        return self.devices.connected

    @property
    def last_snapshot(self) -> str | None:
        return self.devices.last_snapshot

    def connect(self, *, platform: str | None = None, driver: str | None = None, device_id: str | None = None,
                options: Mapping[str, Any] | None = None, url: str | None = None) -> dict[str, Any]:
        """Start a device exactly as ``trailblaze run`` starts one (the connected one is ended first) and
        offer its tools; ``url`` names the driver that takes it when nothing else chose one."""
        self.disconnect(SessionOutcome.SUCCEEDED)
        connected = self.devices.connect(platform=platform, driver=driver, device_id=device_id, options=options,
                                         url=url)
        self.offer.refresh(connected.session, force=True)
        info = self.devices.info()
        assert info is not None
        return info

    def disconnect(self, outcome: SessionOutcome = SessionOutcome.SUCCEEDED) -> list[str]:
        """End the device session, if any. Unsaved recorded steps stay."""
        if self.devices.connected is not None:
            self.offer.clear()
        return self.devices.disconnect(outcome)

    def drivers(self) -> list[dict[str, Any]]:
        return self.devices.drivers()

    def devices_document(self) -> dict[str, Any]:
        return self.devices.document()

    def device_info(self) -> dict[str, Any] | None:
        return self.devices.info()

    def classifier(self) -> str:
        return self.devices.require().classifier

    def snapshot(self, detail: frozenset[str] = frozenset(), screenshot: bool = False) -> tuple[str, bytes | None]:
        return self.devices.snapshot(detail, screenshot)

    # -- the tools offered ------------------------------------------------------------------------
    @property
    def tool_descriptors(self) -> list[dict[str, Any]]:
        return self.offer.tool_descriptors

    def offered_tools(self) -> list[ToolDefinition]:
        return self.offer.offered_tools(self.devices.session)

    def descriptors(self) -> list[dict[str, Any]]:
        return self.offer.descriptors(self.devices.session)

    def refresh_tools(self, *, force: bool = False) -> bool:
        return self.offer.refresh(self.devices.session, force=force)

    def toolbox(self, search: str | None = None, include_hidden: bool = False) -> list[dict[str, Any]]:
        """``trailblaze tools`` for the connected driver (or every driver when none is connected)."""
        c = self.devices.connected
        return self.offer.toolbox(c.driver.key if c is not None else None, search, include_hidden)

    def registry_document(self) -> dict[str, Any]:
        return self.offer.registry_document(self.devices.session)

    # -- acting (device thread) -------------------------------------------------------------------
    def call_tool(self, name: str, args: Mapping[str, Any] | None, *, step_text: str | None = None) -> Outcome:
        return self.actions.call_tool(name, args, step_text=step_text)

    def run_tools(self, text: str, kind: StepKind, items: list[Any]) -> Outcome:
        return self.actions.run_tools(text, kind, items)

    def solve(self, text: str, kind: StepKind) -> Outcome:
        return self.actions.solve(text, kind)

    # -- the recording ----------------------------------------------------------------------------
    @property
    def steps(self) -> list[RecordedStep]:
        return self.recording.steps

    @property
    def trail_name(self) -> str | None:
        return self.recording.name

    def add_recorded(self, drafts: list[RecordedStepDraft]) -> None:
        """Steps recorded elsewhere (``trailblaze record``), secrets written as their tokens."""
        c = self.devices.require()
        self.recording.add_recorded(drafts, c.classifier, c.session.memory)

    def start_trail(self, name: str | None) -> str:
        return self.recording.start(name)

    def end_trail(self) -> str:
        return self.recording.end()

    def trail_path(self, file: str | None) -> Path:
        return self.recording.trail_path(file)

    def save_trail(self, file: str | None) -> dict[str, Any]:
        return self.recording.save(file, self.devices.connected)

    def list_trails(self) -> list[dict[str, Any]]:
        return self.recording.list_trails()

    def failure_prompts(self) -> list[dict[str, str]]:
        """The latest failure prompt of each trail and device in the workspace's run history (what
        ``trailblaze results TRAIL --prompt`` prints), newest first; none without a history."""
        from ..results.store import DEFAULT_RELATIVE, ResultsStore

        config = self.ws.config
        path = config.root / DEFAULT_RELATIVE if config.file is not None else None
        if path is None or not path.is_file():
            return []
        with ResultsStore(path) as store:
            return [{"trail_id": t, "device": d, "prompt": text} for t, d, text in store.failure_prompts()]

    # -- runs -------------------------------------------------------------------------------------
    def replay_setup(self) -> int:
        """Replay the setup trails (``settings.setup``, else the workspace's ``defaults.setup``) on the
        connected device (device thread): the start state, not part of what is saved, but named in a saved
        trail's ``config.setup`` so that it replays from the same state. Returns how many steps ran."""
        from ..runner.setup import replay_setups, setup_trails

        paths = setup_trails(self.settings.setup, self.ws.config)
        ran = replay_setups(paths, self.devices.require().session)
        self.recording.setup = paths  # a trail saved from here starts where these left the device
        return ran

    def run_trail(self, file: str, *, progress_stream: io.StringIO | None = None) -> dict[str, Any]:
        """``trailblaze run FILE`` in this process, on a fresh device of its own. Call it from its own
        thread, not the device thread: a second browser cannot share the first one's thread."""
        path = self.trail_path(file)
        if not path.is_file():
            raise BadInputError(f"file not found: {path}")
        from ..runner.progress import Progress
        from ..runner.run import Runner

        out = progress_stream or io.StringIO()
        options = dataclasses.replace(self._base_options, save_recording=True)
        runner = Runner(options, host=self.host, progress=Progress(stream=out, live=False))
        result = runner.run([str(path)])
        clean = result.redact  # that run's redactor, which watched its sessions' secrets too
        return {"exitCode": int(result.exit_code), "passed": int(result.exit_code) == 0,
                "output": clean(out.getvalue()),
                "summary": str(result.summary_path) if result.summary_path else None,
                "report": str(result.report_path) if result.report_path else None,
                "trails": [clean({"title": t.title, "outcome": t.outcome.value, "message": t.message,
                                  "logDir": str(t.log_dir) if t.log_dir else None}) for t in result.trails]}


__all__ = ["McpSettings", "Outcome", "PLATFORM_ACTIONS", "RecordedStep", "SESSION_TOOLS", "Workbench"]
