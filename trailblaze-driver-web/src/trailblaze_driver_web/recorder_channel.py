"""How the recorder's page script reaches Python without the page reaching it: an isolated world.

Playwright's ``expose_binding`` puts the hook in the page's own JavaScript world, where any script on the
page can find it (``__playwright__binding__controller__`` lists every binding) and call it with forged
reports. Instead, over the DevTools protocol, each page and each out-of-process frame (a cross-origin
iframe in a headed browser) gets the script in an isolated world under a random name, and a binding
(``Runtime.addBinding``) exposed only to worlds of that name: the page shares the DOM with the script but
none of its JavaScript, so it can neither call the hook nor patch what the script reads.

Same-process frames (same-origin iframes, and every iframe of a headless shell) are covered by their
page's session; an out-of-process frame gets its own session when it navigates. A report can arrive twice
when two sessions see one document; each carries a unique id, and the recorder keeps the first.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .recorder_script import page_script

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, CDPSession, Frame, Page


class IsolatedChannel:
    """Installs the recorder's script in every frame of ``page`` and hands each report (a JSON string) to
    ``on_report``. Chromium only: the web driver's browser."""

    def __init__(self, context: BrowserContext, page: Page, on_report: Callable[[str], None]) -> None:
        self.context = context
        self.page = page
        self.on_report = on_report
        token = secrets.token_hex(12)
        self.world = f"trailblaze-record-{token}"
        self.binding = f"__trailblaze_{token}"
        self.script = page_script(self.binding)
        self.sessions: list[CDPSession] = []
        self._frames: set[tuple[Frame, str]] = set()
        """Out-of-process frames given a session, by origin (another site is another process)."""

    def attach(self) -> None:
        self._install(self.page)
        for frame in self.page.frames[1:]:
            self._frame_navigated(frame)
        self.page.on("framenavigated", self._frame_navigated)

    def detach(self) -> None:
        try:
            self.page.remove_listener("framenavigated", self._frame_navigated)
        except Exception:  # noqa: BLE001, S110 - the page is gone already
            pass
        for session in self.sessions:
            try:
                session.detach()
            except Exception:  # noqa: BLE001, S110 - its target is gone already
                pass
        self.sessions.clear()

    def _frame_navigated(self, frame: Frame) -> None:
        key = (frame, _origin(frame.url))
        if frame.parent_frame is None or key in self._frames:
            return
        try:
            self._install(frame)  # an out-of-process frame: its own target
        except Exception:  # noqa: BLE001 - part of its page's process: the page's session covers it
            return
        self._frames.add(key)

    def _install(self, target: Page | Frame) -> None:
        session = self.context.new_cdp_session(target)
        session.send("Runtime.enable")
        session.send("Page.enable")
        session.send("Runtime.addBinding", {"name": self.binding, "executionContextName": self.world})
        session.on("Runtime.bindingCalled", self._called)
        session.send("Page.addScriptToEvaluateOnNewDocument", {"source": self.script, "worldName": self.world})
        for frame_id in _frame_ids(session.send("Page.getFrameTree")["frameTree"]):
            try:  # the documents already open
                world = session.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": self.world})
                session.send("Runtime.evaluate", {"expression": self.script,
                                                  "contextId": world["executionContextId"]})
            except Exception:  # noqa: BLE001, S112 - a frame that went away meanwhile
                continue
        self.sessions.append(session)

    def _called(self, event: dict[str, Any]) -> None:
        if event.get("name") == self.binding and isinstance(event.get("payload"), str):
            self.on_report(event["payload"])


def _origin(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _frame_ids(tree: dict[str, Any]) -> Iterator[str]:
    yield tree["frame"]["id"]
    for child in tree.get("childFrames", []):
        yield from _frame_ids(child)
