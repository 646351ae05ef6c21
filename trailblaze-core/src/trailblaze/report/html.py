"""Rendering the run report. Plain string building with ``html.escape`` everywhere: no template engine,
nothing fetched when the file is opened. ``<details>`` folds trails and steps, so the report reads
without JavaScript; a small inline script adds the status filter, the search, the screenshots (each
distinct image is embedded once, however many steps show it) and the full-size viewer."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files import write_atomic
from ..results.lanes import actor_label, step_rows
from ..untrusted import output_text
from .html_assets import CSS, SCRIPT
from .html_evidence import download_table, evidence_html
from .log_steps import EVENT_LOGS, TOOL_LOGS, LogStep, call_order, group_steps

if TYPE_CHECKING:
    from ..results.model import RunResult, TrailResult

MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}
MAX_IMAGE_BYTES = 4 * 1024 * 1024
FAILED_FIRST = {"FLAKY": 1, "HEALED": 1, "PASSED": 2, "SKIPPED": 3}
"""Sort rank of an outcome: every kind of failure (0) before passes, skips last."""


class _Images:
    """Screenshots embedded once each: steps often show the same screen, and bytes are the report's size."""

    def __init__(self) -> None:
        self.uris: dict[str, str] = {}
        self.raw_bytes = 0

    def add(self, mime: str, data: bytes) -> str:
        key = hashlib.sha1(data).hexdigest()[:16]  # noqa: S324 - a content key, not security
        if key not in self.uris:
            self.uris[key] = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
            self.raw_bytes += len(data)
        return key

    def script(self) -> str:
        # "</" cannot end the script early: base64 and hex keys never contain it.
        return f"<script type=application/json id=tb-shots>{json.dumps(self.uris)}</script>"


@dataclass
class _Page:
    """What one rendering needs besides the run: where links start from, and the shared images."""

    base: Path | None
    images: _Images = field(default_factory=_Images)
    history: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(trail id, device) → recent statuses, oldest first (``RunResult.history``)."""

    def href(self, target: Path) -> str:
        """A link that works when the report and the logs are moved together (relative), else absolute."""
        rel = self.rel(target)
        return _e(rel if rel is not None else Path(target).resolve().as_uri())

    def rel(self, target: Path | str) -> str | None:
        """``target`` relative to the report's folder (what the report shows: no runner's absolute
        paths), or None without a folder or across drives."""
        if self.base is None:
            return None
        try:
            return Path(os.path.relpath(Path(target).resolve(), Path(self.base).resolve())).as_posix()
        except ValueError:  # another drive (Windows)
            return None

    def shown(self, target: Path | str) -> str:
        return self.rel(target) or str(target)


def write_html_report(run: RunResult, path: Path) -> Path:
    """Write the report of ``run`` to ``path`` (parents created, atomically) and return the path."""
    path = Path(path)
    return write_atomic(path, render_report(run, base=path.parent))


def render_report(run: RunResult, *, base: Path | None = None) -> str:
    """The report as one HTML document; links to logs are relative to ``base`` (the report's folder)."""
    page = _Page(base, history=run.history)
    passed, failed, skipped = run.counts()
    title = f"Trailblaze report — {passed} passed, {failed} failed, {skipped} skipped"
    trails = sorted(run.trails, key=lambda t: FAILED_FIRST.get(_outcome(t), 0))  # stable: run order within
    body = [_trail(trail, page) for trail in trails]
    buckets = {name: sum(1 for t in run.trails if _status(_outcome(t)) == name)
               for name in ("failed", "flaky", "passed", "skipped")}
    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8>",
             "<meta name=viewport content='width=device-width,initial-scale=1'>",
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
             f"<header><h1>{_e(title)}</h1><div class=counts>",
             f"<span>Generated {_e(time.strftime('%Y-%m-%d %H:%M:%S'))}</span>",
             f"<span>{len(run.trails)} trail(s)</span>",
             f"<span>run time {_e(_run_duration(run))}</span>",
             f"<span>exit code {int(run.exit_code)}</span>",
             f"<span>interrupted by {_e(run.interrupted)}</span>" if run.interrupted else "",
             "</div></header><main>",
             "<div class=bar>",
             f"<button class=on data-filter=all>All {len(run.trails)}</button>",
             f"<button data-filter=failed>Failed {buckets['failed']}</button>",
             f"<button data-filter=flaky>Flaky/healed {buckets['flaky']}</button>" if buckets["flaky"] else "",
             f"<button data-filter=passed>Passed {buckets['passed']}</button>",
             f"<button data-filter=skipped>Skipped {buckets['skipped']}</button>",
             "<input id=search type=search placeholder='Search trails and steps' aria-label='Search trails and steps'>",
             "</div>",
             _environment(run)]
    parts.extend(body)
    parts.append("<p id=none class=hidden>No trail matches.</p>" if run.trails else "<p id=none>No trails ran.</p>")
    parts.append("</main><div id=overlay hidden><img alt=''><div></div></div>")
    parts.append(page.images.script())
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return _redacted("".join(parts), run)


