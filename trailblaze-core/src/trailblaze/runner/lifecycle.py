"""One session lifecycle for every entry point: ``run``, ``snapshot``, ``tools``, ``step``/``verify``,
``trailblaze.testing`` and anything built on top (a pytest plugin, an MCP server).

Sessions used to be opened and closed in four places that drifted apart (one told plugins the session
had started only after every plugin's hook had run, so a plugin failing there left the others' servers
running). Here the order is written down once and every caller gets it:

Opening
  1. pick the driver class: ``--driver`` > the trail's ``devices``/``driver`` pin > ``-d``'s platform >
     the workspace's ``defaults.driver`` > the fallback (``host``);
  2. build the driver (workspace ``drivers:`` settings, then ``-o``, then ``-d``) and the session
     (a copy of the workspace's tool registry, memory, log);
  3. start the driver (``session.device`` is what it reports);
  4. ``trailblaze_session_started`` for each plugin in hook order; a plugin is recorded as started
     *before* its hook runs, so one that fails halfway is still told to finish.

Steps, in between (``SessionLifecycle.step_started``/``step_finished``; the runner, ``step``/``verify``,
the pytest plugin and ``trailblaze mcp`` all pass here)
  ``driver.step_started(session, step)`` once as each step begins, ``driver.step_finished(session, step,
  ok)`` once when it has its outcome; ``step.number`` is the step's one 1-based number.

Closing, on every exit path (normal return, exception, ``KeyboardInterrupt``), at most once
  5. ``driver.trail_finished(session, passed)`` if the driver started;
  6. ``trailblaze_session_finished`` for every started plugin, last started first, each isolated (one
     raising does not stop the rest; its error becomes a warning line naming the plugin);
  7. ``driver.stop()`` if the driver started;
  8. the ``Ended`` status log entry, the caller's ``closing`` callbacks, then ``session.log.close()``.

``SessionFactory(options, host=...).open(...)`` does all of it as a context manager (``trailblaze.testing``
``open_session`` is the plugin authors' shorthand for a test session). Callers that must observe the
steps one by one (the runner checks a trail's classifiers between 3 and 4) use ``SessionLifecycle``
directly.
"""

from __future__ import annotations

import random
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..config import WorkspaceConfig, find_workspace, validate_config
from ..contract.device import DeviceInfo, SessionDriver, StepInfo
from ..driver import Driver, DriverRegistry
from ..errors import BadInputError, ConfigError, DriverError, InfrastructureError, TrailblazeError
from ..logs import SessionLog
from ..memory import Memory, Redactor
from ..plugins import PluginHost, get_host
from ..session import Session, SessionOptions, SessionOutcome
from . import interrupt
from .driver_settings import (_setting_location, trail_driver_settings, unknown_trail_drivers,
                              workspace_driver_settings)
from .options import RunOptions
from .run_facts import RUN_ENDPOINT, run_facts
from .workspace import ToolWorkspace, load_tool_workspace

if TYPE_CHECKING:
    from ..trail.actors import Actor
    from ..trail.model import Trail

Warn = Callable[[str], None]

LIFECYCLE_KEY = "trailblaze.lifecycle"
"""``session.resources`` key under which a session's ``SessionLifecycle`` is kept (see ``lifecycle_of``)."""


def _stderr_warning(line: str) -> None:
    print(f"trailblaze: warning: {line}", file=sys.stderr)


@dataclass(frozen=True)
class Device:
    """A ``-d`` argument: ``platform``, ``platform/instanceId`` or a bare ``instanceId``."""

    spec: str
    platform: str | None
    instance_id: str | None

    @classmethod
    def parse(cls, spec: str, platforms: Iterable[str] = ()) -> "Device":
        """``platforms`` are the installed drivers' platforms: a bare ``tv`` is a platform when a plugin
        drives one, not an instance id."""
        spec = spec.strip()
        if not spec:
            raise BadInputError("-d/--device needs a value such as android/emulator-5554")
        known = {"android", "ios", "web", "host", *(p.lower() for p in platforms)}
        if "/" in spec:
            platform, _, instance = spec.partition("/")
            return cls(spec, platform.strip().lower() or None, instance.strip() or None)
        if spec.lower() in known:
            return cls(spec, spec.lower(), None)
        return cls(spec, None, spec)


