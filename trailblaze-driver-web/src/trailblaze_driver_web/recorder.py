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
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from trailblaze import RecordOptions, RecordedStepDraft, ToolCall

from .element_names import ElementNamer
from .frames import frame_descriptor
from .recorder_channel import IsolatedChannel
from .recorder_checks import DialogsAndDownloads
from .recorder_gate import ReportGate
from .recorder_queue import EventQueue
from .recorder_reports import PageReport
from .recorder_script import PAGE_SCRIPT, password_watch
from .recorder_steps import ACTIONS, CAUSED_WITHIN_S, Step, StepLog
from .recorder_tabs import CLOSED_BY_CLICK_S, ReplayTabs, TabSteps

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Dialog, Download, Page

    from .page_owner import PageOwner

__all__ = ["ACTIONS", "CAUSED_WITHIN_S", "CLOSED_BY_CLICK_S", "PAGE_SCRIPT", "Recorder", "RecordingBrowser",
           "record_actions"]


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


_Step = Step  # its name before the step log was a part of its own


class Recorder:
    """Turns page reports into recorded steps. Attach it, then ``run()`` pumps Playwright until the
    person closes the page or ``options.should_stop()``. Its parts: the trail written (``log``), the
    tabs as replay will see them (``tabs``), the checks of dialogs and downloads (``checks``), the queue
    events are handled through one at a time (``queue``), the reports it takes (``gate``) and the namer
    of elements (``elements``)."""

    def __init__(self, drv: PageOwner, options: RecordOptions) -> None:
        self.drv = drv
        self.options = options
        self.log = StepLog(options, lambda page: self.tab_steps.follow(page))
        self.checks = DialogsAndDownloads(self.log, drv.cfg.dialogs)
        self.queue = EventQueue(self.log.warn)
        self.latencies_ms: list[float] = []
        """Page event to the call recorded, per action, in ms (``benchmarks/bench_recorder.py``)."""
        self.gate = ReportGate(options.max_events_per_s, self.log.warn)
        self.elements = ElementNamer(drv, options.max_events_per_s)
        self.page = self.elements.page
        """The tab the recording started in: closing it ends the recording."""
        self.tabs = ReplayTabs(self.page)
        """Every tab recorded, and the one replay acts on at this point of the trail."""
        self.tab_steps = TabSteps(self.tabs, self.log, self._relative)
        self._last_urls: dict[Page, str] = {}
        self.channel: IsolatedChannel | None = None
        """The first tab's channel; each tab has one (``channels``), all with the same protections."""
        self.channels: list[IsolatedChannel] = []
        self._stopped = False

    @property
    def steps(self) -> list[Step]:
        return self.log.steps

    @property
    def warnings(self) -> list[str]:
        return self.log.warnings

    def drafts(self) -> list[RecordedStepDraft]:
        return self.log.drafts()

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
        """``page``: the tab whose script reported (the first one when not said)."""
        tab = self.page if page is None else page
        # naming ahead of the actions queued: the element may leave soon
        self.queue.put(lambda: self._take(payload, tab), first='"kind":"pre"' in payload)

    def _take(self, payload: str, page: Page) -> None:
        self.log.acting = page
        try:
            report = PageReport.model_validate_json(payload)
        except ValidationError:
            return  # not the script's: nothing else can reach the hook, but nothing malformed is taken
        if not self.gate.first_time(report):
            return  # the same document seen by two sessions
        if report.kind == "pre":
            self.elements.name_ahead(report)
            return
        if not self.gate.admit(report):
            return
        try:
            self._handle(report)
        finally:  # the event's time in the page to the call recorded here
            self.latencies_ms.append(time.time() * 1000 - report.t)

    def _handle(self, report: PageReport) -> None:
        kind, data, log = report.kind, report.data, self.log
        if kind == "name":
            log.named = " ".join(str(data.get("name", "")).split()) or None
            return
        if kind == "verify":
            text = str(data.get("text", ""))
            if text:
                log.add("verify", ToolCall("web_verifyTextVisible", {"text": text}),
                        f"Check that {json.dumps(text, ensure_ascii=False)} is visible", new=True)
            return
        if kind == "enter":
            log.add_call(ToolCall("web_pressKey", {"key": "Enter"}), "press Enter")
            log.break_next = True
            return
        if kind == "unrecordable":
            self._unrecordable(report)
            return
        target = self.elements.target(report)
        if target is None:
            tag = report.el.tag if report.el else "?"
            log.warn(f"not recorded: a {kind} on a <{tag}> in {report.url} that left the page before it "
                     "could be read")
            log.note(f"trailblaze record could not record a {kind} on a <{tag}> that left the page")
            return
        args, said = dict(target.args), target.said
        if kind == "click":
            log.add_call(ToolCall("web_click", args), f"click {said}")
        elif kind == "type":
            if data.get("password"):
                call = ToolCall("web_fillSecret", {**args, "value": "{{" + self.options.secret_token + "}}"})
                log.add_call(call, f"fill {said} with {{{{{self.options.secret_token}}}}}")
            else:
                log.add_call(ToolCall("web_type", {**args, "text": str(data.get("value", ""))}),
                             f"type into {said}")
        elif kind == "select":
            values = [str(v) for v in data.get("values", [])]
            log.add_call(ToolCall("web_selectOption", {**args, "values": values}),
                         f"choose {', '.join(values)} in {said}")
        elif kind == "upload":
            names = [str(n) for n in data.get("names", [])]  # the page knows names only: paths are the trail's
            log.add_call(ToolCall("web_uploadFile", {**args, "paths": names}), f"upload {', '.join(names)}")

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
        self.log.warn(f"not recorded: {line}")
        self.log.note(f"trailblaze record could not record {line}")

    # -- tabs -------------------------------------------------------------------------------------
    def _on_new_tab(self, page: Page) -> None:
        """The script goes into a new tab at once (not behind the reports being handled: the person may act
        there already); what it means for the trail waits its turn after the action that opened it: from
        then on it is current in replay (a page an action opened is current when the action returns)."""
        if self.tabs.knows(page) or page.is_closed():
            return
        self.tabs.added(page)
        self.queue.put(lambda: self.tabs.opened(page), drain=False)
        self.elements.pages.append(page)
        self._record_in(page)
        self.queue.drain()

    def _on_closed(self, page: Page) -> None:
        if not self._stopped:
            self.queue.put(lambda: self.tab_steps.closed(page))

    # -- what actions caused: navigations, dialogs, downloads ---------------------------------------
    def _on_navigated(self, frame: Any) -> None:
        if frame.parent_frame is None:
            page, url = frame.page, frame.url  # read now: the queue may run after the next navigation
            self.queue.put(lambda: self._navigated(page, url))

    def _navigated(self, page: Page, url: str) -> None:
        caused = time.monotonic() - self.log.last_time < CAUSED_WITHIN_S  # a click or Enter just did it
        first_load = page is not self.page and not self.tabs.entered(page)  # a tab opening what opened it
        if url != self._last_urls.get(page) and not caused and not first_load and url != "about:blank":
            path = self._relative(url)
            self.log.acting = page
            self.log.add_call(ToolCall("web_navigate", {"url": path}), f"open {path}", new=True)
        self._last_urls[page] = url
        self.log.break_next = True  # the next action starts a new step

    def _on_dialog(self, dialog: Dialog) -> None:
        kind, message, page = dialog.type, dialog.message, dialog.page  # read now: it is answered meanwhile
        self.queue.put(lambda: self.checks.dialog(kind, message, page))

    def _on_download(self, download: Download) -> None:
        name, page = download.suggested_filename, download.page
        self.queue.put(lambda: self.checks.download(name, page))

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