_DATA_URI = re.compile(r"(data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+)")


def _redacted(page: str, run: RunResult) -> str:
    """The page through the run's redaction point; embedded images are left whole (a short secret
    that happens to occur in base64 must not corrupt a screenshot)."""
    if not run.redactor.secrets():
        return page
    parts = _DATA_URI.split(page)
    return "".join(part if i % 2 else run.redact(part) for i, part in enumerate(parts))


def _outcome(trail: TrailResult) -> str:
    return trail.status


def _status(outcome: str) -> str:
    """The filter a trail belongs to: passed, flaky (flaky or healed), skipped, or failed (every other outcome)."""
    return {"PASSED": "passed", "SKIPPED": "skipped", "FLAKY": "flaky", "HEALED": "flaky"}.get(outcome, "failed")


def _seconds(value: float) -> str:
    if value < 60:
        return f"{value:.2f} s"
    minutes, seconds = divmod(value, 60)
    return f"{int(minutes)} min {seconds:.0f} s"


def _run_duration(run: RunResult) -> str:
    """Wall-clock time from the first trail's start to the last one's end (trails may run in parallel)."""
    done = [t for t in run.trails if t.completed_at]
    if not done:
        return "–"
    start = min(t.started_at for t in done)
    end = max(t.completed_at or t.started_at for t in done)
    total = sum((t.completed_at or t.started_at) - t.started_at for t in done)
    wall = _seconds(end - start)
    return wall if abs(total - (end - start)) < 0.5 else f"{wall} ({_seconds(total)} summed over trails)"


def _device_info(trail: TrailResult) -> dict[str, Any]:
    """The device the session reported at start (``TrailblazeSessionStatusChangeLog``), if logged."""
    for entry in trail.log_entries:
        status = entry.get("sessionStatus")
        if isinstance(status, dict) and isinstance(status.get("trailblazeDeviceInfo"), dict):
            return dict(status["trailblazeDeviceInfo"])
    return {}


