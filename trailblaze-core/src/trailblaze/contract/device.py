"""What a driver reports about its device, the step it is told about, and the driver protocol.

``trailblaze.driver.Driver`` is the base class plugins subclass; its session hooks take the concrete
``Session``, which in turn holds the driver. So that the session does not import the class that imports
it, a session holds its driver through ``SessionDriver`` (this module's protocol, generic in the session
type), and tools see it through ``DeviceDriver`` (the device side only). Every ``Driver`` satisfies both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from ..selectors import NodeSelector
    from .recording import RecordedStepDraft, RecordOptions


class DeviceInfo(BaseModel):
    """What a started driver reports about its device. Feeds memory, logs and plugin contexts."""

    model_config = ConfigDict(extra="allow")

    platform: str
    """Lower-case platform: ``web``, ``android``, ``ios``, ``host``."""
    driver: str
    """The driver key, e.g. ``playwright-native``."""
    classifiers: list[str] = []
    """Broad first, e.g. ``["android", "phone"]`` or ``["web"]``."""
    width: int | None = None
    height: int | None = None
    device_id: str | None = None
    name: str | None = None

    def envelope(self) -> dict[str, Any]:
        """The ``device`` object of upstream's context envelopes."""
        out: dict[str, Any] = {"platform": self.platform, "driverType": self.driver}
        if self.width is not None:
            out["widthPixels"] = self.width
        if self.height is not None:
            out["heightPixels"] = self.height
        return out


class StepInfo(Protocol):
    """The step a driver is told about (the trail's ``TrailStep`` is one).

    ``number`` is the one number people see for it everywhere — the progress line, errors, the summary,
    the report, JUnit, screenshot names: 1-based, the trailhead 0. ``index`` is its position in the
    trail (0-based), which the event logs carry as ``stepIndex``."""

    @property
    def index(self) -> int: ...

    @property
    def number(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def text(self) -> str | None: ...


class DeviceDriver(Protocol):
    """A started driver as tools, screens and waypoints use it. The methods are documented on
    ``trailblaze.driver.Driver``, which implements them."""

    @property
    def key(self) -> str: ...

    @property
    def platform(self) -> str: ...

    @property
    def default_classifiers(self) -> tuple[str, ...]: ...

    @property
    def snapshot_details(self) -> tuple[str, ...]: ...

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str: ...

    def native_snapshot(self, *, detail: frozenset[str] = frozenset()) -> str: ...

    def count_matches(self, selector: NodeSelector) -> int: ...

    def find_matches(self, selector: NodeSelector, timeout_ms: int | None = None) -> list[dict[str, Any]]: ...

    def describe_screen(self) -> str | None: ...

    def open_url(self, url: str) -> None: ...

    def wait_for_text(self, text: str, timeout_s: float) -> bool: ...

    def screenshot(self) -> bytes | None: ...

    def record_actions(self, options: RecordOptions) -> list[RecordedStepDraft]: ...

    def lost(self, error: BaseException | None = None) -> str | None: ...


SessionT = TypeVar("SessionT", contravariant=True)


class SessionDriver(DeviceDriver, Protocol[SessionT]):
    """A driver as its session and the session lifecycle hold it: the device side plus the calls that
    name the session (``SessionDriver[Session]``)."""

    def start(self, session: SessionT) -> DeviceInfo: ...

    def stop(self) -> None: ...

    def step_started(self, session: SessionT, step: StepInfo) -> None: ...

    def step_finished(self, session: SessionT, step: StepInfo, ok: bool) -> None: ...

    def trail_finished(self, session: SessionT, ok: bool) -> None: ...


__all__ = ["DeviceDriver", "DeviceInfo", "SessionDriver", "StepInfo"]
