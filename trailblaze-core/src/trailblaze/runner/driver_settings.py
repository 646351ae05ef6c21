"""A driver's settings from the workspace's ``drivers:`` and a trail's ``config.drivers``, and
``trailblaze check``'s validation of them (the run merges them with ``-o``/``-d`` in ``make_driver``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..config import WorkspaceConfig, validate_config
from ..driver import Driver, DriverRegistry
from ..errors import ConfigError, SourceLocation

if TYPE_CHECKING:
    from ..trail.model import Trail


def workspace_driver_settings(cls: type[Driver], ws: WorkspaceConfig) -> dict[str, Any]:
    """The workspace's ``drivers:`` settings of ``cls``, under its key and then its aliases."""
    configured = dict(ws.driver_settings(cls.key))
    for alias in cls.aliases:
        configured.update(ws.driver_settings(alias))
    return configured


def unknown_trail_drivers(trail: "Trail", drivers: DriverRegistry) -> list[ConfigError]:
    """A ``config.drivers`` entry naming no installed driver, one error each at its line: a typo must
    not silently drop the settings."""
    return [ConfigError(f"'drivers.{name}': no installed driver is called '{name}'",
                        location=trail.config.driver_locations.get(name),
                        hint=f"installed drivers: {', '.join(drivers.keys())}")
            for name in trail.config.drivers if drivers.get(name) is None]


def trail_driver_settings(cls: type[Driver], trail: "Trail", drivers: DriverRegistry) -> dict[str, Any]:
    """The trail's ``config.drivers`` entries for ``cls`` (by key or alias, as ``drivers`` resolves)."""
    settings: dict[str, Any] = {}
    for name, values in trail.config.drivers.items():
        if drivers.get(name) is cls:
            settings.update(values)
    return settings


def check_trail_driver_settings(trail: "Trail", ws: WorkspaceConfig, drivers: DriverRegistry) -> list[ConfigError]:
    """``trailblaze check``'s view of ``config.drivers``: every entry validated by its driver's model over
    the workspace's settings, as the run will (``-o`` aside), without starting anything."""
    problems = unknown_trail_drivers(trail, drivers)
    seen: set[type[Driver]] = set()
    for name in trail.config.drivers:
        cls = drivers.get(name)
        if cls is None or cls in seen:
            continue
        seen.add(cls)
        merged = {**workspace_driver_settings(cls, ws), **trail_driver_settings(cls, trail, drivers)}
        try:
            validate_config(cls.config_model, merged, owner=f"driver '{cls.key}'",
                            location=_setting_location(cls, trail, merged))
        except ConfigError as exc:
            problems.append(exc)
    return problems


def _setting_location(cls: type[Driver], trail: "Trail", settings: dict[str, Any]) -> SourceLocation | None:
    """The line of the first setting the driver's model rejects (else of the driver's entry)."""
    from pydantic import ValidationError

    names = [n for n in trail.config.drivers if n in (cls.key, *cls.aliases)] or list(trail.config.drivers)
    locations = trail.config.driver_locations
    try:
        cls.config_model.model_validate(settings)
    except ValidationError as exc:
        for error in exc.errors():
            key = str(error["loc"][0]) if error["loc"] else ""
            for name in names:
                if f"{name}.{key}" in locations:
                    return locations[f"{name}.{key}"]
    return next((locations[n] for n in names if n in locations), None)