def _environment(run: RunResult) -> str:
    import platform

    from .._version import version_text

    versions = version_text().splitlines()
    rows = [f"<div class=meta>{_e(line.strip())}</div>" for line in versions]
    rows.append(f"<div class=meta>{_e(platform.platform())}</div>")
    devices: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for trail in run.trails:
        info = _device_info(trail)
        size = f"{info['width']}×{info['height']}" if info.get("width") and info.get("height") else ""
        row = (trail.driver or "", trail.classifier or "", str(info.get("name") or info.get("device_id") or ""),
               size, str(info.get("browser") or info.get("os") or ""))
        if not info and any(r[0] == row[0] for r in seen):
            continue  # a trail that never started a device (skipped) adds nothing
        if any(row) and row not in seen:
            seen.add(row)
            devices.append("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in row) + "</tr>")
    table = ("<table><tr><th>driver</th><th>device class</th><th>device</th><th>screen</th><th>browser / OS</th></tr>"
             + "".join(devices) + "</table>") if devices else ""
    return f"<details class=env><summary>Environment</summary>{''.join(rows)}{table}</details>"


def _trail(trail: TrailResult, page: _Page) -> str:
    outcome = _outcome(trail)
    duration = _seconds(trail.completed_at - trail.started_at) if trail.completed_at else ""
    opened = " open" if _status(outcome) == "failed" else ""
    meta = [f"<code>{_e(page.shown(trail.path))}</code>"]
    for label, value in (("driver", trail.driver), ("device", trail.classifier), ("target", trail.target),
                         ("mode", trail.execution_mode if trail.execution_mode != "UNKNOWN" else None),
                         ("session", trail.session_id)):
        if value:
            meta.append(f"{label}: {_e(str(value))}")
    if trail.actors:
        meta.append("actors: " + _e("; ".join(actor_label(a) for a in trail.actors)))
    steps, loose = group_steps(trail.log_entries)
    search = " ".join([trail.title, page.shown(trail.path), trail.trail_id or "", *(s.text for s in steps),
                       *(s.text or "" for s in trail.steps)]).lower()
    quarantined = "<span class='badge QUARANTINED'>QUARANTINED</span>" if trail.quarantined else ""
    if trail.attempts:
        meta.append(f"attempts: {trail.attempt}")
    if trail.llm_call_count:
        meta.append(f"LLM: {trail.llm_call_count} calls · {trail.llm_tokens:,} tokens · ${_e(_cost(trail.llm_cost_usd))}")
    out = [f"<details class=trail data-status={_status(outcome)} data-text='{_e(search)}'{opened}><summary>"
           f"<span class='badge {outcome}'>{outcome}</span>{quarantined}{_e(trail.title)}"
           f"{f'<span class=dur>{_e(duration)}</span>' if duration else ''}{_history_strip(trail, page)}</summary>"
           f"<div class=body><div class=meta>{' · '.join(meta)}</div>"]
    out.append(_heal_check(trail, page))
    for number, attempt in enumerate(trail.attempts, start=1):
        out.append(_attempt(number, attempt, page))
    if trail.attempts:
        out.append(f"<div class=meta>attempt {trail.attempt} (the trail's result):</div>")
    out.append(_attempt_body(trail, page))
    out.append("</div></details>")
    return "".join(out)


def _heal_check(trail: TrailResult, page: _Page) -> str:
    """Whether the recordings the agent made were proven and written, or where they went instead."""
    check = trail.heal_check
    if check is None:
        return ""
    shown = {"proven": "proven, written into the trail", "not_proven": "not proven, the trail is unchanged",
             "skipped": "no proving replay" + (", written into the trail" if check.written else ", the trail is unchanged")}
    parts = [f"heal check: {_e(shown.get(check.status, check.status))}"]
    if check.message:
        parts.append(_e(check.message))
    if check.proposal is not None:
        parts.append(f"proposal: <code>{_e(page.shown(check.proposal))}</code>")
    return f"<div class=meta data-heal-check='{_e(check.status)}'>{' · '.join(parts)}</div>"


def _evidence_links(trail: TrailResult, page: _Page, folder: Path | None = None) -> str:
    """The attempt's evidence files (network and console logs, video, device logs), at its failing step
    (``folder``: the failing actor's, in a trail with actors)."""
    folder = folder or trail.log_dir
    if folder is None:
        return ""
    files = {str(k): str(v) for e in trail.log_entries if isinstance(e.get("evidence"), dict)
             and (folder == trail.log_dir or trail.log_dir_of(session=e.get("session")) == folder)
             for k, v in e["evidence"].items()}
    links = [f"{_e(label.replace('_', ' '))}: <a href='{page.href(folder / name)}'>{_e(name)}</a>"
             for label, name in files.items()]
    return f"<div class=meta>evidence: {' · '.join(links)}</div>" if links else ""


def _history_strip(trail: TrailResult, page: _Page) -> str:
    """The trail's recent runs on this device from the run history, oldest first, this run last."""
    from ..results.store import trail_key

    statuses = page.history.get(trail_key(trail))
    if not statuses or len(statuses) < 2:
        return ""
    cells = "".join(f"<i class='{_e(s)}' title='{_e(s)}'></i>" for s in statuses)
    return f"<span class=history title='recent runs, oldest first'>{cells}</span>"


def _attempt(number: int, attempt: TrailResult, page: _Page) -> str:
    """An earlier attempt, folded, with its own steps, links and evidence."""
    outcome = _outcome(attempt)
    return (f"<details class=attempt><summary><span class='badge {outcome}'>{outcome}</span>attempt {number}"
            f"{' · session ' + _e(attempt.session_id) if attempt.session_id else ''}</summary>"
            f"{_attempt_body(attempt, page)}</details>")


def _attempt_body(trail: TrailResult, page: _Page) -> str:
    outcome = _outcome(trail)
    steps, loose = group_steps(trail.log_entries)
    out: list[str] = []
    links = _links(trail, loose, page)
    if links:
        out.append(f"<div class=meta>{links}</div>")
    if trail.skip_reason and outcome == "SKIPPED":
        out.append(f"<p>Skipped: {_e(trail.skip_reason)}</p>")
    if trail.message and not trail.passed:
        out.append(f"<div class=error>{_e(trail.message)}</div>")
    if trail.actors:
        out.append(_actor_steps(trail, steps, page))
    else:
        results = {s.index: s for s in trail.steps}
        for step in steps:
            out.append(_step_html(step, trail, results.get(step.index) if step.index is not None else None, page))
    artifacts = _artifacts(trail, loose, page)
    if artifacts:
        out.append(artifacts)
    return "".join(out)


def _actor_steps(trail: TrailResult, logged: list[LogStep], page: _Page) -> str:
    """A trail with actors, as ``results.lanes.step_rows`` lays it out (the merged report's layout too):
    each step labelled with its actor, a ``parallel:`` block's steps side by side, one lane per actor.
    Every step of the result is shown; one its actor never logged (skipped) is drawn from the result."""
    by_index = {s.index: s for s in logged if s.index is not None}

    def one(result: Any) -> str:
        step = by_index.get(result.index) or LogStep(result.index, result.kind, result.text or "",
                                                     result.success, result.mode, result.message)
        return _step_html(step, trail, result, page)

    out: list[str] = []
    for row in step_rows(sorted(trail.steps, key=lambda s: s.index)):
        if not row.parallel:
            out.extend(one(result) for lane in row.lanes.values() for result in lane)
            continue
        lanes = "".join(f"<div class=lane data-actor='{_e(name)}'><div class=lane-name>{_e(name)}</div>"
                        f"{''.join(one(result) for result in lane)}</div>" for name, lane in row.lanes.items())
        out.append(f"<div class=parallel data-block={row.block}><div class=meta>parallel: "
                   f"{_e(', '.join(row.lanes))} at the same time</div><div class=lanes>{lanes}</div></div>")
    return "".join(out)


def _links(trail: TrailResult, loose: list[dict[str, Any]], page: _Page) -> str:
    """The trail's log folder, its event log, and the Playwright trace with the command that opens it."""
    parts: list[str] = []
    if trail.log_dir is not None:
        parts.append(f"logs: <a href='{page.href(trail.log_dir)}'>{_e(page.shown(trail.log_dir))}</a>")
    for actor in trail.actors:
        if actor.log_dir is not None:
            parts.append(f"{_e(actor.name)}'s logs: <a href='{page.href(actor.log_dir)}'>{_e(page.shown(actor.log_dir))}</a>")
    evidence = {str(k): str(v) for e in loose if isinstance(e.get("evidence"), dict) for k, v in e["evidence"].items()}
    if trail.log_dir is not None:
        for stream in sorted(trail.log_dir.glob("*.ndjson")) if trail.log_dir.is_dir() else []:
            if stream.name not in evidence.values():
                parts.append(f"log stream: <a href='{page.href(stream)}'>{_e(stream.name)}</a>")
        for label, name in evidence.items():
            parts.append(f"{_e(label.replace('_', ' '))}: <a href='{page.href(trail.log_dir / name)}'>{_e(name)}</a>")
    for entry in loose:
        kind = str(entry.get("class", "")).rsplit(".", 1)[-1]
        if kind == "WebTraceLog" or entry.get("trace"):
            path = str(entry.get("path") or (trail.log_dir / str(entry["trace"]) if trail.log_dir else entry["trace"]))
            parts.append(f"Playwright trace: <a href='{page.href(Path(path))}'>{_e(Path(path).name)}</a> — open it with "
                         f"<code class=cmd>playwright show-trace {_e(_quoted(page.shown(path)))}</code>"
                         + (" (from the report's folder)" if page.rel(path) is not None else ""))
    return "<br>".join(parts)


def _quoted(path: str) -> str:
    import shlex

    return shlex.quote(path)


def _prompt_html(trail: TrailResult, result: Any) -> str:
    """The failed step's "Copy prompt" button and its text (``results.failure_prompt``: what
    ``trailblaze results TRAIL --prompt`` prints), redacted with the rest of the page."""
    from ..results.failure_prompt import failure_prompt

    return (f"<div class=prompt><button type=button class=copy-prompt title='copy what a person or a coding agent "
            f"needs to fix this step'>Copy prompt</button><pre class=prompt-text hidden>"
            f"{_e(failure_prompt(trail, result))}</pre></div>")


def _step_html(step: LogStep, trail: TrailResult, result: Any, page: _Page) -> str:
    ok = step.success if step.success is not None else (result.success if result is not None else None)
    mark = "<span class=ok>✓</span>" if ok else ("<span class=bad>✗</span>" if ok is False else "•")
    number = getattr(result, "number", None)
    label = "trailhead" if step.kind == "trailhead" else f"{step.kind} {number if number else ''}".strip()
    extra = []
    status = getattr(result, "status", None)
    if status is not None:
        extra.append(f"<span class='mode {_e(status)}' data-mode='{_e(status)}'>{_e(status)}</span>")
    elif step.mode:
        extra.append(_e(step.mode))
    if result is not None and getattr(result, "duration_ms", None) is not None:
        extra.append(f"{result.duration_ms} ms")
    if result is not None and getattr(result, "llm_call_count", None):
        extra.append(f"{result.llm_call_count} LLM call{'s' if result.llm_call_count != 1 else ''} · "
                     f"<span class=tokens>{result.input_tokens:,} in / {result.output_tokens:,} out / "
                     f"{result.cached_tokens:,} cached tokens</span> · ${_e(_cost(result.llm_cost_usd))}")
    opened = " open" if ok is False else ""
    actor = getattr(result, "actor", None)
    folder = trail.log_dir_of(actor)  # each actor's screenshots and evidence are in its own folder
    who = f"<span class=actor data-actor='{_e(actor)}'>{_e(actor)}</span>" if actor else ""
    out = [f"<details class=step data-text='{_e(step.text.lower())}'{opened}><summary>{mark} {who}<b>{_e(label)}</b>: "
           f"{_e(step.text)}{' <span class=meta>(' + ', '.join(extra) + ')</span>' if extra else ''}</summary>"]
    if result is not None and getattr(result, "reason", None):
        out.append(f"<div class=reason>the model ran this step: {_e(result.reason)}</div>")
    if ok is False and step.message:
        out.append(f"<div class=error>{_e(step.message)}</div>")
    if ok is False:
        out.append(_evidence_links(trail, page, folder))
    if result is not None and getattr(result, "status", None) == "failed":
        out.append(_prompt_html(trail, result))
    if step.tools:
        out.append("<table><tr><th>tool</th><th>arguments</th><th>outcome</th><th>ms</th></tr>")
        for call in call_order(step.tools):
            out.append(_tool_row(call))
        out.append("</table>")
    if step.llm:
        out.append(_llm_html(step.llm))
    for shot in step.shots:
        out.append(_image(folder, shot, page))
    downloads = [entry for what, entry in step.events if what == "download"]
    if downloads:
        out.append(download_table(downloads, folder, page.href))
    events = [(what, entry) for what, entry in step.events if what != "download"]
    if events:
        out.append("<div class=events>")
        for what, entry in events[:50]:
            out.append(f"<div>{_e(what)}: {_e(_event_text(entry))}</div>")
        if len(events) > 50:
            out.append(f"<div>… {len(events) - 50} more</div>")
        out.append("</div>")
    out.append("</details>")
    return "".join(out)


def _llm_html(requests: list[dict[str, Any]]) -> str:
    """The step's model transcript: one row per request (what the model said and called, tokens, cost),
    each with the messages it was sent folded away."""
    answered = [r for r in requests if "error" not in r]
    cost = sum(float(r.get("costUsd") or 0) for r in answered)
    model = requests[0].get("llmModel") or {}
    out = [f"<details class=llm><summary>model {_e(str(model.get('provider', '')))}/{_e(str(model.get('modelId', '')))}: "
           f"{len(answered)} request{'s' if len(answered) != 1 else ''}, ${cost:.4f}</summary>",
           "<table><tr><th>#</th><th>model said</th><th>tool calls</th><th>tokens in/out</th><th>$</th></tr>"]
    for i, r in enumerate(requests, 1):
        if "error" in r:
            out.append(f"<tr><td>{i}</td><td colspan=4><span class=bad>provider error</span> "
                       f"{_e(str(r['error']))} (retry {_e(str(r.get('retry')))})</td></tr>")
            continue
        response = r.get("response") or {}
        calls = "".join(f"<div><code>{_e(str(a.get('name')))}</code> {_e(_clip(_json(a.get('args')), 300))}</div>"
                        for a in r.get("actions") or [])
        usage = r.get("usage") or {}
        sent = "\n\n".join(f"[{m.get('role')}] {m.get('content')}" for m in r.get("messages") or [])
        said = _e(_clip(str(response.get("text") or ""), 400))
        out.append(f"<tr><td>{i}</td><td>{said}<details><summary class=meta>request</summary>"
                   f"<pre>{_e(_clip(sent, 20000))}</pre></details></td><td>{calls}</td>"
                   f"<td>{_e(str(usage.get('inputTokens', '')))}/{_e(str(usage.get('outputTokens', '')))}</td>"
                   f"<td>{_cost(r.get('costUsd'))}</td></tr>")
    out.append("</table></details>")
    return "".join(out)


def _cost(value: Any) -> str:
    return "" if value is None else f"{float(value):.5f}"


def _tool_row(entry: dict[str, Any]) -> str:
    depth = int(entry.get("depth") or 0)
    name = str(entry.get("toolName", "?"))
    tool = entry.get("trailblazeTool") or {}
    args = tool.get("raw") if isinstance(tool, dict) else None
    raw = entry.get("rawTrailblazeTool")
    recorded = entry.get("recordedTrailblazeTool")
    arg_html = f"<pre>{_e(_json(args))}</pre>"
    if isinstance(raw, dict):
        arg_html += f"<div class=meta>as written: <code>{_e(_json(raw.get('raw')))}</code></div>"
    if isinstance(recorded, dict):
        arg_html += f"<div class=meta>recorded as: <code>{_e(_json(recorded.get('raw')))}</code></div>"
    if entry.get("successful"):
        outcome = f"<span class=ok>ok</span> {_e(_clip(str(entry.get('resultMessage') or ''), 400))}"
    else:
        outcome = f"<span class=bad>failed</span> {_e(str(entry.get('exceptionMessage') or ''))}"
    indent = "&nbsp;&nbsp;" * depth + ("↳ " if depth else "")
    flags = " <span class=meta>(verification)</span>" if entry.get("isVerification") else ""
    return (f"<tr><td>{indent}<code>{_e(name)}</code>{flags}</td><td>{arg_html}</td><td>{outcome}</td>"
            f"<td>{_e(str(entry.get('durationMs', '')))}</td></tr>")


def _image(log_dir: Path | None, entry: dict[str, Any], page: _Page) -> str:
    name = str(entry.get("screenshot"))
    label = str(entry.get("screenName") or name)
    if log_dir is None:
        return f"<div class=meta>screenshot {_e(label)}: not stored</div>"
    path = Path(name) if Path(name).is_absolute() else log_dir / name
    mime = MIME.get(path.suffix.lower())
    try:
        data = path.read_bytes() if mime else b""
    except OSError:
        data = b""
    if not data or mime is None:
        return f"<div class=meta>screenshot {_e(label)}: {_e(page.shown(path))} (not found)</div>"
    if len(data) > MAX_IMAGE_BYTES:
        return (f"<div class=meta>screenshot {_e(label)}: <a href='{page.href(path)}'>{_e(page.shown(path))}</a> "
                "(too large to embed)</div>")
    key = page.images.add(mime, data)
    caption = label + (f" — {entry['url']}" if entry.get("url") else "")
    return (f"<figure class=shot><img class=thumb data-shot={key} alt='{_e(label)}' title='{_e(caption)}'>"
            f"<figcaption class=meta>{_e(caption)}</figcaption></figure>")


def _artifacts(trail: TrailResult, loose: list[dict[str, Any]], page: _Page) -> str:
    rows: list[str] = []
    for entry in loose:
        kind = str(entry.get("class", "")).rsplit(".", 1)[-1]
        if kind == "WebTraceLog" or entry.get("trace"):
            continue  # linked at the top of the trail
        if entry.get("screenshot"):
            rows.append(_image(trail.log_dir, entry, page))
        elif kind == "WebEvidenceLog" and isinstance(entry.get("evidence"), dict):
            rows.append(evidence_html(entry, trail.log_entries, trail.log_dir, page.href))
        elif kind in EVENT_LOGS:
            rows.append(f"<div class=events>{_e(EVENT_LOGS[kind])}: {_e(_event_text(entry))}</div>")
        elif kind in TOOL_LOGS:
            rows.append(f"<table>{_tool_row(entry)}</table>")
    return "".join(rows)


def _event_text(entry: dict[str, Any]) -> str:
    if "text" in entry:
        return f"[{entry.get('type', '')}] {entry.get('text')}"
    if "url" in entry and ("failure" in entry or "status" in entry):
        return f"{entry.get('method', '')} {entry.get('url')} — {entry.get('failure') or entry.get('status')}"
    if "message" in entry:
        typed = f" with {_json(entry['promptText'])}" if "promptText" in entry else ""
        return f"{entry.get('type', '')}: {entry.get('message')} ({entry.get('action', '')}{typed})"
    return _json({k: v for k, v in entry.items() if k not in ("class", "session", "timestamp")})


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=None, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _e(text: str) -> str:
    return html.escape(output_text(text), quote=True)
