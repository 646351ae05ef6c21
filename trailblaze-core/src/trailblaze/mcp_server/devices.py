"""The workbench's device: which drivers there are, connecting one through the session lifecycle
(with a client's device options confined), describing it and ending it."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ..driver import Driver
from ..errors import BadInputError
from ..host_settings import refused_settings
from ..listings.screens import choose_driver
from ..session import SessionOutcome
from .bench_state import _Connected
from .tool_offer import ToolOffering

__all__ = ["DeviceBench"]


class DeviceBench(ToolOffering):
    """Connecting and ending the one device (device thread); a new device refreshes the offered tools."""

    def drivers(self) -> list[dict[str, Any]]:
        return [{"key": cls.key, "platform": cls.platform, "aliases": list(cls.aliases),
                 "description": cls.description} for cls in self.factory.drivers]

    def devices_document(self) -> dict[str, Any]:
        return {"drivers": self.drivers(), "connected": self.device_info()}

    def device_info(self) -> dict[str, Any] | None:
        c = self.connected
        if c is None:
            return None
        return {"driver": c.driver.key, "platform": c.session.device.platform,
                "classifier": self.classifier(), "device": c.session.device.model_dump(mode="json"),
                "sessionId": c.session.id, "logDir": str(c.session.log_dir),
                "screen": _safe(c.driver.describe_screen)}

    def connect(self, *, platform: str | None = None, driver: str | None = None, device_id: str | None = None,
                options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Start a device (device thread) through the one session lifecycle, exactly as ``trailblaze run``
        starts one. A connected device is ended first: one device at a time."""
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
                picked = choose_driver(factory.drivers, None)
            cls = picked
        self._check_device_options(cls, options or {})
        driver_options = {**self.settings.driver_options, **dict(options or {})}
        factory.options = dataclasses.replace(self._base_options, driver_options=driver_options)
        stack = contextlib.ExitStack()
        lifecycle = stack.enter_context(factory.open(workspace=ws, driver=cls, device=device,
                                                     target=self.settings.target, extra={"mcp": True}))
        self.redactor.watch(lifecycle.session.memory)
        self.connected = _Connected(lifecycle, stack)
        self.last_snapshot = None
        self.refresh_tools(force=True)
        info = self.device_info()
        assert info is not None
        return info

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

    def disconnect(self, outcome: SessionOutcome = SessionOutcome.SUCCEEDED) -> list[str]:
        """End the device session, if any (device thread): driver finished, plugins told, driver
        stopped, logs flushed. Unsaved recorded steps stay."""
        connected, self.connected = self.connected, None
        if connected is None:
            return []
        self.tool_descriptors = []
        self._registry_fingerprint = ()
        connected.lifecycle.outcome = outcome
        connected.close.close()
        self.redactor.unwatch(connected.lifecycle.session.memory)
        return list(connected.lifecycle.problems)


def _safe(fn: Callable[[], str | None]) -> str | None:
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a description is optional
        return None