CAPTURE_SETTINGS: dict[str, tuple[str, Any, Any, str | None]] = {
    "video": ("video", "on", "off", None),
    "network": ("evidence", "on", "off", None),
    "logcat": ("device_logs", ["logcat"], [], "android"),
    "ios_logs": ("device_logs", ["syslog"], [], "ios"),
}
"""Upstream's capture streams as driver settings: stream → (setting, on, off, only on this platform)."""

CAPTURE_ALSO: dict[str, tuple[str, Any]] = {"network": ("network", "all")}
"""A second setting a stream turned on sets, where the driver has it: ``--capture-network`` keeps every
request, so the web driver hears every one (its default, ``errors``, hears the failures alone)."""


def capture_settings(cls: type[Driver], capture: Mapping[str, bool]) -> dict[str, Any]:
    """The settings of ``cls`` that ``--capture-*`` turn on or off: a stream a driver has no setting for is
    not captured there (upstream's flags are no-ops on devices without the stream, too). ``-o`` still wins."""
    out: dict[str, Any] = {}
    fields = cls.config_model.model_fields
    for stream, wanted in capture.items():
        setting, on, off, platform = CAPTURE_SETTINGS[stream]
        if setting in fields and (platform is None or cls.platform == platform):
            out[setting] = on if wanted else off
            also = CAPTURE_ALSO.get(stream)
            if wanted and also is not None and also[0] in fields:
                out[also[0]] = also[1]
    return out


def start_driver(driver: SessionDriver[Session], session: Session) -> DeviceInfo:
    """Start ``driver`` for ``session``; a driver's own exception becomes a ``DriverError`` (exit 2)."""
    try:
        return driver.start(session)
    except TrailblazeError:
        raise
    except Exception as exc:  # noqa: BLE001 - a driver's own failure is infrastructure
        raise DriverError(f"driver '{driver.key}' failed to start: {type(exc).__name__}: {exc}") from exc


def run_output_dir(options: RunOptions) -> Path:
    """Where a run of ``options`` writes: ``--output-dir``, else ``./logs``, absolute."""
    return (options.output_dir or Path.cwd() / "logs").resolve()


