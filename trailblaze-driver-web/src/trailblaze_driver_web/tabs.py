"""``Tabs``: the pages of a web session's context, which one tools act on, and the rule that makes a page an
action opened the current page before the next call runs.

The rule (docs/web.md, "Tabs and popups"): a page opened by a tool's action — a ``target=_blank`` link, a
``window.open`` in a click handler, Enter on such a link, a form posted to a new window — is the page tools
act on when that action's call returns. Playwright reports a new page some time after the click that opened
it has returned (tens to hundreds of milliseconds), so "whatever page is current when the next call starts"
would depend on timing. Instead every page of the context carries a small init script that tells the driver,
through a binding, *while the click is being handled* that it is opening a window; that message reaches the
driver before the click's own reply does, so when the action returns the driver knows whether to wait for a
page, and waits for exactly that. An action that opens nothing sends nothing and waits for nothing.

A page that opens on its own (a timer, a script) becomes current as it is reported, as before. Closing the
current page (``web_closeTab``, or the page calling ``window.close()``) makes the page that was current before
it current again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze import DriverError, ToolFailure, valid_text

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

BINDING = "__trailblazeOpensWindow"

OPENER_SCRIPT = """(() => {
  const binding = globalThis.%(binding)s;
  if (typeof binding !== 'function' || globalThis.__trailblazeOpenerWatch) return;
  Object.defineProperty(globalThis, '__trailblazeOpenerWatch', {value: true});
  const signal = (name) => { try { binding(String(name || '')); } catch (e) {} };
  const open = window.open;
  window.open = function (url, name, features) { signal(name); return open.apply(this, arguments); };
  const newWindow = (target, event) =>
    (target && !/^_(self|parent|top)$/i.test(target)) || event.ctrlKey || event.metaKey || event.shiftKey;
  const watch = (type, opener) => window.addEventListener(type, (event) => {
    const target = opener(event);
    if (target === null) return;
    // Signal after every listener ran (window, bubbling, is last): a link whose click the page cancelled
    // opens nothing.
    window.addEventListener(type, (late) => {
      if (late === event && !event.defaultPrevented) signal(target);
    }, {once: true});
  }, true);
  watch('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href], area[href]') : null;
    return link && (newWindow(link.target, event) || event.button === 1) ? (link.target || '_blank') : null;
  });
  watch('auxclick', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href], area[href]') : null;
    return link && event.button === 1 ? '_blank' : null;
  });
  watch('submit', (event) => {
    const form = event.target instanceof HTMLFormElement ? event.target : null;
    const target = form ? (event.submitter?.getAttribute('formtarget') || form.target) : '';
    return form && target && !/^_(self|parent|top)$/i.test(target) ? target : null;
  });
})();""" % {"binding": BINDING}
"""Runs in every frame before the page's own scripts. ``window.open`` is wrapped (same arguments, same
result); links and forms are only watched. Only the signal crosses to the driver: the window's name."""


@dataclass(frozen=True)
class TabInfo:
    """One open tab as the snapshot and ``web_switchTab`` show it."""

    index: int
    title: str
    url: str
    current: bool

    def line(self) -> str:
        mark = "  (current)" if self.current else ""
        return f"[{self.index}] {self.title or '(untitled)'} — {self.url}{mark}"


