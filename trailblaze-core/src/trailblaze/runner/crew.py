"""A trail with several devices (``config.actors``): one session per actor, their steps in order, the
children of a ``parallel:`` block at the same time.

Each actor has a thread of its own (``ActorThread``) on which its driver is started, used and stopped:
Playwright's sync API (and any driver that keeps thread-bound state) only works on the thread that started
it. The calling thread hands each actor its steps and waits; it is the thread a signal interrupts, so it
is the one that tells the actors to stop and closes their sessions.

Actor threads outlive a trail: the run keeps them (``ActorThreads``, held by the calling thread's reuse
scope, so closed with it on every exit path of the run) and lends them to its next trails. Each thread has
a reuse scope of its own, active for every call run there, in which a driver keeps what is bound to the
thread: Playwright's own start (about ten new browser contexts' worth) and the web actors' one Chromium
(``ActorShare.kept``) are then paid once per run, not once per actor and trail. Without a reuse scope
(a bare ``Runner.run_trail``) the threads and their scopes end with the trail.

Sessions open and close through the one session lifecycle (``SessionLifecycle``), each actor's on its own
thread; all of them are closed on every exit path (pass, failure, error, signal). Memory is one store,
shared, and so is an ``ActorShare`` (``session.actor_share``) through which drivers share what they
choose across the actors (one Chromium for the web actors). When a step of one actor fails, the others
stop at their next step or tool-call boundary (``StepRunState.stop``) and the trail fails naming the
actor, the step and the tool.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..driver import Driver
from ..errors import BadInputError, ExitCode, InfrastructureError, TrailblazeError
from ..results.model import ActorResult, TrailResult
from ..reuse import ActorShare, ReuseScope, active, current_scope
from ..session import Session, SessionOutcome
from . import interrupt
from .endpoints import actor_bindings
from .handoff import StepFailed
from .lifecycle import Device, SessionFactory, SessionLifecycle, ToolWorkspace, log_trail_started
from .replay import StepLoop, StepRunState, Stopped, step_name

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..trail.actors import Actor
    from ..trail.model import Trail, TrailStep
    from .progress import Progress

T = TypeVar("T")


class ActorThread:
    """The one thread an actor's driver lives on: every call for that actor is run here, in order, with
    the thread's reuse scope active (what a driver keeps there stays with the thread, for the next trail
    it serves)."""

    def __init__(self, name: str, owner: ActorThreads | None = None) -> None:
        self.name = name
        """The actor it serves now (the thread is named after it while it runs that actor's calls)."""
        self.scope = ReuseScope()
        self.owner = owner
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trailblaze-actor")

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        return self._pool.submit(self._in_scope, fn, *args)

    def _in_scope(self, fn: Callable[..., T], *args: Any) -> T:
        threading.current_thread().name = f"trailblaze-actor-{self.name}"
        with active(self.scope):
            return fn(*args)

    def release(self) -> None:
        """Done with it for this trail: back to the run's pool, or closed when nothing keeps it."""
        if self.owner is not None:
            self.owner.give_back(self)
        else:
            self.close()

    def close_scope(self) -> Future[None]:
        """Close what the thread's scope holds, on the thread (the resources are bound to it)."""
        return self._pool.submit(self.scope.close)

    def close(self) -> None:
        try:
            self.close_scope().result()
        except RuntimeError:  # shut down already
            pass
        finally:
            self._pool.shutdown(wait=True)


class ActorThreads:
    """The actor threads of a run (of one device thread, or one pytest worker), lent to its trails one per
    actor and kept between them; ``close`` ends them all, each closing its scope on itself first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[ActorThread] = []
        self._every: list[ActorThread] = []
        self.share = ActorShare({})
        """What the run's trails share across these threads (``ActorShare.kept``); the threads' scopes
        hold and close the resources, this only hands out the values that coordinate them."""

    def lease(self, names: list[str]) -> list[ActorThread]:
        """A thread for each actor of ``names`` that no running trail holds (a proving replay leases while
        its trail's threads are back already; new threads are made when the idle ones run out)."""
        threads: list[ActorThread] = []
        with self._lock:
            for name in names:
                thread = self._idle.pop(0) if self._idle else None
                if thread is None:
                    thread = ActorThread(name, self)
                    self._every.append(thread)
                thread.name = name
                threads.append(thread)
        return threads

    def give_back(self, thread: ActorThread) -> None:
        with self._lock:
            if thread in self._every and thread not in self._idle:
                self._idle.append(thread)

    def close(self) -> None:
        """Every thread's scope closed on its thread, all at once, then the threads ended; a signal now
        waits until they have."""
        with self._lock:
            threads, self._every, self._idle = self._every, [], []
        with interrupt.deferred():
            closing = []
            for thread in threads:
                try:
                    closing.append(thread.close_scope())
                except RuntimeError:  # shut down already
                    pass
            wait(closing)
            for thread in threads:
                thread.close()


def actor_threads() -> ActorThreads | None:
    """The actor threads kept by the calling thread's reuse scope (made the first time), or None when no
    scope is active: then each trail makes its own and they end with it."""
    scope = current_scope()
    if scope is None:
        return None

    def make() -> tuple[ActorThreads, Callable[[], None]]:
        threads = ActorThreads()
        return threads, threads.close

    return scope.get(("trailblaze-actor-threads",), make)


@dataclass
class ActorMember:
    """One actor of a running trail: its device binding, driver, thread, and (once opened) session."""

    actor: Actor
    driver: Driver
    device: Device | None
    endpoint: str | None
    thread: ActorThread
    session: Session | None = None
    lifecycle: SessionLifecycle | None = None
    classifiers: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.actor.name

    def result(self) -> ActorResult:
        info = self.session.device if self.session is not None else None
        reported = (info.device_id or info.name) if info is not None else None
        device = reported or (self.device.spec if self.device is not None else None)
        return ActorResult(self.name, self.actor.platform, self.driver.key, device=device, endpoint=self.endpoint,
                           session_id=self.session.id if self.session else None,
                           log_dir=self.session.log_dir if self.session else None)


class _Failure(Exception):
    """What ended an actor's part early: the actor and the error, in the order they happened."""

    def __init__(self, member: ActorMember, error: BaseException) -> None:
        super().__init__(str(error))
        self.member = member
        self.error = error


class ActorCrew:
    """Runs trails that declare actors, for a ``TrailRunner``: drivers from ``factory``, steps by
    ``steps``, lines to ``progress``."""

    def __init__(self, factory: SessionFactory, steps: StepLoop, progress: Progress) -> None:
        self.factory = factory
        self.steps = steps
        self.progress = progress

    # -- before any device starts ---------------------------------------------------------------
    def prepare(self, trail: Trail, ws: ToolWorkspace) -> list[ActorMember]:
        """Every actor's driver, built (not started), and its endpoint; bad input (an unknown binding, a
        driver for the wrong platform, an endpoint pool smaller than the actors drawing from it) is
        raised here, before any device starts."""
        factory = self.factory
        actors = list(trail.config.actors.values())
        if trail.config.setup:
            raise BadInputError("'setup' trails run on one device; a trail with actors cannot have them yet",
                                location=trail.steps[0].location if trail.steps else None, key="setup",
                                hint="make the setup steps the first steps of the trail, with their actor")
        bindings = {name: factory.parse_device(spec) for name, spec in actor_bindings(factory.options.devices).items()
                    if name in trail.config.actors}
        classes = {a.name: actor_driver(factory, a, trail, ws.config, bindings.get(a.name)) for a in actors}
        pools: dict[tuple[str, ...], list[str]] = {}
        for actor in actors:
            pool = tuple(factory.pool(classes[actor.name], ws.config))
            if pool:
                pools.setdefault(pool, []).append(actor.name)
        workers = _worker_count() if factory.options.worker else 1
        for pool, names in pools.items():
            if len(pool) < len(names) * workers:
                each = f" on each of {workers} workers" if workers > 1 else ""
                raise BadInputError(f"{len(names)} actors ({', '.join(names)}){each} draw from an endpoint pool of "
                                    f"{len(pool)}: each actor needs its own endpoint",
                                    hint="add endpoints (--endpoint or 'endpoints:' in trailblaze.yaml); with -n N "
                                         "a worker's actors take the next entries after the last worker's")
        built: list[tuple[Actor, Driver, Device | None, str | None]] = []
        for actor in actors:
            cls, device = classes[actor.name], bindings.get(actor.name)
            pool = tuple(factory.pool(cls, ws.config))
            slot = (pools[pool].index(actor.name), len(pools[pool])) if pool else None
            driver = factory.make_driver(cls, ws.config, device, trail=trail, actor=actor, actor_slot=slot)
            endpoint = factory.endpoint(device, cls, ws.config, actor_slot=slot) if pool else None
            built.append((actor, driver, device, endpoint))
        kept = actor_threads()
        threads = kept.lease([a.name for a in actors]) if kept is not None else [ActorThread(a.name) for a in actors]
        return [ActorMember(*parts, thread) for parts, thread in zip(built, threads, strict=True)]

    # -- the run --------------------------------------------------------------------------------
    def run(self, trail: Trail, ws: ToolWorkspace, members: list[ActorMember], bound: dict[str, Any],
            started: float) -> TrailResult:
        """Open every actor's session, run the steps, close every session; one result for the trail."""
        first: Session | None = None
        run_name = self.factory.session_name(trail)  # logs/<run_name>/<actor>/ for each actor
        kept = members[0].thread.owner if members else None
        share = ActorShare({m.name: m.driver.key for m in members}, run=kept.share if kept is not None else None)
        for member in members:
            member.session = self.factory.new_session(trail, ws, bound, member.device, actor=member.name,
                                                      memory=first.memory if first is not None else None,
                                                      trail_run=run_name)
            member.session.driver = member.driver
            member.session.actor_share = share
            first = first or member.session
        assert first is not None
        lead = members[0]
        result = TrailResult(trail.path, trail.name, SessionOutcome.ERROR, ExitCode.INFRASTRUCTURE,
                             session_id=first.id, log_dir=first.log_dir.parent, driver=lead.driver.key,
                             platform=lead.driver.platform, started_at=started, target=trail.config.target,
                             has_recorded_steps=trail.has_recordings, trail_id=trail.config.id)
        result.actors = [m.result() for m in members]
        drivers = ", ".join(f"{m.name}: {m.driver.key}" + (f" on {m.device.spec}" if m.device else "") for m in members)
        self.progress.trail_started(trail.name, str(trail.path), drivers)
        state = self.steps.new_state(threading.Event())
        failures: list[_Failure] = []
        lock = threading.Lock()
        try:
            try:
                self._all(members, lambda m: self._open(m, trail), state, failures, lock)
                for group in _groups(trail):
                    by_actor: dict[str, list[TrailStep]] = {}
                    for step in group:
                        by_actor.setdefault(step.actor or "", []).append(step)
                    chosen = [m for m in members if m.name in by_actor]
                    self._all(chosen, lambda m: self._steps(m, trail, by_actor[m.name], result, state), state,
                              failures, lock)
                self.steps.finish(result, state)
            except KeyboardInterrupt as exc:
                current = next((m.lifecycle.current_step for m in members
                                if m.lifecycle is not None and m.lifecycle.current_step is not None), None)
                result.interrupt(interrupt.signal_name(exc), step=step_name(current) if current is not None else None)
                exc.trail_result = result  # type: ignore[attr-defined]  # the runner lists it
                raise
            except _Failure as failure:
                self._record(failure, result)
            finally:
                result.steps.sort(key=lambda s: s.index)
                self._close(members, result)
        finally:
            for member in members:
                member.thread.release()
            result.completed_at = time.time()
            result.actors = [m.result() for m in members]
            result.log_entries = [e for m in members if m.session is not None for e in m.session.log.entries]
            try:
                # Every actor's session is closed (its device free): the recordings the agent made are
                # proven by the whole crew replaying the trail from its start, without the model.
                self.steps.saveback.settle(trail, first, result, state.saves,
                                           lambda proof: self._prove(proof, ws, bound))
            finally:
                self.progress.trail_finished(result)
                for member in members:
                    if member.session is not None:
                        self.factory.release(member.session)
        return result

    def _prove(self, trail: Trail, ws: ToolWorkspace, bound: dict[str, Any]) -> TrailResult:
        """The proving replay (``runner/heal_check.py``) of a trail with actors: a crew of its own, every
        actor's session fresh, replay only and quiet."""
        steps = self.steps.prover()
        prover = ActorCrew(self.factory, steps, steps.progress)
        return prover.run(trail, ws, prover.prepare(trail, ws), bound, time.time())

    def _all(self, members: list[ActorMember], work: Callable[[ActorMember], None], state: StepRunState,
             failures: list[_Failure], lock: threading.Lock) -> None:
        """Run ``work`` for each of ``members`` on its own thread and wait for all of them; the first
        failure (in time) is raised once all have ended. An interruption of the waiting thread tells the
        actors to stop, waits for them, and goes on up."""

        def part(member: ActorMember) -> None:
            try:
                work(member)
            except Stopped:
                pass
            except BaseException as exc:  # noqa: BLE001 - every failure is the trail's, named by its actor
                state.stop.set()  # type: ignore[union-attr]  # the others stop at their next boundary
                with lock:
                    failures.append(_Failure(member, exc))

        futures = [m.thread.submit(part, m) for m in members]
        try:
            wait(futures)
        except KeyboardInterrupt:
            state.stop.set()  # type: ignore[union-attr]
            with interrupt.deferred():
                wait(futures)
            raise
        if failures:
            raise failures[0]

    # -- on an actor's thread --------------------------------------------------------------------
    def _open(self, member: ActorMember, trail: Trail) -> None:
        session = member.session
        assert session is not None
        lifecycle = member.lifecycle = SessionLifecycle(session, warn=self.factory.warn)
        lifecycle.outcome = SessionOutcome.ERROR
        device = lifecycle.start_driver()
        member.classifiers = device.classifiers or list(member.driver.default_classifiers)
        lifecycle.start_plugins()
        log_trail_started(session, trail)
        self.steps.prevalidate(trail, session, member.classifiers,
                               [s for s in trail.steps if s.actor == member.name])
        if self.factory.options.start_url:
            member.driver.open_url(self.factory.options.start_url)

    def _steps(self, member: ActorMember, trail: Trail, steps: list[TrailStep], result: TrailResult,
               state: StepRunState) -> None:
        assert member.lifecycle is not None
        for step in steps:
            self.steps.run_step(trail, member.lifecycle, member.classifiers, result, step, state)

    # -- the outcome and the end -------------------------------------------------------------------
    def _record(self, failure: _Failure, result: TrailResult) -> None:
        """The trail's outcome from the failure that came first, named by its actor."""
        error, name = failure.error, failure.member.name
        if isinstance(error, StepFailed):
            result.outcome, result.exit_code, result.failure_kind = error.outcome, error.code, error.kind
            result.message = f"actor {name}: {error.message}"
        elif isinstance(error, TrailblazeError):
            failure.member.session.options.tracebacks.append(error)  # type: ignore[union-attr]
            outcome = SessionOutcome.ERROR if error.exit_code != ExitCode.TRAIL_FAILED else SessionOutcome.FAILED
            result.outcome, result.exit_code, result.failure_kind = outcome, error.exit_code, type(error).__name__
            result.message = f"actor {name}: {error}"
        else:
            wrapped = InfrastructureError(f"actor {name}: {type(error).__name__}: {error}")
            result.outcome, result.exit_code, result.failure_kind = SessionOutcome.ERROR, wrapped.exit_code, \
                type(error).__name__
            result.message = wrapped.message

    def _close(self, members: list[ActorMember], result: TrailResult) -> None:
        """Close every opened session on its actor's thread; a signal now is noted, not acted on, until
        every driver has stopped."""

        def close(member: ActorMember) -> None:
            # No ``recording.trail.yaml`` per actor: each session's log holds one actor's part of the
            # trail, and a single-device trail made of it would drop the others' steps.
            if member.lifecycle is not None:
                member.lifecycle.finish(result.outcome, result.message)

        with interrupt.deferred():
            wait([m.thread.submit(close, m) for m in members])


def actor_driver(factory: SessionFactory, actor: Actor, trail: Trail, ws: WorkspaceConfig,
                 device: Device | None = None) -> type[Driver]:
    """The driver of one actor: the actor's ``driver``, else ``--driver``, the trail's ``devices`` pins and
    the workspace's default where they drive the actor's platform (``-d ACTOR=...``'s platform must be the
    actor's), else the first installed driver of that platform."""
    where = trail.config.actor_locations.get(actor.name)
    if device is not None and device.platform is not None and device.platform != actor.platform:
        raise BadInputError(f"-d {actor.name}={device.spec}: actor '{actor.name}' is on platform "
                            f"'{actor.platform}', not '{device.platform}'", location=where,
                            hint=f"bind it to a {actor.platform} device, or change the actor's platform")
    drivers = factory.drivers
    if actor.driver is not None:
        cls = drivers.resolve(actor.driver)
        if cls.platform != actor.platform:
            raise BadInputError(f"actor '{actor.name}' is on platform '{actor.platform}' but driver "
                                f"'{actor.driver}' drives '{cls.platform}'", location=where, key="driver")
        return cls
    wanted = [factory.options.driver, *trail.config.devices.values(), trail.config.driver, ws.defaults.driver]
    for name in wanted:
        found = drivers.get(name) if name else None
        if found is not None and found.platform == actor.platform:
            return found
    candidates = drivers.for_platform(actor.platform)
    if not candidates:
        raise InfrastructureError(f"actor '{actor.name}': no installed driver drives platform '{actor.platform}'",
                                  location=where, hint=f"installed drivers: {', '.join(drivers.keys())}; install "
                                  "e.g. trailblaze-driver-web, trailblaze-driver-android or trailblaze-driver-ios")
    return candidates[0]


def _worker_count() -> int:
    """How many xdist workers share the pool (pytest-xdist tells each worker in its environment)."""
    import os

    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    return int(count) if count.isdigit() and int(count) > 0 else 1


def _groups(trail: Trail) -> list[list[TrailStep]]:
    from ..trail.model import step_groups

    return step_groups(trail.steps)


__all__ = ["ActorCrew", "ActorMember", "ActorThread", "ActorThreads", "actor_driver", "actor_threads"]
