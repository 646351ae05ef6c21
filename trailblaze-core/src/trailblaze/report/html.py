"""Rendering the run report. Plain string building with ``html.escape`` everywhere: no template engine,
no JavaScript (``<details>`` folds steps), nothing fetched when the file is opened."""

from __future__ import annotations

import base64
import html
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..runner.results import RunResult, TrailResult

MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}
MAX_IMAGE_BYTES = 4 * 1024 * 1024
TOOL_LOGS = ("TrailblazeToolLog", "DelegatingTrailblazeToolLog")
EVENT_LOGS = {"WebConsoleLog": "console", "WebNetworkLog": "network", "WebDialogLog": "dialog",
              "WebArtifactLog": "artifact"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
main{padding:16px 24px;max-width:1200px}
.counts span{display:inline-block;margin-right:14px}
.trail{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:12px 0;padding:0}
.trail>summary{padding:10px 14px;cursor:pointer;font-weight:600;list-style:none}
.trail>summary::-webkit-details-marker{display:none}
.body{padding:0 14px 12px}
.badge{display:inline-block;min-width:64px;text-align:center;border-radius:4px;padding:1px 6px;font-size:12px;
 font-weight:700;margin-right:8px;color:#fff}
.PASSED{background:#1f883d}.FAILED{background:#cf222e}.ERROR{background:#9a6700}.SKIPPED{background:#6e7781}
.CANCELLED,.TIMEOUT,.MAX_CALLS_REACHED{background:#8250df}
.meta{color:#57606a;font-size:12px;margin:4px 0 8px}
.error{background:#ffebe9;border:1px solid #ff8182;border-radius:6px;padding:8px 10px;white-space:pre-wrap;
 font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;margin:8px 0}
.step{border-top:1px solid #eaeef2;padding:6px 0}
.step>summary{cursor:pointer}
.ok{color:#1f883d}.bad{color:#cf222e}
table{border-collapse:collapse;width:100%;margin:6px 0;font-size:12px}
td,th{border-bottom:1px solid #eaeef2;text-align:left;padding:4px 6px;vertical-align:top}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
pre{margin:0;white-space:pre-wrap;word-break:break-word}
img.shot{max-width:100%;max-height:480px;border:1px solid #d0d7de;border-radius:4px;margin:6px 0;display:block}
.events{font-size:12px;color:#57606a}
"""


@dataclass
class _Step:
    index: int | None
    kind: str
    text: str
    success: bool | None = None
    mode: str | None = None
    message: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    shots: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    llm: list[dict[str, Any]] = field(default_factory=list)
    """The step's model requests (``TrailblazeLlmRequestLog``), when the agent ran it."""


def write_html_report(run: RunResult, path: Path) -> Path:
    """Write the report of ``run`` to ``path`` (parents created) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(run), encoding="utf-8")
    return path


def render_report(run: RunResult) -> str:
    passed, failed, skipped = run.counts()
    title = f"Trailblaze report — {passed} passed, {failed} failed, {skipped} skipped"
    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8>",
             "<meta name=viewport content='width=device-width,initial-scale=1'>",
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
             f"<header><h1>{_e(title)}</h1><div class=counts>",
             f"<span>Generated {_e(time.strftime('%Y-%m-%d %H:%M:%S'))}</span>",
             f"<span>{len(run.trails)} trail(s)</span>",
             f"<span>exit code {int(run.exit_code)}</span>",
             f"<span>interrupted by {_e(run.interrupted)}</span>" if run.interrupted else "",
             "</div></header><main>"]
    for trail in run.trails:
        parts.append(_trail(trail))
    if not run.trails:
        parts.append("<p>No trails ran.</p>")
    parts.append("</main></body></html>")
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
    from ..runner.results import OUTCOME_TO_SUMMARY

    return OUTCOME_TO_SUMMARY.get(trail.outcome, str(trail.outcome.value).upper())


def _trail(trail: TrailResult) -> str:
    outcome = _outcome(trail)
    duration = ""
    if trail.completed_at:
        duration = f"{(trail.completed_at - trail.started_at):.2f} s"
    opened = " open" if outcome not in ("PASSED", "SKIPPED") else ""
    meta = [f"<code>{_e(str(trail.path))}</code>"]
    for label, value in (("driver", trail.driver), ("device", trail.classifier), ("target", trail.target),
                         ("mode", trail.execution_mode if trail.execution_mode != "UNKNOWN" else None),
                         ("session", trail.session_id), ("duration", duration)):
        if value:
            meta.append(f"{label}: {_e(str(value))}")
    out = [f"<details class=trail{opened}><summary><span class='badge {outcome}'>{outcome}</span>{_e(trail.title)}"
           f"</summary><div class=body><div class=meta>{' · '.join(meta)}</div>"]
    if trail.skip_reason and outcome == "SKIPPED":
        out.append(f"<p>Skipped: {_e(trail.skip_reason)}</p>")
    if trail.message and outcome != "PASSED":
        out.append(f"<div class=error>{_e(trail.message)}</div>")
    steps, loose = _steps(trail.log_entries)
    results = {s.index: s for s in trail.steps}
    for step in steps:
        out.append(_step_html(step, trail, results.get(step.index) if step.index is not None else None))
    artifacts = _artifacts(trail, loose)
    if artifacts:
        out.append(artifacts)
    out.append("</div></details>")
    return "".join(out)


def _steps(entries: Iterable[dict[str, Any]]) -> tuple[list[_Step], list[dict[str, Any]]]:
    """Group log entries by step (ObjectiveStartLog … ObjectiveCompleteLog); the rest is returned loose."""
    steps: list[_Step] = []
    loose: list[dict[str, Any]] = []
    current: _Step | None = None
    for entry in entries:
        kind = str(entry.get("class", "")).rsplit(".", 1)[-1]
        if kind == "ObjectiveStartLog":
            current = _Step(entry.get("stepIndex"), str(entry.get("kind") or "step"), str(entry.get("description") or ""))
            steps.append(current)
        elif kind == "ObjectiveCompleteLog":
            if current is not None:
                current.success = bool(entry.get("successful"))
                current.mode = entry.get("mode")
                current.message = entry.get("message")
            current = None
        elif kind in TOOL_LOGS:
            (current.tools if current is not None else loose).append(entry)
        elif kind == "TrailblazeLlmRequestLog":
            (current.llm if current is not None else loose).append(entry)
        elif entry.get("screenshot"):
            if current is not None:
                current.shots.append(entry)
            elif steps and entry.get("stepIndex") == steps[-1].index:
                steps[-1].shots.append(entry)  # the step's screenshot is taken as it completes
            else:
                loose.append(entry)
        elif kind in EVENT_LOGS:
            if current is not None:
                current.events.append((EVENT_LOGS[kind], entry))
            else:
                loose.append(entry)
        else:
            loose.append(entry)
    return steps, loose


def _step_html(step: _Step, trail: TrailResult, result: Any) -> str:
    ok = step.success if step.success is not None else (result.success if result is not None else None)
    mark = "<span class=ok>✓</span>" if ok else ("<span class=bad>✗</span>" if ok is False else "•")
    number = getattr(result, "number", None)
    label = "trailhead" if step.kind == "trailhead" else f"{step.kind} {number if number else ''}".strip()
    extra = []
    if step.mode:
        extra.append(_e(step.mode))
    if result is not None and getattr(result, "duration_ms", None) is not None:
        extra.append(f"{result.duration_ms} ms")
    opened = " open" if ok is False else ""
    out = [f"<details class=step{opened}><summary>{mark} <b>{_e(label)}</b>: {_e(step.text)}"
           f"{' <span class=meta>(' + ', '.join(extra) + ')</span>' if extra else ''}</summary>"]
    if ok is False and step.message:
        out.append(f"<div class=error>{_e(step.message)}</div>")
    if step.tools:
        out.append("<table><tr><th>tool</th><th>arguments</th><th>outcome</th><th>ms</th></tr>")
        for call in _call_order(step.tools):
            out.append(_tool_row(call))
        out.append("</table>")
    if step.llm:
        out.append(_llm_html(step.llm))
    for shot in step.shots:
        out.append(_image(trail.log_dir, shot))
    if step.events:
        out.append("<div class=events>")
        for what, entry in step.events[:50]:
            out.append(f"<div>{_e(what)}: {_e(_event_text(entry))}</div>")
        if len(step.events) > 50:
            out.append(f"<div>… {len(step.events) - 50} more</div>")
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


def _call_order(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parents before their children. Logs are written as calls complete (children first); a call at
    depth d adopts the calls of depth d+1 completed since the previous call at depth d."""
    pending: dict[int, list[tuple[dict[str, Any], list[Any]]]] = {}
    for entry in entries:
        depth = int(entry.get("depth") or 0)
        children = pending.pop(depth + 1, [])
        pending.setdefault(depth, []).append((entry, children))
    out: list[dict[str, Any]] = []

    def walk(node: tuple[dict[str, Any], list[Any]]) -> None:
        out.append(node[0])
        for child in node[1]:
            walk(child)

    for depth in sorted(pending):
        for node in pending[depth]:
            walk(node)
    return out


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


def _image(log_dir: Path | None, entry: dict[str, Any]) -> str:
    name = str(entry.get("screenshot"))
    label = _e(str(entry.get("screenName") or name))
    if log_dir is None:
        return f"<div class=meta>screenshot {label}: not stored</div>"
    path = Path(name) if Path(name).is_absolute() else log_dir / name
    mime = MIME.get(path.suffix.lower())
    try:
        data = path.read_bytes() if mime else b""
    except OSError:
        data = b""
    if not data:
        return f"<div class=meta>screenshot {label}: {_e(str(path))} (not found)</div>"
    if len(data) > MAX_IMAGE_BYTES:
        return f"<div class=meta>screenshot {label}: {_e(str(path))} (too large to embed)</div>"
    encoded = base64.b64encode(data).decode("ascii")
    return (f"<figure style='margin:0'><img class=shot alt='{label}' src='data:{mime};base64,{encoded}'>"
            f"<figcaption class=meta>{label}{' — ' + _e(str(entry.get('url'))) if entry.get('url') else ''}"
            f"</figcaption></figure>")


def _artifacts(trail: TrailResult, loose: list[dict[str, Any]]) -> str:
    rows: list[str] = []
    for entry in loose:
        kind = str(entry.get("class", "")).rsplit(".", 1)[-1]
        if kind == "WebTraceLog" or entry.get("trace"):
            path = entry.get("path") or (str(trail.log_dir / str(entry["trace"])) if trail.log_dir else entry["trace"])
            rows.append(f"<div>Playwright trace: <code>{_e(str(path))}</code> — open with "
                        f"<code>playwright show-trace {_e(str(path))}</code></div>")
        elif entry.get("screenshot"):
            rows.append(_image(trail.log_dir, entry))
        elif kind in EVENT_LOGS:
            rows.append(f"<div class=events>{_e(EVENT_LOGS[kind])}: {_e(_event_text(entry))}</div>")
        elif kind in TOOL_LOGS:
            rows.append(f"<table>{_tool_row(entry)}</table>")
    if trail.log_dir:
        rows.append(f"<div class=meta>logs: <code>{_e(str(trail.log_dir))}</code></div>")
    return "".join(rows)


def _event_text(entry: dict[str, Any]) -> str:
    if "text" in entry:
        return f"[{entry.get('type', '')}] {entry.get('text')}"
    if "url" in entry and ("failure" in entry or "status" in entry):
        return f"{entry.get('method', '')} {entry.get('url')} — {entry.get('failure') or entry.get('status')}"
    if "message" in entry:
        return f"{entry.get('type', '')}: {entry.get('message')} ({entry.get('action', '')})"
    return _json({k: v for k, v in entry.items() if k not in ("class", "session", "timestamp")})


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=None, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _e(text: str) -> str:
    return html.escape(text, quote=True)