class Tabs:
    """The open pages in the order they opened, the current one, and the ones current before it.

    ``on_current`` is told about every page that becomes current (the driver listens to it, the video
    follows it)."""

    def __init__(self, on_current: Callable[[Page], None]) -> None:
        self.on_current = on_current
        self.context: BrowserContext | None = None
        self.pages: list[Page] = []
        """Every page the context opened, oldest first (closed ones are skipped when read)."""
        self._history: list[Page] = []
        """Pages in the order they became current, the current one last."""
        self._signals: list[str] = []
        """Window names the pages said they were opening, since the current action started."""

    # -- following the context ---------------------------------------------------------------------
    def listen(self, context: BrowserContext) -> None:
        """Install the opener watch on every page of ``context`` and follow the pages it opens."""
        self.context = context
        context.expose_binding(BINDING, self._signalled)
        context.add_init_script(OPENER_SCRIPT)
        context.on("page", self._opened)

    def _signalled(self, source: Any, name: Any = "") -> None:
        self._signals.append(str(name or ""))

    def _opened(self, page: Page) -> None:
        if page not in self.pages:
            self.pages.append(page)
        self.adopt(page)

    def adopt(self, page: Page) -> None:
        """Make ``page`` current."""
        if page not in self.pages:
            self.pages.append(page)
        if page in self._history:
            self._history.remove(page)
        self._history.append(page)
        self.on_current(page)

    def forget(self) -> None:
        self.context = None
        self.pages.clear()
        self._history.clear()
        self._signals.clear()

    @property
    def current(self) -> Page | None:
        """The page tools act on: the last one made current that is still open (a closed current page
        hands over to the one current before it), else None."""
        while self._history and self._history[-1].is_closed():
            self._history.pop()
            if self._history:
                self.on_current(self._history[-1])
        if self._history:
            return self._history[-1]
        open_pages = self.open_pages()
        if open_pages:
            self.adopt(open_pages[-1])
            return open_pages[-1]
        return None

    def open_pages(self) -> list[Page]:
        return [p for p in self.pages if not p.is_closed()]

    # -- the rule: an action's page is current when the action returns ------------------------------
    @contextmanager
    def opened_by_action(self, timeout_ms: int) -> Iterator[None]:
        """Run an action; when it returns having opened a window, that window is current.

        Nothing is waited for unless a page of the context said, during the action, that it is opening a
        window. Then the new page is awaited (up to ``timeout_ms``: a window the page named and that is
        already open — ``window.open(url, "chat")`` a second time — is found among the open pages instead)."""
        self._signals.clear()
        before = len(self.pages)
        yield
        if not self._signals:
            return
        names, self._signals = list(self._signals), []
        if len(self.pages) > before:
            self.adopt(self.pages[-1])  # already reported (adopted as it came, made current again here)
            return
        reused = self._named([n for n in names if n.lower() != "_blank"])
        if reused is not None:
            self.adopt(reused)
            return
        self._await_page(timeout_ms)

    def _await_page(self, timeout_ms: int) -> None:
        from playwright.sync_api import Error as PlaywrightError

        context = self.context
        if context is None:
            return
        try:
            context.wait_for_event("page", timeout=max(timeout_ms, 1))
        except PlaywrightError:
            return  # the page cancelled it after all (a popup blocker of its own): nothing opened

    def _named(self, names: list[str]) -> Page | None:
        """An open page whose window name is one of ``names`` (the target an action reused), else None."""
        if not names:
            return None
        current = self.current
        for page in reversed(self.open_pages()):
            if page is not current and _window_name(page) in names:
                return page
        return None

    # -- what tools and the snapshot ask -------------------------------------------------------------
    def describe(self) -> list[TabInfo]:
        current = self.current
        return [TabInfo(i, _title(p), _url(p), p is current) for i, p in enumerate(self.open_pages())]

    def listing(self) -> str | None:
        """The tabs as the snapshot shows them, when more than one is open (else None: one tab says nothing)."""
        if len(self.open_pages()) < 2:
            return None
        tabs = self.describe()
        lines = [f"Tabs ({len(tabs)} open; tools act on the current one; web_switchTab changes it):"]
        lines.extend(f"  {tab.line()}" for tab in tabs)
        return "\n".join(lines)

    def switch(self, *, index: int | None = None, url: str | None = None, title: str | None = None) -> TabInfo:
        """Make the tab picked by its index, a part of its URL or a part of its title current."""
        tabs = self.describe()
        pages = self.open_pages()
        if index is not None:
            if not 0 <= index < len(tabs):
                raise ToolFailure(f"web_switchTab: there is no tab {index}; {_open_tabs(tabs)}")
            chosen = [index]
        else:
            needle = (url if url is not None else title or "").lower()
            field = "url" if url is not None else "title"
            chosen = [t.index for t in tabs if needle in (t.url if url is not None else t.title).lower()]
            if not chosen:
                raise ToolFailure(f"web_switchTab: no tab's {field} contains {needle!r}; {_open_tabs(tabs)}")
            if len(chosen) > 1:
                raise ToolFailure(f"web_switchTab: {len(chosen)} tabs' {field} contain {needle!r} (tabs "
                                  f"{', '.join(str(i) for i in chosen)}): give the index; {_open_tabs(tabs)}")
        page = pages[chosen[0]]
        self.adopt(page)
        try:
            page.bring_to_front()
        except Exception:  # noqa: BLE001 - closing as we switch: the next call says so
            pass
        return TabInfo(chosen[0], _title(page), _url(page), True)

    def close_current(self) -> Page:
        """Close the current tab; the one current before it becomes current and is returned."""
        pages = self.open_pages()
        current = self.current
        if current is None:
            raise DriverError("the web driver has no open page (the browser was closed or never started)")
        if len(pages) < 2:
            raise ToolFailure("web_closeTab: this is the only open tab; open another (a link with "
                              "target=_blank, web_navigate) or keep this one")
        close_page(current)
        after = self.current
        assert after is not None
        try:
            after.bring_to_front()
        except Exception:  # noqa: BLE001
            pass
        return after


