"""The web driver's settings: ``drivers.playwright-native`` in ``trails/config/trailblaze.yaml`` and ``-o``.

Validated before a browser starts, so a typo (``headles: false``) is an error naming the key rather than
a setting silently ignored.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from trailblaze import DriverConfig, HostKind, host_setting
from trailblaze import GRID_ENDPOINT_PREFIX as GRID_PREFIX

TraceMode = Literal["on", "off", "retain-on-failure"]
EvidenceMode = Literal["off", "on", "retain-on-failure"]
ScreenshotMode = Literal["on", "off", "only-on-failure"]
NetworkMode = Literal["errors", "all"]
_NETWORK_FORMER_NAMES = {"on": "all", "off": "errors"}


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
    grid_url: str | None = Field(None, json_schema_extra=host_setting(HostKind.ENDPOINT))
    """A Selenium Grid 4 hub (``http://host:4444``) or a cloud hub that speaks its protocol: Chromium
    starts on one of its nodes and Playwright drives it over the session's DevTools endpoint. Chromium
    only. Credentials go in the URL (``https://USER:KEY@hub``), from the environment, never a file."""
    grid_capabilities: dict[str, Any] = Field(default_factory=dict,
                                              json_schema_extra=host_setting(HostKind.ENDPOINT))
    """Capabilities added to the Grid session request (``platformName``, ``se:name``, a cloud vendor's
    ``bstack:options`` or ``sauce:options``); ``goog:chromeOptions.args`` are appended to the driver's."""
    grid_queue_timeout_ms: int = Field(300_000, gt=0)
    """How long to wait in the hub's session queue while every slot is busy before the trail fails
    (exit 2, naming the hub). The hub's own ``session-request-timeout`` may end the wait sooner."""
    trace: TraceMode = "off"
    """A Playwright trace of the trail: ``retain-on-failure`` records it and keeps it for a failed trail,
    ``on`` keeps it always. Off by default, as in pytest-playwright: recording costs on every run,
    passing or not (docs/web.md, Artifacts)."""
    evidence: EvidenceMode = "retain-on-failure"
    """The requests (which ones: ``network``) and every console message and page error, written as
    ``network.ndjson`` and ``console.ndjson`` in the session's log folder: for a failed attempt
    (``retain-on-failure``, the default), always (``on``), or not captured (``off``)."""
    network: NetworkMode = "errors"
    """What the driver hears of the pages' requests. ``errors`` (the default): no event per request; the
    requests that fail and the responses with HTTP ≥ 400 are logged and kept in the network evidence, as
    Chromium reports them (its ``Failed to load resource`` console errors: every such response, also
    cross-origin and in frames, without its method), and a failed attempt's network evidence also lists
    the last 100 requests of each open page, read from the browser then. ``all``: every request is heard
    as it ends (method, status, resource type, timing: the evidence holds all of them, and HTTP ≥ 400 is
    logged with its method), at about a millisecond of Playwright's own work in this process per request
    (a Request, a Response and an event), on every run. ``web_assertNetworkEvent`` works with both.
    ``on`` and ``off``, this setting's first names, still work (deprecated): ``all`` and ``errors``."""
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

    @field_validator("executable_path", "base_url", "connect", "cdp_url", "storage_state", "grid_url")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value.strip() or None if isinstance(value, str) else value

    @field_validator("network", mode="before")
    @classmethod
    def _network_former_names(cls, value: Any) -> Any:
        """``on``/``off`` were this setting's values for one release (``off`` heard failed requests only):
        they keep working as ``all``/``errors``, with a warning, until the next minor version."""
        if isinstance(value, str) and value in _NETWORK_FORMER_NAMES:
            warnings.warn(f"network: {value} is deprecated; write network: {_NETWORK_FORMER_NAMES[value]}",
                          DeprecationWarning, stacklevel=2)
            return _NETWORK_FORMER_NAMES[value]
        return value

    @model_validator(mode="before")
    @classmethod
    def _grid_pool_entry(cls, value: Any) -> Any:
        """A pool entry of the Grid kind (``grid+http://hub:4444``) arrives as ``connect``: it is a hub."""
        if isinstance(value, dict) and isinstance(value.get("connect"), str) \
                and value["connect"].strip().startswith(GRID_PREFIX):
            value = {**value, "grid_url": value["connect"].strip()[len(GRID_PREFIX):]}
            del value["connect"]
        return value

    @field_validator("grid_url")
    @classmethod
    def _hub_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("expected the http(s) URL of a Selenium Grid hub, such as http://127.0.0.1:4444")
        return value

    @field_validator("grid_capabilities")
    @classmethod
    def _grid_browser(cls, value: dict[str, Any]) -> dict[str, Any]:
        from .grid import check_capabilities

        check_capabilities(value)
        return value

    @model_validator(mode="after")
    def _one_remote(self) -> WebDriverConfig:
        given = [name for name in ("connect", "cdp_url", "grid_url") if getattr(self, name)]
        if len(given) > 1:
            raise ValueError(f"set one of 'connect' (a Playwright server), 'cdp_url' (a DevTools endpoint) and "
                             f"'grid_url' (a Selenium Grid hub), not {' and '.join(repr(n) for n in given)}")
        return self

    @property
    def remote(self) -> str | None:
        """The remote browser's address as reports may show it (a hub's credentials left out)."""
        if self.grid_url:
            from .grid import GridHub

            return f"{GRID_PREFIX}{GridHub.parse(self.grid_url).url}"
        return self.connect or self.cdp_url