class SessionFactory:
    """Picks drivers, loads workspaces (cached per root) and builds sessions for one set of options.

    ``Runner`` has one; a command that opens one session makes a throwaway one. Thread-safe: the runner
    drives several devices from one factory. ``finding`` shows a workspace's tool-check findings
    (default: stderr); ``resources`` are put into every session it builds (the runner's cost budget)."""

    def __init__(self, options: RunOptions | None = None, *, host: PluginHost | None = None,
                 warn: Warn | None = None, show_findings: bool = True, load_drivers: bool = True,
                 finding: Warn | None = None, resources: Mapping[str, Any] | None = None) -> None:
        self.options = options or RunOptions()
        self.show_findings = show_findings
        self.host = host or get_host()
        self.warn: Warn = warn or _stderr_warning
        self._finding = finding
        self._resources = dict(resources or {})
        self._drivers: DriverRegistry | None = None
        self._drivers_lock = threading.Lock()
        if load_drivers:
            self.drivers  # noqa: B018 - a broken driver plugin stops the command here, before any trail
        self._workspaces: dict[Path | None, ToolWorkspace] = {}
        self._lock = threading.Lock()
        self.output_dir = run_output_dir(self.options)
        self.redactor = Redactor(self.options.secrets.values())
        """The one redaction point of everything these sessions write (logs, summary, reports, console):
        it knows the ``--secret`` values and each open session's memory, so secrets registered mid-session
        are covered too (``RunResult.redactor`` and every ``SessionLog`` are this object)."""

    @property
    def drivers(self) -> DriverRegistry:
        """The installed drivers. With ``load_drivers=False`` they are registered on first use: a command
        that never picks a driver (``check`` and ``schema`` learn the tools on a session whose driver is
        not started) then imports no driver plugin's modules."""
        with self._drivers_lock:
            if self._drivers is None:
                drivers = DriverRegistry()
                self.host.register_drivers(drivers)
                self._drivers = drivers
            return self._drivers

    # -- workspaces ---------------------------------------------------------------------------
    def workspace_for(self, path: Path | None, *, exact: bool = False) -> ToolWorkspace:
        """The workspace that ``path`` (a trail, a directory, or None for the current directory) is in;
        with ``exact``, the workspace rooted at ``path`` itself (an explicit ``--workspace``)."""
        with self._lock:
            root = path if exact else find_workspace(path)
            cached = self._workspaces.get(root)
            if cached is None:
                cached = self._workspaces[root] = load_tool_workspace(root, self.host)
                for finding in cached.check.findings if self.show_findings else ():
                    self.show_finding(finding.render())
            return cached

    def show_finding(self, line: str) -> None:
        """A tool check's finding (its line already says ``error:``/``warning:``)."""
        if self._finding is not None:
            self._finding(line)
        else:
            print(line, file=sys.stderr)

    # -- drivers ------------------------------------------------------------------------------
    def parse_device(self, spec: str) -> Device:
        return Device.parse(spec, {cls.platform for cls in self.drivers})

    def driver_for_trail(self, trail: "Trail", ws: WorkspaceConfig, device: Device | None = None) -> type[Driver]:
        """The driver a trail runs on: its ``devices``/``driver`` pins count, the host is the fallback."""
        wanted = list(trail.config.devices.values())
        if trail.config.driver:
            wanted.append(trail.config.driver)
        cls = self.pick_driver(ws, device, wanted=wanted)
        assert cls is not None  # the host fallback always resolves
        return cls

    def pick_driver(self, ws: WorkspaceConfig, device: Device | None = None, *, wanted: Sequence[str] = (),
                    fallback: str | None = "host") -> type[Driver] | None:
        """``--driver`` > ``wanted`` (a trail's ``devices``/``driver`` pin) > workspace default > ``fallback``.

        With ``-d platform/id`` only drivers of that platform are candidates. Without a fallback, None
        means nothing chose a driver (``trailblaze snapshot`` then asks the user)."""
        if self.options.driver:
            return self.drivers.resolve(self.options.driver)
        platform = device.platform if device is not None else None
        for name in wanted:
            cls = self.drivers.get(name)
            if cls is not None and (platform is None or cls.platform == platform):
                return cls
        if platform is not None:
            candidates = self.drivers.for_platform(platform)
            if not candidates:
                raise InfrastructureError(f"no installed driver drives platform '{platform}'",
                                          hint=self._missing_driver_hint(install=False))
            return candidates[0]
        if wanted:
            from .driver_pins import provider

            named = "; ".join(f"'{name}': {provider(name)}" for name in dict.fromkeys(wanted))
            raise InfrastructureError(
                f"this trail wants driver {' or '.join(repr(w) for w in wanted)}, which no installed plugin provides "
                f"({named})", hint=self._missing_driver_hint(install=True))
        if ws.defaults.driver:
            return self.drivers.resolve(ws.defaults.driver)
        return self.drivers.resolve(fallback) if fallback else None

    def endpoint(self, device: Device | None = None, cls: type[Driver] | None = None,
                 ws: WorkspaceConfig | None = None, *, actor_slot: tuple[int, int] | None = None) -> str | None:
        """This worker's (or this ``-d`` device's) endpoint for driver ``cls``: of the ``--endpoint``
        pool, else of ``ws``'s ``endpoints:`` (see ``runner/endpoints.py``); None without a pool.
        ``actor_slot`` (``(i, n)``: the i-th of n actors of a trail drawing from this pool) gives each
        actor its own entry: worker K's actors take entries ``K*n`` to ``K*n+n-1``."""
        from .endpoints import plain_devices, slot

        pool = self.pool(cls, ws)
        if not pool:
            return None
        index = slot(self.options.worker, device.spec if device else None, plain_devices(self.options.devices))
        if actor_slot is not None:
            index = index * actor_slot[1] + actor_slot[0]
        return pool[index % len(pool)]

    def pool(self, cls: type[Driver] | None, ws: WorkspaceConfig | None) -> list[str]:
        """The endpoint pool driver ``cls`` draws from: ``--endpoint``, else ``ws``'s ``endpoints:``."""
        from .endpoints import configured_pool, expand_slots

        return expand_slots(self.options.endpoints) or (configured_pool(ws, cls, self.drivers) if cls and ws else [])

    def _missing_driver_hint(self, *, install: bool) -> str:
        """What to do about a missing driver: a plugin that failed to load is the likelier cause than a
        package that is not installed, so it is named first."""
        installed = f"installed drivers: {', '.join(self.drivers.keys())}"
        broken = [p for p in self.host.plugins() if p.error]
        if broken:
            names = ", ".join(f"'{p.name}'" + (f" ({p.distribution} {p.version})" if p.distribution else "")
                              for p in broken)
            return (f"{installed}; plugin{'s' if len(broken) > 1 else ''} {names} failed to load ({broken[0].error}): "
                    "fix or reinstall it, see `trailblaze plugins`")
        if install:
            return (f"{installed}; install e.g. trailblaze-driver-web, trailblaze-driver-android or "
                    "trailblaze-driver-ios, or pass --driver")
        return installed

    def make_driver(self, cls: type[Driver], ws: WorkspaceConfig, device: Device | None = None, *,
                    trail: "Trail | None" = None, actor: Actor | None = None,
                    actor_slot: tuple[int, int] | None = None) -> Driver:
        """The workspace's ``drivers:`` settings, then the trail's ``config.drivers``, then the actor's
        ``options`` (a trail with several devices), then ``-o``, then ``-d``'s device, validated at once;
        an error names whichever of them is wrong. ``actor_slot``: see ``endpoint``."""
        configured = workspace_driver_settings(cls, ws)
        if trail is not None:
            unknown = unknown_trail_drivers(trail, self.drivers)
            if unknown:
                raise unknown[0]
        from_trail = trail_driver_settings(cls, trail, self.drivers) if trail is not None else {}
        if from_trail and trail is not None and not self.options.host_tools:
            # A trail a remote client wrote (``trailblaze mcp`` trail RUN) must not reach the host
            # through its own driver settings either (a program, a command line, an endpoint, a path).
            from ..host_settings import refused_settings

            refused = refused_settings(cls.config_model, from_trail, ws.root)
            if refused:
                first = next(k for k, v in from_trail.items() if refused_settings(cls.config_model, {k: v}, ws.root))
                locations = trail.config.driver_locations
                where = next((locations[f"{n}.{first}"] for n in trail.config.drivers
                              if f"{n}.{first}" in locations and self.drivers.get(n) is cls), None)
                raise ConfigError(f"driver '{cls.key}': this run may not set {', '.join(refused)} from a trail",
                                  location=where, hint="start trailblaze mcp with --allow-host-tools to allow it")
        from_actor = dict(actor.options) if actor is not None else {}
        raw = {**configured, **from_trail, **from_actor, **capture_settings(cls, self.options.capture),
               **self.options.driver_options}
        if device is not None and device.instance_id:
            raw.update(cls.device_settings(device.instance_id))
        endpoint = self.endpoint(device, cls, ws, actor_slot=actor_slot)
        if endpoint is not None:
            if cls.endpoint_setting is None:
                raise BadInputError(f"driver '{cls.key}' takes no endpoint (--endpoint {endpoint})",
                                    hint="drop --endpoint (or its 'endpoints:' pool), or run trails of a driver "
                                         "that connects to a server")
            raw[cls.endpoint_setting] = endpoint
        if self.options.headed and "headless" in cls.config_model.model_fields:
            raw["headless"] = False
        owner = f"driver '{cls.key}'"
        try:
            return cls(validate_config(cls.config_model, raw, owner=owner))
        except ConfigError as exc:
            # Point at the file only when the file is what is wrong: a bad -o value is the command line's.
            location = ws.location("drivers", cls.key) if ws.file else None
            validate_config(cls.config_model, configured, owner=owner, location=location)
            if trail is not None and from_trail:
                merged = {**configured, **from_trail}
                validate_config(cls.config_model, merged, owner=owner,
                                location=_setting_location(cls, trail, merged))
            if trail is not None and actor is not None and from_actor:
                validate_config(cls.config_model, {**configured, **from_trail, **from_actor},
                                owner=f"{owner} of actor '{actor.name}'",
                                location=trail.config.actor_locations.get(actor.name))
            raise ConfigError(f"{exc.message} (from the command line: -o/-d)", hint=exc.hint) from None

    # -- sessions -----------------------------------------------------------------------------
    def new_session(self, trail: "Trail | None", ws: ToolWorkspace, bound: Mapping[str, Any] | None = None,
                    device: Device | None = None, *, target: str | None = None,
                    extra: Mapping[str, Any] | None = None, listing: bool = False,
                    memory: Memory | None = None, actor: str | None = None, trail_run: str | None = None
                    ) -> Session:
        """A session that is built but not started: id, log directory, memory, a registry copy.

        ``extra`` goes to ``session.options.extra`` for plugins (its ``listing``/``agent_mode`` keys to
        those fields); ``listing`` marks a session that lists tools and never runs a trail. The actors of
        a trail with several devices pass ``actor`` and ``trail_run`` (the trail's ``session_name``, the
        same for all of them) and share the first one's ``memory``: each actor's session is
        ``<trail_run>_<actor>`` and logs to ``<output>/<trail_run>/<actor>/``, so the folder says whose
        device it is, whatever the length of the trail's title."""
        if actor is not None and trail_run is not None:
            session_id, log_dir = f"{trail_run}_{actor}", self.output_dir / trail_run / actor
        else:
            session_id = self.session_name(trail, device, actor)
            log_dir = self.output_dir / session_id
        if memory is None:
            memory = Memory.seeded(config_memory=trail.config.memory if trail is not None else None,
                                   cli_memory=self.options.memory, secrets=self.options.secrets,
                                   args=dict(bound or {}))
            memory.facts.update(run_facts(self.options))
            memory.on_unknown_token = lambda message: self.warn(message)
            self.redactor.watch(memory)  # until ``release``: a secret a tool registers is hidden from then on
        log = SessionLog(log_dir, session_id, self.redactor, enabled=self.options.logging,
                         layout=self.options.log_layout)
        options = SessionOptions.from_mapping(extra or {}, run=self.options)
        options.listing = options.listing or listing
        session = Session(id=session_id, host=self.host, workspace=ws.config, registry=ws.registry.copy(),
                          memory=memory, log=log, log_dir=log_dir,
                          target=target if target is not None else (trail.config.target if trail is not None
                                                                    else None),
                          trail=trail, title=trail.name if trail is not None else None, options=options,
                          actor=actor)
        from ..llm.registry import PROVIDERS_KEY

        session.resources[PROVIDERS_KEY] = self.host.llm_providers  # built when the model is first asked
        session.resources.update(self._resources)
        return session

    def session_name(self, trail: "Trail | None", device: Device | None = None, actor: str | None = None) -> str:
        """A new session's id, which names its log directory: the time, the test or trail name (then
        the actor and device), and a random tail."""
        name = self.options.test_name or (trail.name if trail is not None else "session")
        if actor is not None:
            name = f"{name}_{actor}"
        if device is not None:
            name = f"{name}_{device.spec}"
        seed = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_")[:60] or "trail"
        return f"{time.strftime('%Y_%m_%d_%H_%M_%S')}_{seed}_{random.randint(0, 9998)}"

    @contextmanager
    def open(self, *, workspace: Path | ToolWorkspace | None = None, driver: str | type[Driver] | Driver | None = None,
             device: str | Device | None = None, trail: "Trail | None" = None, target: str | None = None,
             args: Mapping[str, Any] | None = None, start_driver: bool = True,
             extra: Mapping[str, Any] | None = None, listing: bool = False) -> Iterator["SessionLifecycle"]:
        """Open a session (steps 1-4 of the module docstring), yield its lifecycle, close it (5-8).

        ``workspace`` is the workspace root (None: found from the current directory); ``driver`` is a
        key, a class or a ready instance; None picks as ``trailblaze run`` does. With
        ``start_driver=False`` the driver is never started (``trailblaze tools`` lists tools for a
        driver without launching it) and the device is described from the driver class, or as
        ``any`` when no driver was asked for."""
        ws = workspace if isinstance(workspace, ToolWorkspace) else self.workspace_for(
            workspace.resolve() if workspace is not None else None, exact=workspace is not None)
        if ws.error is not None:
            raise ws.error
        dev = self.parse_device(device) if isinstance(device, str) else device
        instance: Driver | None = None
        cls: type[Driver] | None = None
        if isinstance(driver, Driver):
            instance = driver
        elif isinstance(driver, type):
            cls = driver
        elif isinstance(driver, str):
            cls = self.drivers.resolve(driver)
        elif start_driver:
            if trail is not None:
                cls = self.driver_for_trail(trail, ws.config, dev)
            else:
                cls = self.pick_driver(ws.config, dev)
        session = self.new_session(trail, ws, args, dev, target=target, extra=extra, listing=listing)
        if start_driver:
            if instance is None:
                assert cls is not None
                instance = self.make_driver(cls, ws.config, dev)
            session.driver = instance
            session.memory.facts[RUN_ENDPOINT] = self.endpoint(dev, type(instance), ws.config) or ""
        else:
            described = cls or (type(instance) if instance is not None else None)
            session.device = DeviceInfo(platform="any", driver="any") if described is None else DeviceInfo(
                platform=described.platform, driver=described.key, classifiers=list(described.default_classifiers))
        try:
            with SessionLifecycle(session, warn=self.warn) as lifecycle:
                lifecycle.start(start_driver=start_driver)
                yield lifecycle
        finally:
            self.release(session)

    def release(self, session: Session) -> None:
        """The session is over: the redactor keeps its secrets but stops reading its memory."""
        self.redactor.unwatch(session.memory)


