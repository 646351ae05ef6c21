"""One Chromium for the web actors of a trail, a context each.

The actors of a trail run on a thread each, and Playwright's sync API only works on the thread that
started it, so a second actor cannot call the first one's ``Browser``. It can reach the same browser
process, though: the first actor to start launches Chromium as usual plus a DevTools port bound to
127.0.0.1, and every other actor, with its own Playwright, connects over CDP and opens its own context
(cookies, storage, viewport and storage state stay per actor). That saves a Chromium launch per extra
actor. Each actor's Playwright is its thread's: the run keeps actor threads between trails, each with
its reuse scope, so Playwright's own start (the larger cost) is paid by a thread's first trail only
(``connection.thread_playwright``, ``benchmarks/bench_actors.py``).

The browser belongs to the thread that launched it, so that thread closes it, and only when the last of
the others has disconnected: the owner's close waits for them (they close at the same time, each on its
thread, on every exit path of the trail). Single-device sessions never come here.

Where actor threads have reuse scopes of their own (``runner/crew.py``), the browser lives as long as they
do instead (``KeptSeat``): the launched browser and every other thread's CDP connection to it are held
by the threads' scopes. The run keeps its actor threads between trails, so a later trail's actors open
only their contexts, and the scopes close everything with the run (the DevTools port stays open, on
loopback, until then); threads nothing keeps end with their trail, and the browser with them. The
per-trail hand-over above remains for a core whose actor threads have no scope.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trailblaze import ActorShare, DriverError, current_scope

from .browser import open_browser
from .config import WebDriverConfig
from .connection import thread_playwright

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

LEAVE_TIMEOUT_S = 60.0
"""How long the owner waits for the other actors to disconnect before closing the browser anyway (they
close at the same time as it does; this only bounds a thread that never got there)."""


@dataclass
class ActorBrowser:
    """The shared browser of one trail's web actors with the same browser settings: who owns it, its
    DevTools endpoint once launched, and how many others are connected (or connecting)."""

    owner: str | None = None
    endpoint: str | None = None
    error: str | None = None
    others: int = 0
    closed: bool = False
    broken: bool = False
    """A run's kept browser found disconnected (it crashed): the next to open one launches a new one."""
    _cond: threading.Condition = field(default_factory=threading.Condition, repr=False)

    def seat(self, actor: str) -> ActorSeat:
        """``actor``'s place at this browser: the first to ask launches it, the others connect."""
        with self._cond:
            if self.owner is None:
                self.owner = actor
                return ActorSeat(self, actor, owner=True)
            self.others += 1
            return ActorSeat(self, actor, owner=False)

    def publish(self, endpoint: str | None, error: str | None = None) -> None:
        with self._cond:
            self.endpoint, self.error = endpoint, error
            self._cond.notify_all()

    def wait_endpoint(self, timeout_s: float) -> str:
        with self._cond:
            self._cond.wait_for(lambda: self.endpoint is not None or self.error is not None or self.closed,
                                timeout=timeout_s)
            if self.error is not None:
                raise DriverError(f"the Chromium shared with actor '{self.owner}' did not start: {self.error}")
            if self.closed:
                raise DriverError(f"the Chromium shared with actor '{self.owner}' is closing (that actor's "
                                  f"session ended)", hint="see that actor's error")
            if self.endpoint is None:
                raise DriverError(f"the Chromium shared with actor '{self.owner}' was not ready within "
                                  f"{timeout_s:.0f} s")
            return self.endpoint

    def leave(self) -> None:
        with self._cond:
            self.others -= 1
            self._cond.notify_all()

    def wait_alone(self, timeout_s: float = LEAVE_TIMEOUT_S) -> None:
        """Until every other actor has disconnected. Nobody may join from now on: an actor still waiting
        for the endpoint (the owner failed before launching) gives up at once."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()
            self._cond.wait_for(lambda: self.others <= 0, timeout=timeout_s)


@dataclass
class ActorSeat:
    """One actor's use of an ``ActorBrowser``: opening its Playwright and browser, and the two moments of
    its close that the sharing adds (the owner waits for the others; the others say they left)."""

    shared: ActorBrowser
    actor: str
    owner: bool
    _left: bool = False

    def open(self, sync_playwright: Any, cfg: WebDriverConfig) -> tuple[Playwright, bool, Browser, str]:
        """This actor's Playwright (its thread's: ``thread_playwright``), whether the caller must stop it,
        and the browser it launched or reached."""
        try:
            playwright, owned = thread_playwright(sync_playwright)
        except DriverError as exc:
            self._fail(exc.message)
            raise
        try:
            if self.owner:
                return (playwright, owned, *self._launch(playwright, cfg))
            return (playwright, owned, *self._connect(playwright, cfg))
        except BaseException:
            if owned:
                playwright.stop()
            raise

    def _launch(self, playwright: Playwright, cfg: WebDriverConfig) -> tuple[Browser, str]:
        port = free_loopback_port()
        args = [*cfg.launch_args, f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1"]
        try:
            browser, description = open_browser(playwright, cfg.model_copy(update={"launch_args": args}))
        except DriverError as exc:
            self._fail(exc.message)
            raise
        except BaseException as exc:
            self._fail(f"{type(exc).__name__}: {exc}")
            raise
        self.shared.publish(f"http://127.0.0.1:{port}")
        return browser, description

    def _connect(self, playwright: Playwright, cfg: WebDriverConfig) -> tuple[Browser, str]:
        from playwright.sync_api import Error as PlaywrightError

        endpoint = self.shared.wait_endpoint(2 * cfg.navigation_timeout_ms / 1000)
        options: dict[str, Any] = {"timeout": cfg.navigation_timeout_ms}
        if cfg.slow_mo_ms:
            options["slow_mo"] = cfg.slow_mo_ms
        try:
            browser = playwright.chromium.connect_over_cdp(endpoint, **options)
        except PlaywrightError as exc:
            first = str(getattr(exc, "message", None) or exc).strip().splitlines()[0][:300]
            raise DriverError(f"cannot reach the Chromium shared with actor '{self.shared.owner}' at {endpoint}: "
                              f"{first}") from None
        return browser, f"Chromium shared with actor '{self.shared.owner}' (DevTools on {endpoint})"

    def _fail(self, message: str) -> None:
        if self.owner:
            self.shared.publish(None, message)

    def before_browser_close(self) -> None:
        """The owner keeps the browser open until the others have disconnected."""
        if self.owner:
            self.shared.wait_alone()

    def after_close(self) -> None:
        """Another actor has disconnected (once, whatever path closed it)."""
        if not self.owner and not self._left:
            self._left = True
            self.shared.leave()


@dataclass
class KeptSeat:
    """An actor's place at the Chromium the web actors of a whole run share (``share.kept``): this
    thread's hold on it (the browser it launched, or its CDP connection) is kept by the thread's reuse
    scope, so only the first trail on the thread pays for it."""

    share: ActorShare
    key: Hashable
    actor: str

    def open(self, sync_playwright: Any, cfg: WebDriverConfig) -> tuple[Playwright, Browser, str]:
        scope = current_scope()
        assert scope is not None, "a kept seat is only handed out on a thread with a reuse scope"
        held = scope.get(self._scope_key(), lambda: self._hold(sync_playwright, cfg), alive=HeldBrowser.alive)
        playwright, _owned = thread_playwright(sync_playwright)  # the scope's, as the held browser's
        return playwright, held.browser, held.description

    def discard(self) -> None:
        """The held browser failed a call although it looked connected (an idle thread has not heard of
        the crash yet): forget it and mark it broken, so the next ``open`` takes a new one."""
        scope = current_scope()
        if scope is None:
            return
        held = scope.held.get(self._scope_key())
        if held is not None:
            held.value.shared.broken = True
        scope.discard(self._scope_key())

    def _scope_key(self) -> tuple[str, Hashable]:
        return ("playwright-actor-browser", self.key)

    def _hold(self, sync_playwright: Any, cfg: WebDriverConfig) -> tuple[HeldBrowser, Callable[[], None]]:
        shared = self.share.kept(self.key, ActorBrowser)
        if shared.broken or shared.error is not None:
            shared = self.share.renew(self.key, shared, ActorBrowser)
        _playwright, _owned, browser, description = shared.seat(self.actor).open(sync_playwright, cfg)
        held = HeldBrowser(shared, browser, description)
        return held, held.close


@dataclass
class HeldBrowser:
    """One thread's hold on a run's shared Chromium: the browser it launched or its CDP connection."""

    shared: ActorBrowser
    browser: Browser
    description: str

    def alive(self) -> bool:
        if self.browser.is_connected():
            return True
        self.shared.broken = True
        return False

    def close(self) -> None:
        try:
            self.browser.close()  # the owner's closes Chromium; another's disconnects
        except Exception:  # noqa: BLE001 - already gone
            pass


def free_loopback_port() -> int:
    """A port nothing listens on now (Chromium binds it a moment later; loopback only)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
