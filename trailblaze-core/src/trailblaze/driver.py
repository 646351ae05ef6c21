"""The driver contract: how a plugin connects tools to a real device, browser or host.

A driver is a class registered by a plugin through ``trailblaze_register_drivers``. The core never
imports a driver SDK: drivers import theirs lazily in ``start``. One driver instance serves one session.
A session and a tool's context hold their driver through the protocols this module re-exports from
``trailblaze.contract.device`` (``SessionDriver``, ``DeviceDriver``); every ``Driver`` satisfies both.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeVar

from .contract.device import DeviceDriver, DeviceInfo, SessionDriver, StepInfo
from .contract.sources import Contributions, ToolSource
from .errors import BadInputError

if TYPE_CHECKING:
    from .contract.recording import RecordedStepDraft, RecordOptions
    from .selectors import NodeSelector
    from .session import Session


class DriverConfig(BaseModel):
    """Base for a driver's configuration model. Unknown keys are errors that name the key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


ConfigT = TypeVar("ConfigT", bound=DriverConfig, default=DriverConfig, covariant=True)
"""A driver's configuration model; a bare ``Driver`` means ``Driver[DriverConfig]``."""


class Driver(ABC, Generic[ConfigT]):
    """Subclass this to add a device kind: ``class AcmeDriver(Driver[AcmeConfig])``.

    Class attributes name it (``key`` such as ``playwright-native``; ``aliases`` such as the upstream
    enum ``PLAYWRIGHT_NATIVE``), say which ``platform`` it drives and which ``config_model`` validates
    its configuration before anything starts. Set ``config_model`` to the same class as the type
    argument: the runner builds the driver with an instance of ``config_model`` (a class variable cannot
    name a type variable, so the two are stated separately), and ``self.config`` is then typed as it.
    """

    key: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    platform: ClassVar[str]
    description: ClassVar[str] = ""
    config_model: ClassVar[type[DriverConfig]] = DriverConfig
    default_classifiers: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: ConfigT) -> None:
        self.config: ConfigT = config

    @abstractmethod
    def start(self, session: Session) -> DeviceInfo:
        """Connect to or launch the device. Raise ``DriverError`` (exit 2) when it cannot."""

    @abstractmethod
    def stop(self) -> None:
        """Release everything ``start`` acquired. Must be idempotent and must not raise."""

    endpoint_setting: ClassVar[str | None] = None
    """The setting one endpoint of a pool (``run --endpoint``, one per worker) sets: ``connect`` for a
    Playwright server, ``server_url`` for an Appium server or hub; None: the driver takes no endpoint."""

    @classmethod
    def device_settings(cls, instance_id: str) -> dict[str, Any]:
        """The configuration that points this driver at one device (``-d platform/<instanceId>``).

        The default uses a ``udid`` or ``device`` setting when the config model has one; override for
        anything else."""
        fields = cls.config_model.model_fields
        for name in ("udid", "device", "device_id"):
            if name in fields:
                return {name: instance_id}
        raise BadInputError(f"driver '{cls.key}' cannot be pointed at a device ('{instance_id}')",
                            hint="drop the instance id from -d, or configure the driver instead")

    snapshot_details: ClassVar[tuple[str, ...]] = ()
    """Detail names ``snapshot(detail=...)`` understands, e.g. ``bounds`` or ``offscreen``.
    ``trailblaze snapshot`` refuses a detail the driver does not list, instead of silently ignoring it."""

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        """Compact text of the current screen for the agent and for authors (refs included)."""
        raise BadInputError(f"driver '{self.key}' has no screen to snapshot")

    def native_snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        """The platform's own description of the screen (an aria snapshot, a page-source XML).

        ``trailblaze snapshot --raw`` prints it so authors can see what the compact text was built from."""
        raise BadInputError(f"driver '{self.key}' has no raw snapshot")

    def count_matches(self, selector: NodeSelector) -> int:
        """How many elements of the current screen ``selector`` picks, through this driver's own selector
        resolver (the one its tools use). Waypoints are matched with it."""
        raise BadInputError(f"driver '{self.key}' cannot match selectors on a screen")

    def find_matches(self, selector: NodeSelector, timeout_ms: int | None = None) -> list[dict[str, Any]]:
        """Every element ``selector`` picks, as upstream's ``MatchDescriptor`` (``indexPath``, ``bounds``
        ``{left, top, right, bottom}``, ``matchedText``, ``accessibilityId``, ``resourceId``; absent values
        None), in screen order. With ``timeout_ms``, poll until at least one matches or the time is up (an
        empty list then, not an error). The ``findMatches`` tool answers typed tools with it."""
        raise BadInputError(f"driver '{self.key}' cannot match selectors on a screen")

    def describe_screen(self) -> str | None:
        """One line naming what is on screen (a page's URL and title, an app's activity), or None."""
        return None

    @classmethod
    def takes_url(cls, url: str) -> bool:
        """Whether ``url`` names this driver when nothing else chose one: ``snapshot``, ``session start``,
        ``step`` and ``verify`` given ``--url`` and no ``--driver``/``-d``/``defaults.driver`` start the one
        installed driver that answers yes, instead of asking which device. A browser answers for web
        addresses and paths on its base URL. Default: no (a driver may still ``open_url`` deep links
        when it is chosen)."""
        return False

    def open_url(self, url: str) -> None:
        """Open a URL or deep link (``trailblaze snapshot --url``). Raise ``BadInputError`` for a URL the
        driver cannot resolve and ``DriverError`` when the device fails to open it."""
        raise BadInputError(f"driver '{self.key}' cannot open URLs")

    def wait_for_text(self, text: str, timeout_s: float) -> bool:
        """Wait until ``text`` is on screen; False on timeout. The default polls ``snapshot()``, which
        works for every driver; drivers with a native wait override it."""
        deadline = time.monotonic() + timeout_s
        while True:
            if text in self.snapshot():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)

    def screenshot(self) -> bytes | None:
        """PNG bytes of the current screen, or None when the device has no screen."""
        return None

    def record_actions(self, options: "RecordOptions") -> "list[RecordedStepDraft]":
        """Watch a person use the device until they close it (or ``options.should_stop()``) and return
        what they did as recorded steps (``trailblaze record``). Drivers that cannot watch refuse."""
        raise BadInputError(f"driver '{self.key}' cannot record a person's actions",
                            hint="trailblaze record works with the web driver (playwright-native)")

    def step_started(self, session: Session, step: StepInfo) -> None:
        """Called once as each step begins, before its first tool call or model turn (open a trace group,
        start a per-step recording). Every entry point calls it: ``trailblaze run``, the pytest plugin,
        ``step``/``verify`` and each step of ``trailblaze mcp``. Default: nothing."""

    def step_finished(self, session: Session, step: StepInfo, ok: bool) -> None:
        """Called once when a step that started has its outcome (``ok``: it passed), for artifacts:
        screenshots, closing the trace group. A run aborted inside a step (bad input found at run
        time, a lost device, an interrupt) goes straight to ``trail_finished``. Default: nothing."""

    def trail_finished(self, session: Session, ok: bool) -> None:
        """Called once per trail before ``stop`` (keep or drop a trace). Default: nothing."""

    def lost(self, error: BaseException | None = None) -> str | None:
        """Why the device or browser behind this driver is gone, in one line naming the process and
        what it said (``the managed Appium server (pid 7, ...) was killed by SIGKILL``), or None while
        it works. The dispatcher asks after every failed tool call, with the exception when there was
        one: a cause makes the failure an infrastructure error (exit 2), not a failed trail (exit 1).
        Must be cheap and must not raise. Default: None."""
        return None


