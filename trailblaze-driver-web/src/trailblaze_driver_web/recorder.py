"""The Python side of ``trailblaze record``: each report of the page script (``recorder_script``, run in
an isolated world by ``recorder_channel``) becomes the tool call the agent would have recorded.

The recorder trusts the page for nothing it writes: reports come only from the isolated world, only for
events the person caused, at most ``max_events_per_s`` a second (``recorder_reports`` checks their
shape); the element's name and selector are Playwright's, asked by the recorder's ``ElementNamer``
(``element_names``) when the pointer comes over an element or a field takes focus (a click that submits
or navigates leaves nothing to ask afterwards), else when the action is reported. A password
field — or one that ever was — is recorded as ``web_fillSecret`` with a ``{{token}}``; its value never
leaves the page. What cannot be recorded (a click on a ``<canvas>`` or inside a closed shadow root) is
said on one warning line and written as a comment above its step.

Every tab and popup of the recording's browser is recorded (``tabs.py``'s rule is the model: replay makes
a page an action opened current), so the trail switches tabs where the person did: ``web_switchTab``
before the first action in a tab, or in a tab replay is not on; ``web_closeTab`` when the person closes
one. Dialogs and downloads become checks: a dialog the recording's ``dialogs`` setting answered is written
as ``web_handleDialog`` (that answer) before the action that opened it and ``web_verifyDialog`` (its
message) after; a download as ``web_verifyDownload`` (its file name) after the action that started it.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from trailblaze import RecordOptions, RecordedStepDraft, ToolCall, escape_literal

from .element_names import ElementNamer
from .frames import frame_descriptor
from .recorder_channel import IsolatedChannel
from .recorder_reports import PageReport
from .recorder_script import PAGE_SCRIPT, password_watch
from .recorder_tabs import ReplayTabs

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Dialog, Download, Page

    from .page_owner import PageOwner

__all__ = ["PAGE_SCRIPT", "Recorder", "RecordingBrowser", "record_actions"]


def __getattr__(name: str) -> Any:
    if name == "BINDING":
        import warnings

        warnings.warn("trailblaze_driver_web.recorder.BINDING is deprecated: the page's hook is gone; the recorder "
                      "reports through a binding with a random name per recording, in an isolated world "
                      "(recorder_channel.IsolatedChannel.binding)", DeprecationWarning, stacklevel=2)
        return "__trailblazeRecord"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RecordingBrowser(Protocol):
    """What the recorder needs of the web driver: its context, its current page and the base URL recorded
    navigations are made relative to. ``PlaywrightDriver`` is the one there is; the recorder also asks
    its selector code (``element_names``) for names."""

    @property
    def context(self) -> BrowserContext | None: ...

    @property
    def page(self) -> Page: ...

    def base_url(self) -> str | None: ...


ACTIONS = frozenset({"web_click", "web_pressKey", "web_type", "web_fillSecret", "web_selectOption",
                     "web_uploadFile"})
"""Recorded calls that act on the page: what a dialog or a download that follows was caused by."""
CAUSED_WITHIN_S = 2.0
"""A navigation, dialog or download this soon after an action recorded is that action's doing."""
CLOSED_BY_CLICK_S = 1.0
"""A tab closed this soon after a click or key press in it closed itself (``window.close()`` in a handler)."""


@dataclass
class _Step:
    kind: str
    calls: list[ToolCall] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    name: str | None = None
    notes: list[str] = field(default_factory=list)