class SessionLifecycle:
    """Steps 3-8 of the module docstring for one built session; a context manager that closes it.

    ``outcome`` defaults to ``SUCCEEDED`` for a block that returns, ``ERROR`` for one that raises and
    ``CANCELLED`` for ``KeyboardInterrupt``; set it (and ``message``) to report something else.
    ``closing`` callbacks run after the plugins and the driver are done and before the log closes, for
    last log artifacts (the runner writes ``recording.trail.yaml`` there)."""

    def __init__(self, session: Session, *, warn: Warn | None = None) -> None:
        self.session = session
        self.warn: Warn = warn or _stderr_warning
        self.driver_started = False
        self.started_plugins: list[str] = []
        self.all_plugins_started = False
        """Set for a session whose plugins were started by hand: finishing then tells every plugin."""
        self.outcome: SessionOutcome | None = None
        self.message: str | None = None
        self.closing: list[Callable[[Session], None]] = []
        self.problems: list[str] = []
        self.finished = False
        self.current_step: StepInfo | None = None
        """The step between ``step_started`` and ``step_finished``: where an interruption found the session."""
        session.resources[LIFECYCLE_KEY] = self

    @property
    def driver(self) -> SessionDriver[Session] | None:
        return self.session.driver

    # -- opening ------------------------------------------------------------------------------
    def start(self, *, start_driver: bool = True) -> Session:
        """Start the driver (unless told not to or there is none), then every plugin's session hook."""
        if start_driver:
            self.start_driver()
        self.start_plugins()
        return self.session

    def start_driver(self) -> DeviceInfo:
        driver = self.session.driver
        if driver is None:
            raise InfrastructureError("this session has no driver to start")
        self.session.device = start_driver(driver, self.session)
        self.driver_started = True
        return self.session.device

    def start_plugins(self) -> None:
        self.session.host.session_started(self.session, started=self.started_plugins)

    # -- steps --------------------------------------------------------------------------------
    def step_started(self, step: StepInfo) -> None:
        """A step begins: the driver is told (every entry point's steps pass here, once each)."""
        self.current_step = step
        driver = self.session.driver
        if self.driver_started and driver is not None:
            try:
                driver.step_started(self.session, step)
            except Exception as exc:  # noqa: BLE001 - a driver's step bookkeeping never fails the step
                self.warn(f"driver '{driver.key}' failed at the start of step {step.number}: {exc}")

    def step_finished(self, step: StepInfo, ok: bool) -> None:
        """A started step has its outcome: the driver takes its artifacts (screenshots, trace groups)."""
        self.current_step = None
        driver = self.session.driver
        if self.driver_started and driver is not None:
            try:
                driver.step_finished(self.session, step, ok)
            except Exception as exc:  # noqa: BLE001
                self.warn(f"could not capture the artifacts of step {step.number}: {exc}")

    # -- closing ------------------------------------------------------------------------------
    def finish(self, outcome: SessionOutcome | None = None, message: str | None = None) -> list[str]:
        """Close the session (idempotent); returns the problems met, already passed to ``warn``."""
        if self.finished:
            return self.problems
        self.finished = True
        if outcome is not None:
            self.outcome = outcome
        if message is not None:
            self.message = message
        # Under ``trailblaze run``'s signal handlers a SIGTERM/SIGINT now is only noted, and acted on
        # once the plugins, the driver and the log are done: cleanup is never cut short.
        with interrupt.deferred():
            return self._close()

    def _close(self) -> list[str]:
        final = self.outcome or SessionOutcome.SUCCEEDED
        session, driver, problems = self.session, self.session.driver, self.problems
        if self.driver_started and driver is not None:
            try:
                driver.trail_finished(session, final.passed)
            except Exception as exc:  # noqa: BLE001 - finishing must reach every later step
                problems.append(f"driver '{driver.key}' failed to finish the trail: {exc}")
        if self.all_plugins_started:
            problems.extend(session.host.session_finished(session, final))
        elif self.started_plugins:
            problems.extend(session.host.session_finished(session, final, only=self.started_plugins))
        if self.driver_started and driver is not None:
            try:
                driver.stop()
            except Exception as exc:  # noqa: BLE001
                problems.append(f"driver '{driver.key}' failed to stop: {exc}")
        try:
            session.log.write("TrailblazeSessionStatusChangeLog",
                              {"sessionStatus": {"status": f"Ended.{final.value}", "message": self.message}})
            for callback in self.closing:
                try:
                    callback(session)
                except Exception as exc:  # noqa: BLE001 - a log artifact never fails the session
                    problems.append(f"could not finish the session's logs: {exc}")
        finally:
            session.log.close()
        for line in problems:
            self.warn(line)
        return problems

    def __enter__(self) -> "SessionLifecycle":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.outcome is None and exc_type is not None:
            self.outcome = SessionOutcome.CANCELLED if issubclass(exc_type, KeyboardInterrupt) else SessionOutcome.ERROR
            if self.message is None and exc is not None:
                self.message = "interrupted" if isinstance(exc, KeyboardInterrupt) else str(exc)
        self.finish()


