"""The script ``trailblaze record`` runs in every frame: it reports what the person does, and nothing else.

It runs in an isolated world (``recorder_channel``), so the page shares its DOM but not its JavaScript:
the page cannot see or call the hook it reports through, nor patch what it reads (``value``,
``getComputedStyle``...). It names nothing: it marks the element acted on with a unique attribute and
Python asks Playwright for that element's role and accessible name — the one naming path ``trailblaze
snapshot`` and replay use. Only events the person caused (``isTrusted``) are reported.

A field that is or ever was a password — ``type=password``, ``autocomplete=current-password`` or
``new-password``, masked by ``-webkit-text-security`` — stays one for as long as the document lives (a
"show password" toggle does not make it text): its value is never reported, only that it was typed into.
Fields are looked at when they appear, when their ``type`` changes, and at every press of the pointer or
a key (before a toggle's click can unmask them).

The small overlay (bottom right) names the next step and adds "verify visible" checks. It lives in a
shadow root on ``<html>``, outside ``<body>`` (what snapshots read) and ``aria-hidden``; what is done in it
is never reported as an action.
"""

from __future__ import annotations

MARK_ATTRIBUTE = "data-trailblaze-recorded"
"""The attribute the script puts on the element a report is about, for Python to find it by."""
WAS_PASSWORD_ATTRIBUTE = "data-trailblaze-was-password"
"""The attribute ``PASSWORD_WATCH`` puts on a field that was a password, for the script to read."""

PASSWORD_WATCH = r"""
(() => {
  if (globalThis.__trailblazePasswordWatch) return;
  Object.defineProperty(globalThis, '__trailblazePasswordWatch', {value: true});
  const WAS = __WAS__;
  const check = el => {
    if (!(el instanceof HTMLInputElement) || el.hasAttribute(WAS)) return;
    const style = getComputedStyle(el);
    const masked = style.webkitTextSecurity || style.getPropertyValue('-webkit-text-security');
    if ((el.getAttribute('type') || '').toLowerCase() === 'password' || el.type === 'password'
        || /\b(current|new)-password\b/i.test(el.getAttribute('autocomplete') || '')
        || (!!masked && masked !== 'none')) el.setAttribute(WAS, '');
  };
  const scan = () => { for (const el of document.querySelectorAll('input')) check(el); };
  new MutationObserver(records => {
    for (const r of records) {
      if (r.type === 'attributes') check(r.target);
      for (const n of r.addedNodes || []) {
        if (n instanceof HTMLInputElement) check(n);
        else if (n.querySelectorAll) for (const el of n.querySelectorAll('input')) check(el);
      }
    }
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeFilter: ['type', 'autocomplete', 'class', 'style']});
  for (const type of ['pointerdown', 'keydown', 'focusin']) addEventListener(type, scan, true);
  document.addEventListener('DOMContentLoaded', scan, true);
})();
"""
"""Runs in the page's own world of every document from its first instant (a context init script, so a
popup's first document too), while recording: it marks each field that is or was a password. The
isolated script is put into a tab's documents only once the recorder has seen the tab, which for a popup
can be after its page loaded and the person revealed a password; the mark tells it the field was one.
The page can see and remove the mark — as it can read its own field: it protects the person from a
recording in clear, not from the page."""

