"""The browser side of ``trailblaze record``: a script in every page reports what the person does, and
this module turns each report into the tool call the agent would have recorded.

The page script computes, at the moment of the event, the element's role and accessible name (the
selector a person reads), whether that role + name picks it alone among the shown elements, its test
id, id and a CSS path — at that moment, because a click that submits or navigates leaves nothing to ask
afterwards. Role + name is used when it is unique; otherwise the next most readable candidate.
Passwords never leave the page: a password field reports only that it was typed into, and is recorded
as ``web_fillSecret`` with a ``{{token}}``.

The page also gets a small overlay (bottom right) to name the next step and to check the selected text
("Verify visible"), besides the terminal and Alt+Shift+V. It lives in a shadow root on ``<html>``, outside
``<body>`` (what the agent's snapshots read) and ``aria-hidden``, and events that come from it are not
reported as the person's actions.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from trailblaze import NodeSelector, RecordOptions, RecordedStepDraft, ToolCall, WebMatch, escape_literal

from .selectors import escape_regex

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page


class RecordingBrowser(Protocol):
    """What the recorder needs of the web driver (``PlaywrightDriver`` is one): its context, its current
    page and the base URL recorded navigations are made relative to. A protocol, so the driver can call
    the recorder without the two modules importing each other."""

    @property
    def context(self) -> BrowserContext | None: ...

    @property
    def page(self) -> Page: ...

    def base_url(self) -> str | None: ...

BINDING = "__trailblazeRecord"

PAGE_SCRIPT = r"""
(() => {
  if (window.__trailblazeRecorder) return;
  window.__trailblazeRecorder = true;
  const IMPLICIT = {BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', SUMMARY: 'button',
                    H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading'};
  const INPUT = {button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox',
                 radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', file: 'button'};
  const role = el => {
    if (el.getAttribute('role')) return el.getAttribute('role').split(' ')[0];
    if (el.tagName === 'A' && el.hasAttribute('href')) return 'link';
    if (el.tagName === 'INPUT') return INPUT[(el.type || 'text').toLowerCase()] || 'textbox';
    return IMPLICIT[el.tagName] || null;
  };
  const squash = s => (s || '').replace(/\s+/g, ' ').trim();
  const name = el => {
    if (el.getAttribute('aria-label')) return squash(el.getAttribute('aria-label'));
    const by = el.getAttribute('aria-labelledby');
    if (by) return squash(by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent)
                               .join(' '));
    if (el.labels && el.labels.length) return squash([...el.labels].map(l => l.textContent).join(' '));
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) return squash(el.value);
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName))
      return squash(el.getAttribute('title') || el.getAttribute('placeholder'));
    if (el.tagName === 'IMG') return squash(el.getAttribute('alt'));
    return squash(el.innerText || el.textContent || el.getAttribute('title'));
  };
  const cssPath = el => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
      if (e.id && /^[A-Za-z_][\w-]*$/.test(e.id)) { parts.unshift('#' + e.id); break; }
      let part = e.localName;
      const same = e.parentElement
        ? [...e.parentElement.children].filter(c => c.localName === e.localName) : [];
      if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(e) + 1) + ')';
      parts.unshift(part);
    }
    return parts.join(' > ');
  };
  const shown = e => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
  // Whether role + name picks this element alone, decided now: after a click that submits or navigates,
  // the page it was read from may already be gone.
  const unique = (el, r, n) => r && n &&
    [...document.querySelectorAll('*')]
      .filter(e => e === el || (shown(e) && role(e) === r && name(e) === n)).length === 1;
  const describe = el => {
    if (!el) return null;
    const r = role(el), n = name(el);
    return {role: r, name: n, unique: unique(el, r, n), testId: el.getAttribute('data-testid'),
            id: el.id || null, css: cssPath(el), tag: el.localName};
  };
  const send = (kind, el, data) => {
    try { window.__trailblazeRecord(JSON.stringify({kind, el: describe(el), data: data || {}, t: Date.now(),
                                                     url: location.href})); } catch (e) {}
  };
  const TYPED = 'input:not([type]), input[type=text], input[type=email], input[type=password], ' +
                'input[type=search], input[type=tel], input[type=url], input[type=number], textarea';
  const CLICKABLE = 'button, a[href], [role=button], [role=link], [role=tab], [role=menuitem], ' +
                    '[role=checkbox], [role=radio], input[type=checkbox], input[type=radio], ' +
                    'input[type=submit], input[type=button], summary, label';
  const typed = el => el && el.matches && el.matches(TYPED);
  let host = null;
  const fromOverlay = e => !!host && e.composedPath().includes(host);
  const verifySelection = () => {
    const text = squash(String(window.getSelection()));
    if (text) send('verify', null, {text});
    return text;
  };
  const overlay = () => {
    if (host || !document.documentElement) return;
    host = document.createElement('trailblaze-recorder');
    host.setAttribute('aria-hidden', 'true');
    host.style.cssText = 'all: initial; position: fixed; right: 12px; bottom: 12px; z-index: 2147483647;';
    const root = host.attachShadow({mode: 'open'});
    root.innerHTML = `<style>
      form { display: flex; gap: 6px; align-items: center; padding: 6px 8px; border-radius: 8px;
             font: 13px system-ui, sans-serif; color: #111; background: #fff; border: 1px solid #c33;
             box-shadow: 0 2px 8px rgba(0,0,0,.25); }
      b { color: #c33; cursor: pointer; } input { width: 16em; font: inherit; }
      button { font: inherit; cursor: pointer; }
      output { max-width: 18em; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; color: #555; }
    </style>
    <form><b title="Trailblaze is recording (click: move to the other corner)">● REC</b>
      <input name="step" placeholder="Name the next step" autocomplete="off">
      <button type="submit" name="name">Name step</button>
      <button type="button" name="verify" title="Select text on the page, then press this">
        Verify visible</button>
      <output></output></form>`;
    const form = root.querySelector('form'), input = root.querySelector('input'),
          out = root.querySelector('output'), verify = root.querySelector('button[name=verify]');
    form.addEventListener('submit', e => {
      e.preventDefault();
      const step = squash(input.value);
      if (!step) return;
      send('name', null, {name: step});
      out.textContent = 'Next step: ' + step;
      input.value = '';
    });
    root.querySelector('b').addEventListener('click', () => {  // uncovers what the bar hides
      const left = host.style.left === '12px';
      host.style.left = left ? '' : '12px';
      host.style.right = left ? '12px' : '';
    });
    verify.addEventListener('mousedown', e => e.preventDefault());  // keeps the page's selection
    verify.addEventListener('click', () => {
      const text = verifySelection();
      out.textContent = text ? 'Check added: ' + text : 'Select text on the page first';
    });
    document.documentElement.appendChild(host);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', overlay);
  else overlay();
  const reportTyping = el => send('type', el, el.type === 'password' ? {password: true} : {value: el.value});
  document.addEventListener('click', e => {
    if (!e.isTrusted || fromOverlay(e)) return;
    const target = e.target instanceof Element ? e.target : null;
    if (!target || typed(target) || target.matches('select, input[type=file], option')) return;
    // A click on plain text (selecting it, say) is no action: only what looks clickable is recorded.
    const el = target.closest(CLICKABLE) || (getComputedStyle(target).cursor === 'pointer' ? target : null);
    if (!el || (el.tagName === 'LABEL' && el.control)) return;  // a label's control gets its own click
    send('click', el);
  }, true);
  document.addEventListener('change', e => {
    if (fromOverlay(e)) return;
    const el = e.target;
    if (!(el instanceof Element)) return;
    if (el.tagName === 'SELECT') send('select', el, {values: [...el.selectedOptions].map(o => o.value)});
    else if (el.type === 'file') send('upload', el, {names: [...el.files].map(f => f.name)});
    else if (typed(el)) reportTyping(el);
  }, true);
  document.addEventListener('keydown', e => {
    if (!e.isTrusted || fromOverlay(e)) return;
    if (e.key === 'Enter' && typed(e.target)) { reportTyping(e.target); send('enter', e.target); }
    if (e.altKey && e.shiftKey && e.code === 'KeyV') {
      verifySelection();
      e.preventDefault();
    }
  }, true);
})();
"""


@dataclass
class _Step:
    kind: str
    calls: list[ToolCall] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    name: str | None = None


class Recorder:
    """Turns page reports into recorded steps. Attach it, then ``run()`` pumps Playwright until the
    person closes the page or ``options.should_stop()``."""

    def __init__(self, drv: RecordingBrowser, options: RecordOptions) -> None:
        self.drv = drv
        self.options = options
        self.steps: list[_Step] = []
        self.latencies_ms: list[float] = []
        """Page event to the call recorded, per report, in ms (``benchmarks/bench_recorder.py``)."""
        self._last_action = 0.0
        self._break = True
        self._last_url: str | None = None
        self._typed: dict[str, Any] = {}
        """The last text recorded per field (by ref)."""
        self._named: str | None = None
        """The name given in the page's overlay for the step the next action starts."""

    # -- wiring -----------------------------------------------------------------------------------
    def attach(self) -> None:
        context = self.drv.context
        assert context is not None
        context.expose_binding(BINDING, lambda _source, payload: self._on_report(payload))
        context.add_init_script(PAGE_SCRIPT)
        self.drv.page.evaluate(PAGE_SCRIPT)  # the page already open
        self._last_url = self.drv.page.url
        self.drv.page.on("framenavigated", self._on_navigated)

    def run(self) -> list[RecordedStepDraft]:
        page = self.drv.page
        while not self.options.should_stop():
            try:
                if page.is_closed():
                    break
                page.wait_for_timeout(100)  # lets Playwright deliver the page's reports
            except Exception:  # noqa: BLE001 - the person closed the window: the page is gone
                break
        return self.drafts()

    # -- reports ----------------------------------------------------------------------------------
    def _on_report(self, payload: str) -> None:
        report: dict[str, Any] = json.loads(payload)
        try:
            self._handle(report)
        finally:  # the event's time in the page to the call recorded here
            self.latencies_ms.append(time.time() * 1000 - float(report.get("t", time.time() * 1000)))

    def _handle(self, report: dict[str, Any]) -> None:
        kind = report.get("kind")
        if kind == "name":
            self._named = " ".join(str(report["data"]["name"]).split()) or None
            return
        if kind == "verify":
            text = report["data"]["text"]
            self._add("verify", ToolCall("web_verifyTextVisible", {"text": text}),
                      f"Check that {json.dumps(text, ensure_ascii=False)} is visible", new=True)
            return
        if kind == "enter":
            self._add_call(ToolCall("web_pressKey", {"key": "Enter"}), "press Enter")
            self._break = True
            return
        target = self._target(report.get("el") or {})
        if target is None:
            return
        ref, selector, said = target
        args: dict[str, Any] = {"ref": ref, **({"nodeSelector": selector} if selector else {})}
        if kind == "click":
            self._add_call(ToolCall("web_click", args), f"click {said}")
        elif kind == "type":
            data = report.get("data") or {}
            if data.get("password"):
                call = ToolCall("web_fillSecret", {**args, "value": "{{" + self.options.secret_token + "}}"})
                self._add_call(call, f"fill {said} with {{{{{self.options.secret_token}}}}}")
            else:
                self._add_call(ToolCall("web_type", {**args, "text": str(data.get("value", ""))}),
                               f"type into {said}")
        elif kind == "select":
            self._add_call(ToolCall("web_selectOption", {**args, "values": list(report["data"]["values"])}),
                           f"choose {', '.join(report['data']['values'])} in {said}")
        elif kind == "upload":
            names = list(report["data"]["names"])  # the page knows names only: paths are the trail's to fix
            self._add_call(ToolCall("web_uploadFile", {**args, "paths": names}), f"upload {', '.join(names)}")

    def _on_navigated(self, frame: Any) -> None:
        if frame != self.drv.page.main_frame:
            return
        url = frame.url
        caused = time.monotonic() - self._last_action < 2.0  # a click or Enter just did it
        if url != self._last_url and not caused and url != "about:blank":
            path = self._relative(url)
            self._add_call(ToolCall("web_navigate", {"url": path}), f"open {path}", new=True)
        self._last_url = url
        self._break = True  # the next action starts a new step

    # -- steps ------------------------------------------------------------------------------------
    def _add_call(self, call: ToolCall, said: str, *, new: bool = False) -> None:
        if call.name in ("web_type", "web_fillSecret"):
            # A field reports its text when Enter commits it and again when it loses focus: once is enough.
            value = call.args.get("text", call.args.get("value"))
            if self._typed.get(str(call.args.get("ref"))) == value:
                return
            self._typed[str(call.args.get("ref"))] = value
        last = self.steps[-1] if self.steps else None
        previous = last.calls[-1] if last is not None and last.calls else None
        if last is not None and previous is not None and call.name == previous.name == "web_type" and \
                previous.args.get("ref") == call.args.get("ref"):
            last.calls[-1] = call  # the same field committed again (change, then Enter): keep the final text
            return
        self._add("step", call, said, new=new)

    def _add(self, kind: str, call: ToolCall, said: str, *, new: bool = False) -> None:
        # Every argument came from the page or from what the person typed (a button named "{{shopUrl}}"):
        # literal text, so its braces are escaped. Only the secret's value is a token.
        call = ToolCall(call.name, {k: v if (call.name, k) == ("web_fillSecret", "value") else escape_literal(v)
                                    for k, v in call.args.items()})
        now = time.monotonic()
        pause = self._last_action and now - self._last_action > self.options.pause_s
        last = self.steps[-1] if self.steps else None
        named, self._named = self._named or self.options.take_step_name(), None
        if named or new or self._break or pause or last is None or last.kind != kind or kind == "verify":
            self.steps.append(_Step(kind, name=named or None))
            self._break = False
        self.steps[-1].calls.append(call)
        self.steps[-1].said.append(said)
        self._last_action = now
        if self.options.on_action is not None:
            self.options.on_action(f"{call.name}: {said}")

    def drafts(self) -> list[RecordedStepDraft]:
        out = []
        for step in self.steps:
            if not step.calls:
                continue
            said = step.said[0] if step.kind == "verify" else "; ".join(dict.fromkeys(step.said))
            text = step.name or said
            out.append(RecordedStepDraft("verify" if step.kind == "verify" else "step",
                                         text[:1].upper() + text[1:], list(step.calls)))
        return out

    # -- selectors --------------------------------------------------------------------------------
    def _target(self, el: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str] | None:
        """(ref, nodeSelector, how the terminal names it): role + name when the page found it picks this
        element alone, then a test id, an element id, a CSS path."""
        role, name = el.get("role"), el.get("name")
        if role and name and el.get("unique"):
            descriptor = f"{role} {json.dumps(name, ensure_ascii=False)}"
            sel = NodeSelector(web=WebMatch(ariaRole=role, ariaNameRegex=escape_regex(name)))
            return descriptor, sel.to_yaml(), descriptor
        if el.get("testId"):
            sel = NodeSelector(web=WebMatch(dataTestId=el["testId"]))
            return f'css=[data-testid="{el["testId"]}"]', sel.to_yaml(), f"[data-testid={el['testId']}]"
        if el.get("id"):
            sel = NodeSelector(web=WebMatch(cssSelector=f"#{el['id']}"))
            return f"css=#{el['id']}", sel.to_yaml(), f"#{el['id']}"
        if el.get("css"):
            return f"css={el['css']}", None, el["css"]
        return None

    def _relative(self, url: str) -> str:
        """A URL on the app's base URL as its path (the trail then replays wherever the app is served)."""
        base = (self.drv.base_url() or "").rstrip("/")
        if base and url.startswith(base + "/") or url == base:
            return url[len(base):] or "/"
        return url


def record_actions(drv: RecordingBrowser, options: RecordOptions) -> list[RecordedStepDraft]:
    recorder = Recorder(drv, options)
    recorder.attach()
    return recorder.run()