def log_trail_started(session: Session, trail: "Trail") -> None:
    """The ``Started`` status entry of a session that runs ``trail`` (each actor's session has one)."""
    cfg = trail.config
    session.log.write("TrailblazeSessionStatusChangeLog", {"sessionStatus": {
        "status": "Started",
        "trailConfig": {"id": cfg.id, "title": cfg.title, "target": cfg.target, "tags": cfg.tags,
                        "trailFilePath": str(trail.path)},
        "trailblazeDeviceInfo": session.device.model_dump(mode="json"),
        "resolvedInitialMemory": session.memory.snapshot(),
        "sensitiveMemoryKeys": sorted(session.memory.sensitive_keys),
    }})


def lifecycle_of(session: Session) -> SessionLifecycle | None:
    """The lifecycle that opened ``session`` (None for a session built by hand)."""
    found = session.resources.get(LIFECYCLE_KEY)
    return found if isinstance(found, SessionLifecycle) else None


def finish_session(session: Session, outcome: SessionOutcome = SessionOutcome.SUCCEEDED) -> list[str]:
    """Close a session opened without a ``with`` block (``trailblaze.testing.make_session``)."""
    lifecycle = lifecycle_of(session)
    if lifecycle is None:
        lifecycle = SessionLifecycle(session)
        lifecycle.driver_started = session.driver is not None
        lifecycle.all_plugins_started = True
    return lifecycle.finish(outcome)


__all__ = ["Device", "LIFECYCLE_KEY", "SessionFactory", "SessionLifecycle", "ToolWorkspace", "finish_session",
           "lifecycle_of", "load_tool_workspace", "log_trail_started", "run_output_dir", "start_driver"]
