"""The ``host`` driver: a session with no device, for trails made only of host tools.

It lets ``trailblaze run`` execute device-independent trails (``exec``, ``wait``, MCP tools that call
services) and gives plugin authors a driver that always exists.
"""

from __future__ import annotations

import platform as _platform
from typing import TYPE_CHECKING

from ..contract.markers import hookimpl
from ..driver import DeviceInfo, Driver, DriverConfig, DriverRegistry

if TYPE_CHECKING:
    from ..session import Session


class HostDriver(Driver):
    """Runs tools on this machine only; there is no screen to look at."""

    key = "host"
    aliases = ("HOST", "NONE")
    platform = "host"
    description = "No device: host-side tools only (exec, wait, MCP tools)."
    config_model = DriverConfig
    default_classifiers = ("host",)

    def start(self, session: "Session") -> DeviceInfo:
        return DeviceInfo(platform="host", driver=self.key, classifiers=["host"], name=_platform.node())

    def stop(self) -> None:
        return None

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        return "(host session: no screen)"


@hookimpl
def trailblaze_register_drivers(registry: DriverRegistry) -> None:
    registry.add_driver(HostDriver)