class Recorder:
    """Turns page reports into recorded steps. Attach it, then ``run()`` pumps Playwright until the
    person closes the page or ``options.should_stop()``."""

    def __init__(self, drv: PageOwner, options: RecordOptions) -> None:
        self.drv = drv
        self.options = options
        self.steps: list[_Step] = []
        self.latencies_ms: list[float] = []
        """Page event to the call recorded, per action, in ms (``benchmarks/bench_recorder.py``)."""
        self.warnings: list[str] = []
        self._last_action = 0.0
        self._break = True
        self._typed: dict[str, Any] = {}
        """The last text recorded per field (by ref)."""
        self._named: str | None = None
        """The name given in the page's overlay for the step the next action starts."""
        self._seen: set[str] = set()
        self._window = (0.0, 0, 0)
        """(second it started, actions in it, actions dropped in it)."""
        self.elements = ElementNamer(drv, options.max_events_per_s)
        self.page = self.elements.page
        """The tab the recording started in: closing it ends the recording."""
        self.tabs = ReplayTabs(self.page)
        """Every tab recorded, and the one replay acts on at this point of the trail."""
        self._acting: Page | None = None
        """The tab of the report or event being handled."""
        self._last_act: tuple[_Step, ToolCall, Page, float] | None = None
        """The last action recorded (its step, call, tab and time): what a dialog or a download came from."""
        self._last_urls: dict[Page, str] = {}
        self._pending_notes: list[str] = []
        self.channel: IsolatedChannel | None = None
        """The first tab's channel; each tab has one (``channels``), all with the same protections."""
        self.channels: list[IsolatedChannel] = []
        self._queue: deque[Callable[[], None]] = deque()
        self._stopped = False
        self._handling = False

    # -- wiring -----------------------------------------------------------------------------------
    def attach(self) -> None:
        context = self.drv.context
        assert context is not None
        context.add_init_script(password_watch())  # every later document, a popup's first one included
        self.channel = self._record_in(self.page)
        context.on("page", self._on_new_tab)

    def _record_in(self, page: Page) -> IsolatedChannel:
        """Install the script in ``page`` (and its frames) and follow its navigations, dialogs, downloads
        and closing."""
        context = self.drv.context
        assert context is not None
        channel = IsolatedChannel(context, page, lambda payload: self._on_report(payload, page))
        channel.attach()
        self.channels.append(channel)
        self._last_urls[page] = page.url
        page.on("framenavigated", self._on_navigated)
        page.on("dialog", self._on_dialog)
        page.on("download", self._on_download)
        page.on("close", self._on_closed)
        return channel

    def run(self) -> list[RecordedStepDraft]:
        page = self.page
        while not self.options.should_stop():
            try:
                if page.is_closed():
                    break
                page.wait_for_timeout(100)  # lets Playwright deliver the page's reports
            except Exception:  # noqa: BLE001 - the person closed the window: the page is gone
                break
        self._stopped = True  # the browser closing the other tabs now is no action of the person's
        for channel in self.channels:
            channel.detach()
        try:
            if self.drv.context is not None:
                self.drv.context.remove_listener("page", self._on_new_tab)
        except Exception:  # noqa: BLE001, S110 - the browser is gone already
            pass
        return self.drafts()

    # -- reports ----------------------------------------------------------------------------------
    def _on_report(self, payload: str, page: Page | None = None) -> None:
        """Reports are handled one at a time, in the order they came: naming an element waits on
        Playwright, and meanwhile Playwright delivers the next report (Enter after the text it commits).
        ``page``: the tab whose script reported (the first one when not said)."""
        tab = self.page if page is None else page
        if '"kind":"pre"' in payload:  # naming ahead of the actions queued: the element may leave soon
            self._queue.appendleft(lambda: self._take(payload, tab))
        else:
            self._queue.append(lambda: self._take(payload, tab))
        self._drain()

    def _drain(self) -> None:
        if self._handling:
            return
        self._handling = True
        try:
            while self._queue:
                item = self._queue.popleft()
                try:
                    item()
                except Exception as exc:  # noqa: BLE001 - one event lost, said; the recording goes on
                    self._warn(f"an event could not be recorded: {' '.join(str(exc).split())[:200]}")
        finally:
            self._handling = False

    def _take(self, payload: str, page: Page) -> None:
        self._acting = page
        try:
            report = PageReport.model_validate_json(payload)
        except ValidationError:
            return  # not the script's: nothing else can reach the hook, but nothing malformed is taken
        if report.id in self._seen:
            return  # the same document seen by two sessions
        self._seen.add(report.id)
        if report.kind == "pre":
            self.elements.name_ahead(report)
            return
        if not self._admit(report):
            return
        try:
            self._handle(report)
        finally:  # the event's time in the page to the call recorded here
            self.latencies_ms.append(time.time() * 1000 - report.t)

    def _admit(self, report: PageReport) -> bool:
        """At most ``max_events_per_s`` actions a second: more is not a person (a page script holding a
        key down, a flood); the rest of that second is dropped, said once."""
        now = time.monotonic()
        start, count, dropped = self._window
        if now - start >= 1.0:
            start, count, dropped = now, 0, 0
        if count >= self.options.max_events_per_s:
            if not dropped:
                self._warn(f"more than {self.options.max_events_per_s} events in one second from "
                           f"{report.url or 'the page'}: the rest of that second is not recorded")
            self._window = (start, count, dropped + 1)
            return False
        self._window = (start, count + 1, dropped)
        return True

    def _handle(self, report: PageReport) -> None:
        kind, data = report.kind, report.data
        if kind == "name":
            self._named = " ".join(str(data.get("name", "")).split()) or None
            return
        if kind == "verify":
            text = str(data.get("text", ""))
            if text:
                self._add("verify", ToolCall("web_verifyTextVisible", {"text": text}),
                          f"Check that {json.dumps(text, ensure_ascii=False)} is visible", new=True)
            return
        if kind == "enter":
            self._add_call(ToolCall("web_pressKey", {"key": "Enter"}), "press Enter")
            self._break = True
            return
        if kind == "unrecordable":
            self._unrecordable(report)
            return
        target = self.elements.target(report)
        if target is None:
            tag = report.el.tag if report.el else "?"
            self._warn(f"not recorded: a {kind} on a <{tag}> in {report.url} that left the page before it "
                       "could be read")
            self._note(f"trailblaze record could not record a {kind} on a <{tag}> that left the page")
            return
        args, said = dict(target.args), target.said
        if kind == "click":
            self._add_call(ToolCall("web_click", args), f"click {said}")
        elif kind == "type":
            if data.get("password"):
                call = ToolCall("web_fillSecret", {**args, "value": "{{" + self.options.secret_token + "}}"})
                self._add_call(call, f"fill {said} with {{{{{self.options.secret_token}}}}}")
            else:
                self._add_call(ToolCall("web_type", {**args, "text": str(data.get("value", ""))}),
                               f"type into {said}")
        elif kind == "select":
            values = [str(v) for v in data.get("values", [])]
            self._add_call(ToolCall("web_selectOption", {**args, "values": values}),
                           f"choose {', '.join(values)} in {said}")
        elif kind == "upload":
            names = [str(n) for n in data.get("names", [])]  # the page knows names only: paths are the trail's
            self._add_call(ToolCall("web_uploadFile", {**args, "paths": names}), f"upload {', '.join(names)}")

    def _unrecordable(self, report: PageReport) -> None:
        el = report.el
        what = f"<{el.tag}>" if el else "an element"
        where = ""
        if el is not None:
            where = f" ({el.css})" if el.css else ""
            frame = self.elements.frame_of(report)
            if frame is not None and frame.parent_frame is not None:
                inside = frame_descriptor(frame)
                where += f" in {inside}" if inside else ""
        why = str(report.data.get("why", "unknown"))
        if why == "canvas":
            line = f"a click on {what}{where} at {report.data.get('x')},{report.data.get('y')}: a canvas has " \
                   "no elements to name"
        else:
            line = f"a click inside the closed shadow root of {what}{where}: its elements cannot be reached"
        self._warn(f"not recorded: {line}")
        self._note(f"trailblaze record could not record {line}")

    # -- tabs -------------------------------------------------------------------------------------
    def _on_new_tab(self, page: Page) -> None:
        """The script goes into a new tab at once (not behind the reports being handled: the person may act
        there already); what it means for the trail waits its turn after the action that opened it."""
        if self.tabs.knows(page) or page.is_closed():
            return
        self.tabs.added(page)
        self._queue.append(lambda: self._new_tab(page))
        self.elements.pages.append(page)
        self._record_in(page)
        self._drain()

    def _new_tab(self, page: Page) -> None:
        """A tab or popup opened (by the page, as replay will open it): current in replay from now on (a
        page an action opened is current when the action returns)."""
        self.tabs.opened(page)

    def _follow(self, page: Page | None) -> None:
        """Before a call recorded in ``page``: a ``web_switchTab`` into it when replay is on another tab, or
        has not been told about this one yet (a tab an action opened is current in replay already; the
        switch says where the trail goes on, and holds if the page is slow to open)."""
        index = self.tabs.switch_to(page)
        if page is None or index is None:
            return
        title = "the first tab" if index == 0 else f"tab {index} ({self._relative(page.url)})"
        self._add("step", ToolCall("web_switchTab", {"index": index}), f"go to {title}", new=True)

    def _on_closed(self, page: Page) -> None:
        if self._stopped:
            return
        self._queue.append(lambda: self._tab_closed(page))
        self._drain()

    def _tab_closed(self, page: Page) -> None:
        """The person closed a tab: ``web_closeTab``, after a ``web_switchTab`` into it when replay is not
        on it (replay then goes back to the tab current before it, as the browser does). A tab that closed
        itself right after a click or key press in it (``window.close()`` in a handler) closes itself in
        replay too: nothing is written. Closing the first tab ends the recording."""
        if page is self.page or self.tabs.is_closed(page):
            return
        last = self._last_act
        by_itself = last is not None and last[2] is page and last[1].name in ("web_click", "web_pressKey") \
            and time.monotonic() - last[3] < CLOSED_BY_CLICK_S
        if not by_itself:
            self._acting = page
            self._follow(page)
            self._add("step", ToolCall("web_closeTab", {}), "close the tab")
        self.tabs.closed(page)
        self._break = True

    # -- what actions caused: navigations, dialogs, downloads ---------------------------------------
    def _on_navigated(self, frame: Any) -> None:
        if frame.parent_frame is None:
            page, url = frame.page, frame.url  # read now: the queue may run after the next navigation
            self._queue.append(lambda: self._navigated(page, url))
            self._drain()

    def _navigated(self, page: Page, url: str) -> None:
        caused = time.monotonic() - self._last_action < CAUSED_WITHIN_S  # a click or Enter just did it
        first_load = page is not self.page and not self.tabs.entered(page)  # a tab opening what opened it
        if url != self._last_urls.get(page) and not caused and not first_load and url != "about:blank":
            path = self._relative(url)
            self._acting = page
            self._add_call(ToolCall("web_navigate", {"url": path}), f"open {path}", new=True)
        self._last_urls[page] = url
        self._break = True  # the next action starts a new step

    def _on_dialog(self, dialog: Dialog) -> None:
        kind, message, page = dialog.type, dialog.message, dialog.page  # read now: it is answered meanwhile
        self._queue.append(lambda: self._dialog(kind, message, page))
        self._drain()

    def _dialog(self, kind: str, message: str, page: Page | None) -> None:
        """A dialog, answered by the recording's ``dialogs`` setting (Playwright answers every dialog; the
        person sees its message here): ``web_handleDialog`` with that answer before the action that opened
        it, so replay answers it the same whatever the trail's setting, and ``web_verifyDialog`` after it.
        A second dialog of the same action is answered by the setting in replay as here; its message
        replaces the first's in the check (which reads the last dialog)."""
        answer = self.drv.cfg.dialogs
        said = f"{kind} {json.dumps(message, ensure_ascii=False)}"
        verify = ToolCall("web_verifyDialog", {"message": message})
        cause = self._cause(page)
        answered = f"the {said} was answered {answer} (the dialogs setting: -o dialogs=accept|dismiss)"
        if cause is None:  # not after an action: it came by itself (a timer, a page load)
            self._acting = page
            self._add("verify", verify, f"Check that a {kind} said {json.dumps(message, ensure_ascii=False)}",
                      new=True)
            return
        step, at = cause
        verify = ToolCall(verify.name, {"message": escape_literal(message)})  # literal text, as _add writes it
        following = step.calls[at + 1] if at + 1 < len(step.calls) else None
        if following is not None and following.name == "web_verifyDialog":
            step.calls[at + 1] = verify
            if self.options.on_action is not None:
                self.options.on_action(f"web_verifyDialog: {answered}")
            return
        if self.options.on_action is not None:
            self.options.on_action(f"web_handleDialog, web_verifyDialog: {answered}")
        step.calls.insert(at, ToolCall("web_handleDialog", {"action": answer}))
        step.calls.insert(at + 2, verify)
        step.said.append(f"{answer} the {said}")

    def _on_download(self, download: Download) -> None:
        name, page = download.suggested_filename, download.page
        self._queue.append(lambda: self._download(name, page))
        self._drain()

    def _download(self, name: str, page: Page | None) -> None:
        """A download: ``web_verifyDownload`` with its file name after the action that started it (it
        checks the last download of its step)."""
        check = ToolCall("web_verifyDownload", {"fileName": name})
        said = f"check that {json.dumps(name, ensure_ascii=False)} downloaded"
        cause = self._cause(page)
        if cause is None:  # not after an action (a page that downloads on load): a check of its own
            self._acting = page
            self._add("verify", check, said[:1].upper() + said[1:], new=True)
            return
        if self.options.on_action is not None:
            self.options.on_action(f"web_verifyDownload: {said}")
        step, at = cause
        check = ToolCall(check.name, {"fileName": escape_literal(name)})  # literal text, as _add writes it
        at += 1
        while at < len(step.calls) and step.calls[at].name in ("web_verifyDialog", "web_verifyDownload"):
            at += 1
        step.calls.insert(at, check)
        step.said.append(said)

    def _cause(self, page: Page | None) -> tuple[_Step, int] | None:
        """The action just recorded in ``page`` (its step and where it is in it), if there is one."""
        last = self._last_act
        if last is None or (page is not None and last[2] is not page) or \
                time.monotonic() - last[3] >= CAUSED_WITHIN_S:
            return None
        at = next((i for i, c in enumerate(last[0].calls) if c is last[1]), None)
        return None if at is None else (last[0], at)

    def _warn(self, line: str) -> None:
        self.warnings.append(line)
        if self.options.on_warning is not None:
            self.options.on_warning(line)

    def _note(self, line: str) -> None:
        self._pending_notes.append(line)

    # -- steps ------------------------------------------------------------------------------------
    def _add_call(self, call: ToolCall, said: str, *, new: bool = False) -> None:
        if call.name in ("web_type", "web_fillSecret"):
            # A field reports its text when Enter commits it and again when it loses focus: once is enough.
            value = call.args.get("text", call.args.get("value"))
            key = f"{call.args.get('frame')}|{call.args.get('ref')}"
            if self._typed.get(key) == value:
                return
            self._typed[key] = value
        last = self.steps[-1] if self.steps else None
        previous = last.calls[-1] if last is not None and last.calls else None
        if last is not None and previous is not None and call.name == previous.name == "web_type" and \
                (previous.args.get("ref"), previous.args.get("frame")) == (call.args.get("ref"), call.args.get("frame")):
            last.calls[-1] = call  # the same field committed again (change, then Enter): keep the final text
            if self._last_act is not None and self._last_act[1] is previous:
                _, _, tab, at = self._last_act
                self._last_act = (last, call, tab, at)
            return
        self._add("step", call, said, new=new)

    def _add(self, kind: str, call: ToolCall, said: str, *, new: bool = False) -> None:
        # Every argument came from the page or from what the person typed (a button named "{{shopUrl}}"):
        # literal text, so its braces are escaped. Only the secret's value is a token.
        call = ToolCall(call.name, {k: v if (call.name, k) == ("web_fillSecret", "value") else escape_literal(v)
                                    for k, v in call.args.items()})
        if call.name not in ("web_switchTab", "web_closeTab"):
            self._follow(self._acting)  # the tab replay acts on must be the one the person acted in
        now = time.monotonic()
        pause = self._last_action and now - self._last_action > self.options.pause_s
        last = self.steps[-1] if self.steps else None
        named, self._named = self._named or self.options.take_step_name(), None
        if named or new or self._break or pause or last is None or last.kind != kind or kind == "verify":
            self.steps.append(_Step(kind, name=named or None))
            self._break = False
        step = self.steps[-1]
        step.calls.append(call)
        step.said.append(said)
        step.notes.extend(self._pending_notes)
        self._pending_notes.clear()
        self._last_action = now
        if call.name in ACTIONS and self._acting is not None:
            self._last_act = (step, call, self._acting, now)
        if self.options.on_action is not None:
            self.options.on_action(f"{call.name}: {said}")

    def drafts(self) -> list[RecordedStepDraft]:
        out: list[RecordedStepDraft] = []
        for step in self.steps:
            if not step.calls:
                continue
            said = step.said[0] if step.kind == "verify" else "; ".join(dict.fromkeys(step.said))
            text = step.name or said
            out.append(RecordedStepDraft("verify" if step.kind == "verify" else "step",
                                         text[:1].upper() + text[1:], list(step.calls), list(step.notes)))
        if self._pending_notes and out:  # after the last action: above the last step
            out[-1].notes.extend(self._pending_notes)
        return out

    def _relative(self, url: str) -> str:
        """A URL on the app's base URL as its path (the trail then replays wherever the app is served)."""
        base = (self.drv.base_url() or "").rstrip("/")
        if base and url.startswith(base + "/") or url == base:
            return url[len(base):] or "/"
        return url


def record_actions(drv: PageOwner, options: RecordOptions) -> list[RecordedStepDraft]:
    recorder = Recorder(drv, options)
    recorder.attach()
    return recorder.run()