CLOSE_ATTEMPTS = 3
CLOSE_WAIT_MS = 1000


def close_page(page: Page) -> None:
    """Close ``page`` without the chance of waiting forever.

    Chromium can acknowledge the close of a tab whose navigation is committing at that moment and then never
    close it (crbug.com/536385539, microsoft/playwright#42366, not fixed in Playwright): ``page.close()``
    waits for a close that never comes. It happens to a popup closed as it loads and to a page closed as a
    meta refresh or a click's navigation commits. Here the close goes through the browser's own CDP session
    and is asked again while the tab is still open; a browser without CDP gets Playwright's close."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page_session = page.context.new_cdp_session(page)
        target_id = page_session.send("Target.getTargetInfo")["targetInfo"]["targetId"]
        page_session.detach()
        browser = page.context.browser
        assert browser is not None
        browser_session = browser.new_browser_cdp_session()
    except Exception:  # noqa: BLE001 - not Chromium, or no CDP through this connection
        page.close()
        return
    try:
        for _ in range(CLOSE_ATTEMPTS):
            browser_session.send("Target.closeTarget", {"targetId": target_id})
            if page.is_closed():
                return
            try:
                page.wait_for_event("close", timeout=CLOSE_WAIT_MS)
                return
            except PlaywrightTimeoutError:
                if page.is_closed():
                    return
    finally:
        try:
            browser_session.detach()
        except Exception:  # noqa: BLE001 - the browser went away with the tab
            pass
    raise DriverError(f"the browser did not close the tab {_url(page)!r} after {CLOSE_ATTEMPTS} requests")


def _window_name(page: Page) -> str | None:
    """``window.name`` of ``page``; the window may be loading what the action sent it (its old document
    gone, the new one not yet there): asked again then, a few times."""
    for _ in range(3):
        try:
            return str(page.evaluate("() => window.name"))
        except Exception:  # noqa: BLE001 - navigating (asked again) or closed
            if page.is_closed():
                return None
    return None


def _open_tabs(tabs: list[TabInfo]) -> str:
    return "open tabs: " + "; ".join(t.line() for t in tabs)


def _title(page: Page) -> str:
    try:
        return valid_text(page.title())
    except Exception:  # noqa: BLE001 - closing, or mid-navigation
        return ""


def _url(page: Page) -> str:
    try:
        return page.url
    except Exception:  # noqa: BLE001
        return ""
