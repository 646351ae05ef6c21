"""The workbench's device: which drivers there are, connecting one through the session lifecycle
(with a client's device options confined), looking at it, describing it and ending it."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ..driver import Driver
from ..errors import BadInputError
from ..host_settings import refused_settings
from ..memory import Redactor
from ..runner.lifecycle import SessionFactory
from ..runner.workspace import ToolWorkspace
from ..listings.screens import choose_driver, screen_header
from ..session import Session, SessionOutcome
from .bench_state import Connected, McpSettings, deprecated_slice


def __getattr__(name: str) -> Any:
    if name == "DeviceBench":
        return deprecated_slice(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Devices"]


class Devices:
    """The one connected device (at most one at a time) and the installed drivers; every method that
    touches the device runs on the device thread."""

    def __init__(self, factory: SessionFactory, ws: ToolWorkspace, settings: McpSettings, redactor: Redactor) -> None:
        self.factory = factory
        self.ws = ws
        self.settings = settings
        self.redactor = redactor
        """Watches each connected session's secrets while it is open (the workbench's one redaction point)."""
        self._base_options = factory.options
        self.connected: Connected | None = None
        self.last_snapshot: str | None = None
        """The last snapshot text, redacted; read by the ``trailblaze://snapshot`` resource from any thread."""

    @property
    def session(self) -> Session | None:
        return self.connected.session if self.connected is not None else None

    def require(self) -> Connected:
        if self.connected is None:
            raise BadInputError("no device is connected",
                                hint="call the 'device' tool first, e.g. {\"action\": \"WEB\"} or {\"action\": \"ANDROID\"}")
        return self.connected

    def drivers(self) -> list[dict[str, Any]]:
        return [{"key": cls.key, "platform": cls.platform, "aliases": list(cls.aliases),
                 "description": cls.description} for cls in self.factory.drivers]

    def document(self) -> dict[str, Any]:
        """``trailblaze://devices``: the installed drivers and the connected device."""
        return {"drivers": self.drivers(), "connected": self.info()}

    def info(self) -> dict[str, Any] | None:
        c = self.connected
        if c is None:
            return None
        return {"driver": c.driver.key, "platform": c.session.device.platform,
                "classifier": c.classifier, "device": c.session.device.model_dump(mode="json"),
                "sessionId": c.session.id, "logDir": str(c.session.log_dir),
                "screen": _safe(c.driver.describe_screen)}

    def connect(self, *, platform: str | None = None, driver: str | None = None, device_id: str | None = None,
                options: Mapping[str, Any] | None = None, url: str | None = None) -> Connected:
        """Start a device through the one session lifecycle, exactly as ``trailblaze run`` starts one.
        A connected device is ended first: one device at a time. ``url`` (``session start --url``) names
        the driver that takes it when nothing else chose one."""
        self.disconnect(SessionOutcome.SUCCEEDED)
        factory, ws = self.factory, self.ws
        spec = device_id or platform
        if device_id and platform and "/" not in device_id:
            spec = f"{platform}/{device_id}"
        device = factory.parse_device(spec) if spec else None
        if driver:
            cls = factory.drivers.resolve(driver)
        else:
            picked = factory.pick_driver(ws.config, device, fallback=None)
            if picked is None:
                picked = choose_driver(factory.drivers, url)
            cls = picked
        self._check_device_options(cls, options or {})
        driver_options = {**self.settings.driver_options, **dict(options or {})}
        run_options = dataclasses.replace(self._base_options, driver_options=driver_options)
        factory.options = run_options
        stack = contextlib.ExitStack()
        lifecycle = stack.enter_context(factory.open(workspace=ws, driver=cls, device=device,
                                                     target=self.settings.target, extra={"mcp": True}))
        self.redactor.watch(lifecycle.session.memory)
        self.connected = Connected(lifecycle, stack, run_options)
        self.last_snapshot = None
        return self.connected

    def _check_device_options(self, cls: type[Driver], options: Mapping[str, Any]) -> None:
        """A client's ``device`` options may not name a program, a command line, a remote endpoint or a
        path outside the workspace (the settings each driver marks, see ``trailblaze.host_settings``)
        unless the user started the server with ``--allow-host-tools``: page content can steer an agent."""
        if self.settings.allow_host_tools:
            return
        refused = refused_settings(cls.config_model, options, self.ws.config.root)
        if refused:
            raise BadInputError(f"device option{'s' if len(refused) > 1 else ''} {', '.join(refused)} of "
                                f"driver '{cls.key}' not allowed from an MCP client: nothing was started",
                                hint="the user can set it in trails/config/trailblaze.yaml or with "
                                     "`trailblaze mcp -o`, or start `trailblaze mcp --allow-host-tools`")

    def snapshot(self, detail: frozenset[str] = frozenset(), screenshot: bool = False) -> tuple[str, bytes | None]:
        """The compact screen text with refs, as ``trailblaze snapshot`` prints it (kept as ``last_snapshot``)."""
        c = self.require()
        unsupported = sorted(detail - set(c.driver.snapshot_details))
        if unsupported:
            raise BadInputError(f"driver '{c.driver.key}' has no {', '.join(unsupported)} snapshot detail",
                                hint=f"it offers: {', '.join(c.driver.snapshot_details) or 'none'}")
        text = screen_header(c.driver, c.session.device) + "\n" + c.driver.snapshot(detail=detail)
        text = str(c.session.memory.redact(text))
        self.last_snapshot = text
        png = c.driver.screenshot() if screenshot else None
        return text, png

    def disconnect(self, outcome: SessionOutcome = SessionOutcome.SUCCEEDED) -> list[str]:
        """End the device session, if any: driver finished, plugins told, driver stopped, logs flushed.
        Returns the problems the ending met."""
        connected, self.connected = self.connected, None
        if connected is None:
            return []
        connected.lifecycle.outcome = outcome
        connected.close.close()
        self.redactor.unwatch(connected.lifecycle.session.memory)
        return list(connected.lifecycle.problems)


def _safe(fn: Callable[[], str | None]) -> str | None:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a description is optional
        return None
