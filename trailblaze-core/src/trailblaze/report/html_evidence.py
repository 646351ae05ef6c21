"""A trail's evidence in the HTML report, as tables: the network requests and console messages a driver
kept (``WebEvidenceLog`` names its NDJSON files: ``network.ndjson``, ``console.ndjson``), the downloads
and the dialogs its steps logged (``WebDownloadLog``, ``WebDialogLog``). Rows are capped; the files,
linked above the tables, hold everything.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..untrusted import output_text

MAX_ROWS = 200
"""Rows shown per table (a page with thousands of requests keeps the report readable)."""


def evidence_html(entry: dict[str, Any], log_entries: Iterable[dict[str, Any]], log_dir: Path | None,
                  href: Callable[[Path], str]) -> str:
    """The ``WebEvidenceLog`` ``entry`` of an attempt as a folded block: counts in the summary, then a
    table each for the network, the console, the downloads and the dialogs that have rows."""
    raw = entry.get("evidence")
    files: dict[str, Any] = raw if isinstance(raw, dict) else {}
    kinds = [(str(e.get("class", "")).rsplit(".", 1)[-1], e) for e in log_entries]
    downloads = [e for kind, e in kinds if kind == "WebDownloadLog"]
    dialogs = [e for kind, e in kinds if kind == "WebDialogLog"]
    network = _ndjson(log_dir, files.get("network_log"))
    console = _ndjson(log_dir, files.get("console_log"))
    counts = [f"{int(entry.get('requests') or len(network))} requests",
              f"{int(entry.get('failedRequests') or 0)} failed",
              f"{int(entry.get('consoleErrors') or 0)} console errors",
              f"{len(downloads)} downloads", f"{len(dialogs)} dialogs"]
    links = [f"{_e(str(label).replace('_', ' '))}: <a href='{href(log_dir / str(name))}'>{_e(str(name))}</a>"
             for label, name in files.items()] if log_dir is not None else []
    out = [f"<details class=evidence><summary>evidence: {_e(' · '.join(counts))}</summary>"]
    if links:
        out.append(f"<div class=meta>{' · '.join(links)}</div>")
    if network:
        out.append(_table("network", ("method", "url", "status", "ms"), (
            (str(e.get("method", "")), str(e.get("url", "")),
             str(e.get("failure") or e.get("status") or ("download " + str(e["download"]) if e.get("download") else "")),
             str(e.get("durationMs", ""))) for e in network), bad=lambda row: _failed(row[2])))
    if console:
        out.append(_table("console", ("type", "message", "page"), (
            (str(e.get("type", "")), str(e.get("text", "")), str(e.get("url") or "")) for e in console),
            bad=lambda row: row[0] in ("error", "pageerror")))
    if downloads:
        out.append(download_table(downloads, log_dir, href))
    if dialogs:
        out.append(_table("dialogs", ("type", "message", "answer"), (
            (str(e.get("type", "")), str(e.get("message", "")),
             str(e.get("action", "")) + (f" with {json.dumps(e['promptText'])}" if "promptText" in e else ""))
            for e in dialogs)))
    out.append("</details>")
    return "".join(out)


def download_table(downloads: list[dict[str, Any]], log_dir: Path | None, href: Callable[[Path], str]) -> str:
    """The downloads with a link to each kept file (a step shows its own; the evidence block all)."""
    rows = []
    for e in downloads[:MAX_ROWS]:
        kept = e.get("download")
        name = _e(str(e.get("fileName", "")))
        cell = f"<a href='{href(log_dir / str(kept))}'>{name}</a>" if kept and log_dir is not None else name
        size = f"{e['size']} bytes" if isinstance(e.get("size"), int) else ""
        rows.append(f"<tr><td>{cell}</td><td>{_e(size)}</td><td>{_e(str(e.get('url', '')))}</td>"
                    f"<td>{_e(str(e.get('failure') or ''))}</td></tr>")
    return ("<table class=downloads><tr><th>download</th><th>size</th><th>from</th><th></th></tr>"
            + "".join(rows) + "</table>")


def _table(title: str, columns: tuple[str, ...], rows: Iterable[tuple[str, ...]],
           bad: Callable[[tuple[str, ...]], bool] = lambda row: False) -> str:
    out = [f"<table class='evidence-{title}'><tr>" + "".join(f"<th>{_e(c)}</th>" for c in columns) + "</tr>"]
    count = 0
    for row in rows:
        count += 1
        if count > MAX_ROWS:
            continue
        mark = " class=bad" if bad(row) else ""
        out.append(f"<tr{mark}>" + "".join(f"<td>{_e(_clip(cell, 300))}</td>" for cell in row) + "</tr>")
    if count > MAX_ROWS:
        out.append(f"<tr><td colspan={len(columns)}>… {count - MAX_ROWS} more in the file</td></tr>")
    out.append("</table>")
    return "".join(out)


def _failed(status: str) -> bool:
    """A status cell that says the request failed: an HTTP status of 400 or more, or a failure's text."""
    if status.isdigit():
        return int(status) >= 400
    return bool(status) and not status.startswith("download ")


def _ndjson(log_dir: Path | None, name: Any) -> list[dict[str, Any]]:
    if log_dir is None or not name:
        return []
    rows: list[dict[str, Any]] = []
    try:
        with (log_dir / str(name)).open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    rows.append(value)
                if len(rows) > 10 * MAX_ROWS:
                    break
    except OSError:
        return []
    return rows


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _e(text: str) -> str:
    return html.escape(output_text(text), quote=True)