@dataclass
class DriverEntry:
    cls: type[Driver]
    source: ToolSource


_CANON = re.compile(r"[^a-z0-9]+")


def _canon(name: str) -> str:
    return _CANON.sub("-", name.strip().lower()).strip("-")


@dataclass
class DriverRegistry(Contributions):
    """Drivers by key; aliases (upstream enum names) resolve case- and separator-insensitively. The
    plugin adding a driver is recorded through ``contributing`` (``Contributions``)."""

    _drivers: dict[str, DriverEntry] = field(default_factory=dict)
    _aliases: dict[str, str] = field(default_factory=dict)

    def add_driver(self, cls: type[Driver]) -> None:
        key = cls.key
        if key in self._drivers:
            other = self._drivers[key]
            raise BadInputError(f"driver '{key}' is registered twice: by {other.source} and by "
                                f"{self.current_source or ToolSource()}")
        self._drivers[key] = DriverEntry(cls, self.current_source or ToolSource())
        for alias in (key, *cls.aliases):
            self._aliases[_canon(alias)] = key

    def resolve(self, name: str) -> type[Driver]:
        """The driver ``name`` names: a key, an alias, or a platform (``web``) that one driver drives."""
        key = self._key(name)
        if key is None:
            known = ", ".join(sorted(self._drivers)) or "none (install a driver plugin)"
            several = self._by_platform(name)
            if several:
                raise BadInputError(f"'{name}' is the platform of several drivers: {', '.join(several)}",
                                    hint="name one of them")
            raise BadInputError(f"unknown driver '{name}'", hint=f"installed drivers: {known}")
        return self._drivers[key].cls

    def taking_url(self, url: str) -> list[type[Driver]]:
        """The installed drivers that ``url`` names (``Driver.takes_url``), in registration order."""
        return [e.cls for e in self._drivers.values() if e.cls.takes_url(url)]

    def get(self, name: str) -> type[Driver] | None:
        key = self._key(name)
        return self._drivers[key].cls if key else None

    def _key(self, name: str) -> str | None:
        key = self._aliases.get(_canon(name))
        if key is None:
            by_platform = self._by_platform(name)
            key = by_platform[0] if len(by_platform) == 1 else None
        return key

    def _by_platform(self, name: str) -> list[str]:
        wanted = _canon(name)
        return sorted(k for k, e in self._drivers.items() if _canon(str(e.cls.platform or "")) == wanted)

    def entry(self, key: str) -> DriverEntry:
        return self._drivers[key]

    def keys(self) -> list[str]:
        return sorted(self._drivers)

    def __iter__(self) -> Iterator[type[Driver]]:
        return iter(e.cls for e in self._drivers.values())

    def __len__(self) -> int:
        return len(self._drivers)

    def for_platform(self, platform: str) -> list[type[Driver]]:
        return [e.cls for e in self._drivers.values() if e.cls.platform == platform]


__all__ = [
    "DeviceDriver", "DeviceInfo", "Driver", "DriverConfig", "DriverRegistry", "SessionDriver", "StepInfo",
]
