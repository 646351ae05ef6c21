"""``trailblaze run --all-devices``: each trail on every device that can run it, each run a result of its own.

Upstream (``trailblaze-host/…/cli/TrailCommand.kt``, ``--all-devices``; the choice is
``TrailDeviceSelector.selectDevicesToRun`` and ``supportedPlatformsForTrail`` in
``trailblaze-models/…/devices/TrailDeviceSelection.kt``) runs each trail once per connected device whose
platform the trail declares — ``config.devices`` keys and every ``recording:`` classifier folded to their
platform (``android-tablet`` → ``android``), ``platform:``/``driver:`` for a v1 trail — skips devices of
other platforms, treats a trail declaring none as runnable anywhere, and refuses ``--device`` with it.

Here a device is what an installed driver drives: each driver starts one device of its platform (a
browser, the configured Android or iOS device), so a trail runs once per platform it declares that an
installed driver drives; devices of one platform are given with ``-d android/<id>`` instead, since no
driver here lists the devices connected to a machine. A trail that declares no platform, or only platforms
no installed driver drives, runs once as without the flag (and its missing driver is reported as then).
Reading a trail's platforms never fails: a file that does not parse declares none, and its run reports
the error."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..driver import DriverRegistry
from ..errors import BadInputError


def refuse_with_devices(devices: Iterable[str]) -> None:
    """``--device`` and ``--all-devices`` are two answers to one question (upstream rejects both, MISUSE)."""
    if list(devices):
        raise BadInputError("--device and --all-devices are mutually exclusive",
                            hint="pass --all-devices to run on every platform each trail declares, or -d to name "
                                 "the device(s), not both")


def declared_platforms(path: Path, drivers: DriverRegistry) -> set[str]:
    """The platforms ``path`` declares that an installed driver drives (empty: none, or unreadable)."""
    from ..yamlio import load_fast, read_text

    try:
        doc = load_fast(read_text(path), path)
    except Exception:  # the run of this trail reports what is wrong with it
        return set()
    platforms = {driver.platform for driver in drivers}
    found: set[str] = set()

    def classifier(name: Any) -> None:
        head = str(name).strip().lower().split("-")[0]
        if head in platforms:
            found.add(head)

    def driver(name: Any) -> None:
        cls = drivers.get(str(name)) if isinstance(name, str) else None
        if cls is not None:
            found.add(cls.platform)

    def config(block: Any) -> None:
        if not isinstance(block, Mapping):
            return
        devices = block.get("devices")
        if isinstance(devices, Mapping):
            for key, value in devices.items():
                classifier(key)
                driver(value)
        if block.get("driver") is not None:
            driver(block.get("driver"))
        if block.get("platform") is not None:
            classifier(block.get("platform"))

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "config":
                    config(value)
                elif key == "recording" and isinstance(value, Mapping):
                    for name in value:
                        classifier(name)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(doc)
    return found


def plan_every_device(files: list[Path], drivers: DriverRegistry) -> tuple[list[str | None], list[list[Path]]]:
    """The devices of the run (a platform, or None for the trails that declare none) and, per device,
    its trails in the order given."""
    per_file = [declared_platforms(path, drivers) for path in files]
    declared: set[str] = set().union(*per_file)
    devices: list[str | None] = [*sorted(declared)]
    if any(not platforms for platforms in per_file) or not devices:
        devices.append(None)
    plan = [[path for path, platforms in zip(files, per_file, strict=True)
             if (device in platforms if device is not None else not platforms)] for device in devices]
    return devices, plan
