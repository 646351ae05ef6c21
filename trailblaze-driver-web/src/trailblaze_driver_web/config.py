"""The web driver's settings: ``drivers.playwright-native`` in ``trails/config/trailblaze.yaml`` and ``-o``.

Validated before a browser starts, so a typo (``headles: false``) is an error naming the key rather than
a setting silently ignored.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from trailblaze import DriverConfig, HostKind, host_setting

TraceMode = Literal["on", "off", "retain-on-failure"]
EvidenceMode = Literal["off", "on", "retain-on-failure"]
ScreenshotMode = Literal["on", "off", "only-on-failure"]


class Viewport(BaseModel):
    """``{width: 390, height: 844}`` or the shorthand ``390x844`` (handy with ``-o viewport=390x844``)."""

    model_config = ConfigDict(extra="forbid")

    width: int = Field(1280, ge=100, le=10_000)
    height: int = Field(720, ge=100, le=10_000)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            width, sep, height = value.lower().replace(" ", "").partition("x")
            if not sep or not width.isdigit() or not height.isdigit():
                raise ValueError("expected WIDTHxHEIGHT such as 390x844")
            return {"width": int(width), "height": int(height)}
        return value


class WebDriverConfig(DriverConfig):
    """Settings of the ``playwright-native`` driver (all optional)."""

    executable_path: str | None = Field(None, alias="browser_path",
                                        json_schema_extra=host_setting(HostKind.PROGRAM))
    """A Chromium binary to launch. Default: ``TRAILBLAZE_CHROMIUM``, else Playwright's own build, else
    ``chromium-headless-shell``/``chromium``/``chromium-browser``/``google-chrome`` on PATH."""
    headless: bool = True
    viewport: Viewport = Field(default_factory=Viewport)
    base_url: str | None = None
    """Relative URLs of ``web_navigate`` resolve against it. May hold memory tokens (``{{shopUrl}}``).
    Default: the target trailmap's ``platforms.web.base_url``."""
    connect: str | None = Field(None, json_schema_extra=host_setting(HostKind.ENDPOINT))
    """A Playwright server WebSocket endpoint (``ws://host:port/``, ``playwright run-server``, grids)."""
    cdp_url: str | None = Field(None, json_schema_extra=host_setting(HostKind.ENDPOINT))
    """A Chromium DevTools endpoint (``http://host:9222``) for hosted Chrome services."""
    connect_headers: dict[str, str] = Field(default_factory=dict,
                                            json_schema_extra=host_setting(HostKind.ENDPOINT))
    connect_launch_options: dict[str, Any] = Field(default_factory=dict,
                                                   json_schema_extra=host_setting(HostKind.COMMAND_LINE))
    """Launch options a Playwright server should use (sent as ``x-playwright-launch-options``), e.g.
    ``{executablePath: /usr/bin/chromium, args: [--no-sandbox]}`` for a server started with ``--unsafe``."""
    trace: TraceMode = "off"
    """A Playwright trace of the trail: ``retain-on-failure`` records it and keeps it for a failed trail,
    ``on`` keeps it always. Off by default, as in pytest-playwright: recording costs on every run,
    passing or not (docs/web.md, Artifacts)."""
    evidence: EvidenceMode = "retain-on-failure"
    """Every request (method, URL, status, timing) and every console message and page error, written as
    ``network.ndjson`` and ``console.ndjson`` in the session's log folder: for a failed attempt
    (``retain-on-failure``, the default), always (``on``), or not captured (``off``)."""
    video: EvidenceMode = "off"
    """A video of the trail (``video.webm``), from Chromium's screencast encoded with the system's ffmpeg:
    kept for a failed attempt (``retain-on-failure``), always (``on``), or not recorded (``off``)."""
    ffmpeg_path: str | None = None
    """The ffmpeg that encodes the video. Default: ``ffmpeg`` on PATH."""
    trace_screenshots: bool = True
    """Record the screencast (the trace viewer's filmstrip) in a trace; DOM snapshots are always in."""
    screenshots: ScreenshotMode = "only-on-failure"
    """A screenshot of a failed step (``only-on-failure``, the default), after every step (``on``: the
    report shows one per step), or never."""
    timeout_ms: int = Field(5_000, ge=0)
    """How long actions wait for their element and verifications poll before they fail."""
    navigation_timeout_ms: int = Field(30_000, ge=0)
    launch_args: list[str] = Field(default_factory=list,
                                   json_schema_extra=host_setting(HostKind.COMMAND_LINE))
    slow_mo_ms: float = Field(0, ge=0)
    dialogs: Literal["accept", "dismiss"] = "accept"
    """What to do with ``alert``/``confirm``/``prompt`` dialogs (the message is logged either way)."""
    test_id_attribute: str = "data-testid"
    storage_state: str | None = Field(None, json_schema_extra=host_setting(HostKind.PATH))
    """A Playwright storage-state file (cookies and local storage, e.g. saved from a signed-in live session
    with ``web_getStorageState``) every context starts from, so a page behind a login opens signed in."""
    upload_dirs: list[str] = Field(default_factory=list, json_schema_extra=host_setting(HostKind.PATH))
    """Directories outside the workspace that ``web_uploadFile`` may read files from (the workspace
    itself always may): a trail cannot hand an arbitrary file of the machine to the page."""
    locale: str | None = None
    classifiers: list[str] = Field(default_factory=lambda: ["web"])

    @field_validator("executable_path", "base_url", "connect", "cdp_url", "storage_state")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value.strip() or None if isinstance(value, str) else value

    @model_validator(mode="after")
    def _one_remote(self) -> WebDriverConfig:
        if self.connect and self.cdp_url:
            raise ValueError("set either 'connect' (a Playwright server) or 'cdp_url' (a DevTools endpoint), not both")
        return self

    @property
    def remote(self) -> str | None:
        return self.connect or self.cdp_url