PAGE_SCRIPT = r"""
(() => {
  if (globalThis.__trailblazeRecorder) return;
  globalThis.__trailblazeRecorder = true;
  const ATTR = __ATTR__, WAS_PASSWORD = __WAS__;
  const doc = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
  let seq = 0, markSeq = 0;
  const marks = new WeakMap();
  const mark = el => {
    let m = marks.get(el);
    if (!m) { m = doc + '-' + (++markSeq); marks.set(el, m); }
    if (el.getAttribute(ATTR) !== m) el.setAttribute(ATTR, m);
    return m;
  };
  const squash = s => (s || '').replace(/\s+/g, ' ').trim();
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
  const about = el => el ? {mark: mark(el), tag: el.localName, testId: el.getAttribute('data-testid'),
                            id: el.id || null, css: cssPath(el),
                            inShadow: el.getRootNode() instanceof ShadowRoot} : null;
  const send = (kind, el, data) => {
    try {
      globalThis[__BINDING__](JSON.stringify({id: doc + ':' + (++seq), kind, el: about(el), data: data || {}, t: Date.now(),
                           url: location.href}));
    } catch (e) {}
  };

  // -- passwords: once a password, always a password ------------------------------------------------
  const secret = new WeakSet();
  const passwordNow = el => {
    if (!(el instanceof HTMLInputElement)) return false;
    if ((el.getAttribute('type') || '').toLowerCase() === 'password' || el.type === 'password') return true;
    if (/\b(current|new)-password\b/i.test(el.getAttribute('autocomplete') || '')) return true;
    const style = getComputedStyle(el);
    const masked = style.webkitTextSecurity || style.getPropertyValue('-webkit-text-security');
    return !!masked && masked !== 'none';
  };
  const isSecret = el => {
    if (passwordNow(el) || (el instanceof Element && el.hasAttribute(WAS_PASSWORD))) secret.add(el);
    return secret.has(el);
  };
  const observed = new WeakSet();
  const scan = root => {
    if (!root || !root.querySelectorAll) return;
    for (const el of root.querySelectorAll('input')) isSecret(el);
    if (!observed.has(root)) {
      observed.add(root);
      new MutationObserver(records => {
        for (const r of records) {
          if (r.type === 'attributes' && r.attributeName === 'type' && (r.oldValue || '').toLowerCase() === 'password')
            secret.add(r.target);
          else if (r.type === 'attributes') isSecret(r.target);
          for (const n of r.addedNodes || []) {
            if (n instanceof HTMLInputElement) isSecret(n);
            else if (n.querySelectorAll) for (const el of n.querySelectorAll('input')) isSecret(el);
          }
        }
      }).observe(root, {subtree: true, childList: true, attributes: true, attributeOldValue: true,
                        attributeFilter: ['type', 'autocomplete', 'class', 'style']});
    }
  };
  const scanShadows = root => {
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { scan(el.shadowRoot); scanShadows(el.shadowRoot); }
  };
  const scanAround = e => {
    scan(document);
    for (const n of e.composedPath()) if (n instanceof ShadowRoot) scan(n);
  };
  if (document.documentElement) scan(document);
  document.addEventListener('DOMContentLoaded', () => { scan(document); scanShadows(document); }, true);
  addEventListener('load', () => scanShadows(document), true);

  // -- what is acted on -------------------------------------------------------------------------------
  const TYPED = 'input:not([type]), input[type=text], input[type=email], input[type=password], ' +
                'input[type=search], input[type=tel], input[type=url], input[type=number], textarea';
  const CLICKABLE = 'button, a[href], [role=button], [role=link], [role=tab], [role=menuitem], ' +
                    '[role=checkbox], [role=radio], [role=switch], [role=option], input[type=checkbox], ' +
                    'input[type=radio], input[type=submit], input[type=button], input[type=reset], ' +
                    'input[type=image], summary, label';
  const typed = el => el instanceof Element && el.matches(TYPED);
  const elements = e => e.composedPath().filter(n => n instanceof Element);
  const origin = e => elements(e)[0] || null;
  let host = null;
  const fromOverlay = e => !!host && e.composedPath().includes(host);
  const clickable = e => {
    for (const el of elements(e)) {
      if (el === document.body || el === document.documentElement) break;
      if (el.matches(CLICKABLE)) return el;
    }
    const first = origin(e);
    return first && getComputedStyle(first).cursor === 'pointer' ? first : null;
  };
  // A custom element showing content that no open shadow root or child holds: a closed shadow root.
  const closedHost = el => {
    for (let e = el; e; e = e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null))
      if (e.localName.includes('-') && !e.shadowRoot && !e.firstElementChild && !squash(e.textContent)
          && e.getBoundingClientRect().width > 0) return e;
    return null;
  };
  const unrecordable = (e, first) => {
    if (first.localName === 'canvas') return ['canvas', first];
    const closed = closedHost(first);
    return closed ? ['closed shadow root', closed] : null;
  };

  // -- typing: the person's text, as the last of their input events left it, sent when the field is
  // left or Enter commits it (what the page writes into a field afterwards is not the person's) --------
  const dirty = new Map();
  const reportTyping = el => {
    const value = dirty.has(el) ? dirty.get(el) : el.value;
    dirty.delete(el);
    send('type', el, isSecret(el) ? {password: true} : {value});
  };
  const verifySelection = () => {
    const text = squash(String(getSelection()));
    if (text) send('verify', null, {text});
    return text;
  };

  let hovered = null, entered = null;
  document.addEventListener('pointerover', e => {  // a person points before pressing: name it early
    if (!e.isTrusted || fromOverlay(e)) return;
    const el = clickable(e);
    if (el && el !== hovered && !typed(el)) { hovered = el; send('pre', el); }
  }, true);
  document.addEventListener('pointerdown', e => {
    if (!e.isTrusted || fromOverlay(e)) return;
    scanAround(e);
    const el = clickable(e);
    if (el && !typed(el)) send('pre', el);  // named now: the click may leave the page
  }, true);
  document.addEventListener('focusin', e => {
    if (!e.isTrusted || fromOverlay(e)) return;
    scanAround(e);
    const el = origin(e);
    if (typed(el) || (el && el.localName === 'select')) { isSecret(el); send('pre', el); }
  }, true);
  document.addEventListener('click', e => {
    if (!e.isTrusted || fromOverlay(e)) return;
    const first = origin(e);
    if (!first || typed(first) || first.matches('select, option, input[type=file]')) return;
    const el = clickable(e);
    if (!el) {
      const why = unrecordable(e, first);
      if (why) send('unrecordable', why[1], {why: why[0], x: Math.round(e.clientX), y: Math.round(e.clientY)});
      return;  // a click on plain text (selecting it, say) is no action
    }
    if (el.tagName === 'LABEL' && el.control) return;  // a label's control gets its own click
    // Enter in a field "clicks" the form's submit button (implicit submission): the Enter is recorded.
    if (e.detail === 0 && entered && entered.form && el.form === entered.form && e.timeStamp - entered.t < 200) return;
    send('click', el);
  }, true);
  document.addEventListener('input', e => {
    if (!e.isTrusted || fromOverlay(e)) return;
    const el = origin(e);
    if (!el) return;
    if (el.localName === 'select') send('select', el, {values: [...el.selectedOptions].map(o => o.value)});
    else if (el.type === 'file') send('upload', el, {names: [...el.files].map(f => f.name)});
    else if (typed(el)) dirty.set(el, isSecret(el) ? null : el.value);
  }, true);
  document.addEventListener('focusout', e => {
    if (!e.isTrusted) return;
    const el = origin(e);
    if (dirty.has(el)) reportTyping(el);
  }, true);
  document.addEventListener('change', e => {
    if (!e.isTrusted) return;
    const el = origin(e);
    if (dirty.has(el)) reportTyping(el);
  }, true);
  document.addEventListener('keydown', e => {
    if (!e.isTrusted || fromOverlay(e)) return;
    scanAround(e);
    const el = origin(e);
    if (e.key === 'Enter' && typed(el)) {
      if (dirty.has(el)) reportTyping(el);
      send('enter', el);
      entered = {form: el.form, t: e.timeStamp};
    }
    if (e.altKey && e.shiftKey && e.code === 'KeyV') {
      verifySelection();
      e.preventDefault();
    }
  }, true);

  // -- the overlay (top document only) ----------------------------------------------------------------
  const overlay = () => {
    if (host || !document.documentElement || window.top !== window) return;
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
      if (!e.isTrusted) return;
      const step = squash(input.value);
      if (!step) return;
      send('name', null, {name: step});
      out.textContent = 'Next step: ' + step;
      input.value = '';
    });
    root.querySelector('b').addEventListener('click', e => {  // uncovers what the bar hides
      if (!e.isTrusted) return;
      const left = host.style.left === '12px';
      host.style.left = left ? '' : '12px';
      host.style.right = left ? '12px' : '';
    });
    verify.addEventListener('mousedown', e => e.preventDefault());  // keeps the page's selection
    verify.addEventListener('click', e => {
      if (!e.isTrusted) return;
      const text = verifySelection();
      out.textContent = text ? 'Check added: ' + text : 'Select text on the page first';
    });
    document.documentElement.appendChild(host);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', overlay);
  else overlay();
})();
"""


def page_script(binding: str) -> str:
    """The script, reporting through ``binding`` (a name only the isolated world has)."""
    import json

    return PAGE_SCRIPT.replace("__BINDING__", json.dumps(binding)).replace("__ATTR__", json.dumps(MARK_ATTRIBUTE)) \
        .replace("__WAS__", json.dumps(WAS_PASSWORD_ATTRIBUTE))


def password_watch() -> str:
    """``PASSWORD_WATCH``, marking with ``WAS_PASSWORD_ATTRIBUTE``."""
    import json

    return PASSWORD_WATCH.replace("__WAS__", json.dumps(WAS_PASSWORD_ATTRIBUTE))
