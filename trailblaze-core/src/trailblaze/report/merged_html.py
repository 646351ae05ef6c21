"""The merged report: one self-contained HTML file for a suite of thousands of trails.

A single run's report (``html.py``) renders every trail and step as HTML and embeds screenshots; at
10,000 trails that is a page no browser opens quickly. This page embeds the trails once, as JSON (no
screenshots: each row links to its bundle's own report, log folder and failing screenshot, which stay
beside it), and a small script renders only the visible page of rows, so its size grows with the
number of trails and filtering touches data, not DOM. Facets: outcome, shard, device, tag and a search;
the shard table shows each shard's wall time; triage groups failures by signature (same tool + error
class + message shape) and by device. All text reaches the DOM through ``textContent``; the JSON is
escaped so no outside text can end the script element.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pydantic_core import PydanticSerializationError

from .html import _e as _escape
from .html import _seconds
from ..json_encode import dumps
from ..results.lanes import actor_label, step_rows
from .merged import status_of
from .html_assets import CSS as BASE_CSS

if TYPE_CHECKING:
    from .bundle import TrailRecord
    from .merged import Merged

PAGE_SIZE = 100
SUMMARY_NAMES = {"Succeeded": "PASSED", "SucceededWithSelfHeal": "PASSED", "Failed": "FAILED",
                 "FailedWithSelfHeal": "FAILED", "Cancelled": "CANCELLED", "TimeoutReached": "TIMEOUT",
                 "MaxCallsLimitReached": "MAX_CALLS_REACHED", "Error": "ERROR", "Skipped": "SKIPPED"}

CSS = BASE_CSS + """
main{max-width:1400px}
select{padding:4px 6px;border:1px solid #d0d7de;border-radius:6px;font:inherit;background:#fff}
table.rows td{cursor:pointer}
table.rows tr.open td{background:#f6f8fa}
td.msg{color:#57606a;max-width:520px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
tr.detail td{cursor:auto;background:#fbfcfd}
.pager{margin:8px 0;display:flex;gap:8px;align-items:center}
.pager button{border:1px solid #d0d7de;background:#fff;border-radius:6px;padding:2px 10px;cursor:pointer}
section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:6px 14px;margin:12px 0}
section h2{font-size:15px;margin:6px 0}
a.sig{cursor:pointer;color:#0969da}
"""

SCRIPT = """
(function(){
var D=JSON.parse(document.getElementById('tb-data').textContent),R=D.rows,page=0,open=-1,shown=[];
var $=function(id){return document.getElementById(id);};
var f={o:'all',s:'',d:'',g:'',q:'',sig:-1};
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function link(href,text){var a=el('a',text);a.setAttribute('href',href);return a;}
function status(r){return r.o==='PASSED'?'passed':r.o==='FLAKY'||r.o==='HEALED'?'flaky':r.o==='SKIPPED'?'skipped':'failed';}
function match(r){
 if(f.o!=='all'&&status(r)!==f.o&&r.o!==f.o)return false;
 if(f.s&&r.s!==f.s)return false; if(f.d&&r.d!==f.d)return false;
 if(f.g&&r.g.indexOf(f.g)<0)return false; if(f.sig>=0&&r.sig!==f.sig)return false;
 if(f.q&&r.x.indexOf(f.q)<0)return false; return true;}
function secs(ms){return ms<60000?(ms/1000).toFixed(2)+' s':Math.floor(ms/60000)+' min '+Math.round(ms%60000/1000)+' s';}
function detail(r){
 var td=el('td');td.colSpan=7;
 if(r.msg){td.appendChild(el('div',r.msg,'error'));}
 var meta=el('div','','meta');
 var bits=[['trail',r.k],['attempt',r.a],['worker',r.w],['endpoint',r.e],['session',r.id],['tags',r.g.join(', ')]];
 bits.forEach(function(b){if(b[1]){meta.appendChild(el('span',b[0]+': '+b[1]+'  '));}});
 if(r.r)meta.appendChild(link(r.r,'run report'));
 if(r.l){meta.appendChild(document.createTextNode(' · '));meta.appendChild(link(r.l,'logs'));}
 if(r.sc){meta.appendChild(document.createTextNode(' · '));meta.appendChild(link(r.sc,'screenshot'));}
 td.appendChild(meta);
 if(r.at.length){var at=el('table','','attempts');var ah=el('tr');['attempt','outcome','time','message',''].forEach(function(x){ah.appendChild(el('th',x));});at.appendChild(ah);
  r.at.forEach(function(a){var tr=el('tr');tr.appendChild(el('td',a[0]));var c=el('td');c.appendChild(el('span',a[1],'badge '+a[1]));tr.appendChild(c);
   tr.appendChild(el('td',secs(a[2])));tr.appendChild(el('td',a[3]||''));var lc=el('td');if(a[4])lc.appendChild(link(a[4],'logs'));tr.appendChild(lc);at.appendChild(tr);});
  td.appendChild(at);}
 if(r.ac.length){td.appendChild(el('div','actors: '+r.ac.join('; '),'meta'));}
 if(r.st.length){var t=el('table');var h=el('tr');var cols=r.ac.length?['#','actor','kind','step','mode','ms','message']:['#','kind','step','mode','ms','message'];
  cols.forEach(function(x){h.appendChild(el('th',x));});t.appendChild(h);
  r.st.forEach(function(s){var tr=el('tr');tr.appendChild(el('td',s[0]));
   if(r.ac.length){var a=el('td');a.appendChild(el('span',s[7],'actor'));if(s[8]){a.appendChild(el('span',' parallel: '+s[8][1].join(', '),'meta'));tr.className='parallel';}tr.appendChild(a);}
   tr.appendChild(el('td',s[1]));
   tr.appendChild(el('td',s[2],s[3]?'ok':'bad'));tr.appendChild(el('td',s[4]));tr.appendChild(el('td',s[5]));tr.appendChild(el('td',s[6]||''));t.appendChild(tr);});
  td.appendChild(t);}
 var tr=el('tr','','detail');tr.appendChild(td);return tr;}
function render(){
 var body=$('rows');body.textContent='';
 var pages=Math.max(1,Math.ceil(shown.length/D.pageSize));if(page>=pages)page=pages-1;
 var start=page*D.pageSize,end=Math.min(shown.length,start+D.pageSize);
 for(var i=start;i<end;i++){(function(idx){var r=R[idx];var tr=el('tr');
  var b=el('span',r.o,'badge '+r.o);var c=el('td');c.appendChild(b);tr.appendChild(c);
  tr.appendChild(el('td',r.t));tr.appendChild(el('td',r.d));tr.appendChild(el('td',r.s||''));
  tr.appendChild(el('td',r.e||r.w||''));tr.appendChild(el('td',secs(r.ms)));tr.appendChild(el('td',r.m||'','msg'));
  if(open===idx)tr.className='open';
  tr.addEventListener('click',function(){open=open===idx?-1:idx;render();});
  body.appendChild(tr);if(open===idx)body.appendChild(detail(r));})(shown[i]);}
 $('count').textContent=shown.length+' of '+R.length+' trail runs';
 $('pageinfo').textContent='page '+(page+1)+' of '+pages;
 $('none').classList.toggle('hidden',shown.length>0);}
function apply(){shown=[];for(var i=0;i<R.length;i++){if(match(R[i]))shown.push(i);}page=0;render();}
function fill(id,values,key){var s=$(id);values.forEach(function(v){var o=el('option',v);o.value=v;s.appendChild(o);});
 s.addEventListener('change',function(){f[key]=s.value;apply();});}
fill('f-shard',D.shards,'s');fill('f-device',D.devices,'d');fill('f-tag',D.tags,'g');
$('f-outcome').addEventListener('change',function(e){f.o=e.target.value;apply();});
$('search').addEventListener('input',function(e){f.q=e.target.value.trim().toLowerCase();apply();});
$('prev').addEventListener('click',function(){if(page>0){page--;render();}});
$('next').addEventListener('click',function(){page++;render();});
document.querySelectorAll('a.sig').forEach(function(a){a.addEventListener('click',function(){
 f.sig=f.sig===+a.dataset.sig?-1:+a.dataset.sig;$('sigfilter').textContent=f.sig>=0?'(showing one signature: click it again to clear)':'';apply();});});
apply();
})();
"""


def write_merged_report(merged: Merged, path: Path) -> Path:
    from ..files import write_atomic

    write_atomic(path, render_merged_report(merged, base=path.parent))
    return path


def _href(path: str | None) -> str | None:
    """A link to a path relative to the report (absolute only for logs written outside a bundle)."""
    if not path:
        return None
    if os.path.isabs(path):
        return Path(path).as_uri()
    return path if _URL_SAFE(path) else quote(path, safe="/")


_URL_SAFE = re.compile(r"[A-Za-z0-9_.\-~/]*").fullmatch
"""What ``quote(path, safe="/")`` leaves as it is: a path of only these needs no call (nearly every one)."""


def render_merged_report(merged: Merged, *, base: Path) -> str:
    from .merged import group_failures, rank, signature

    trails = merged.trails or [[r] for r in merged.records if r.last]
    records = [attempts[-1] for attempts in trails]  # one row per trail run: its result, its attempts inside
    manifest = merged.manifest
    reports = {str(part.get("bundle")): (part.get("files") or {}).get("report") for part in manifest.merged_from}
    failures = group_failures(records, signature)
    sig_index = {sig: i for i, (sig, _) in enumerate(failures)}
    rows = [_row(attempts, reports, sig_index.get(signature(attempts[-1]), -1) if rank(attempts[-1]) == 0 else -1)
            for attempts in trails]
    c = manifest.counts
    flaky = sum(1 for row in rows if row["o"] == "FLAKY")
    title = (f"Trailblaze merged report — {c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
             f"{c.get('skipped', 0)} skipped" + (f" ({flaky} flaky)" if flaky else ""))
    data = {"rows": rows, "pageSize": PAGE_SIZE,
            "shards": sorted({r.shard for r in records if r.shard}),
            "devices": sorted({row["d"] for row in rows if row["d"]}),
            "tags": sorted({t for r in records for t in r.tags})}
    wall = max(0.0, manifest.completed_at - manifest.started_at)
    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8>",
             "<meta name=viewport content='width=device-width,initial-scale=1'>",
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
             f"<header><h1>{_e(title)}</h1><div class=counts>",
             f"<span>Generated {_e(time.strftime('%Y-%m-%d %H:%M:%S'))}</span>",
             f"<span>{len(records)} trail run(s) from {len(manifest.merged_from)} bundle(s)</span>",
             f"<span>wall time {_e(_seconds(wall))}</span>",
             f"<span>exit code {manifest.exit_code}</span>",
             f"<span>interrupted by {_e(manifest.interrupted_by)}</span>" if manifest.interrupted_by else "",
             f"<span>run {_e(manifest.run_id)}</span>",
             f"<span>commit {_e(manifest.git_commit[:12])}</span>" if manifest.git_commit else "",
             "</div></header><main>",
             _shards_html(merged), _triage_html(failures, records),
             "<div class=bar><select id=f-outcome aria-label=outcome><option value=all>all outcomes</option>",
             "<option value=failed>failed</option><option value=flaky>flaky</option>",
             "<option value=passed>passed</option>",
             "<option value=skipped>skipped</option>",
             "".join(f"<option value={_e(o)}>{_e(o)}</option>" for o in sorted({row['o'] for row in rows})),
             "</select><select id=f-shard aria-label=shard><option value=''>all shards</option></select>",
             "<select id=f-device aria-label=device><option value=''>all devices</option></select>",
             "<select id=f-tag aria-label=tag><option value=''>all tags</option></select>",
             "<input id=search type=search placeholder='Search trails, devices, messages' aria-label=search>",
             "<span id=sigfilter class=meta></span></div>",
             "<div class=pager><button id=prev>‹ prev</button><span id=pageinfo></span>",
             "<button id=next>next ›</button><span id=count class=meta></span></div>",
             "<table class=rows><thead><tr><th>outcome</th><th>trail</th><th>device</th><th>shard</th>",
             "<th>endpoint / worker</th><th>time</th><th>message</th></tr></thead><tbody id=rows></tbody></table>",
             "<p id=none class=hidden>No trail matches.</p></main>",
             f"<script type=application/json id=tb-data>{_script_json(data)}</script>",
             f"<script>{SCRIPT}</script></body></html>"]
    return "".join(parts)


def _row(attempts: list[TrailRecord], reports: dict[str, Any], sig: int) -> dict[str, Any]:
    r = attempts[-1]
    actors = r.actors
    outcome = status_of(attempts)
    device = r.device or r.classifier or r.platform or r.driver or ""
    message = (r.message or r.skip_reason or "").strip()
    if outcome == "FLAKY" and not message:
        first = (attempts[0].message or attempts[0].outcome).strip()
        message = f"attempt 1: {first}"
    report = reports.get(r.bundle or "")
    row: dict[str, Any] = {
        "t": r.title, "k": r.key, "o": outcome, "d": device, "s": r.shard, "w": r.worker, "e": r.endpoint,
        "g": r.tags, "a": r.attempt, "ms": int(r.duration_ms), "m": message.splitlines()[0][:200] if message else "",
        "msg": message if outcome != "PASSED" else "", "id": r.session_id, "sig": sig,
        "at": [[a.attempt, status_of([a]), int(a.duration_ms),
                (a.message or "").strip().splitlines()[0][:200] if (a.message or "").strip() else "",
                _href(f"{a.log_dir}/" if a.log_dir else None)] for a in attempts] if len(attempts) > 1 else [],
        "l": _href(f"{r.log_dir}/" if r.log_dir else None),
        "r": _href(f"{r.bundle}/{report}" if report and r.bundle else None),
        "sc": _href(r.artifacts.get("screenshot")),
        "st": _steps(r) if outcome not in ("PASSED", "FLAKY", "HEALED") else [],
        "ac": [actor_label(a) for a in actors] if actors else [],
    }
    # No comprehension where there is nothing to walk (each is a function call in Python 3.11: 10,000 rows).
    row["x"] = " ".join([str(v) for v in (r.title, r.key, device, r.shard, r.worker, r.endpoint, message,
                                          " ".join(r.tags), " ".join([a.name for a in actors]) if actors else "")
                         if v]).lower()
    return row


def _steps(record: TrailRecord) -> list[list[Any]]:
    """The steps of a failed trail for its detail table, laid out by ``results.lanes.step_rows`` as the
    run's report lays them out: each with its actor, and the steps of one ``parallel:`` block together
    (their last cell: ``[block, its actors]``, drawn as lanes by the script)."""
    out: list[list[Any]] = []
    for row in step_rows(sorted(record.steps, key=lambda s: s.number if s.index is None else s.index)):
        together = [row.block, list(row.lanes)] if row.parallel else None
        out.extend([s.number, s.kind, s.text or "", s.success, s.status, s.duration_ms, s.message, s.actor or "",
                    together] for lane in row.lanes.values() for s in lane)
    return out


def _shards_html(merged: Merged) -> str:
    parts = merged.manifest.merged_from
    if not parts:
        return ""
    out = ["<section><h2>Shards and workers</h2><table><tr><th>bundle</th><th>shard</th><th>worker</th>",
           "<th>host</th><th>trails</th><th>passed</th><th>failed</th><th>wall time</th><th>exit</th></tr>"]
    for part in sorted(parts, key=lambda p: (str(p.get("shard") or ""), str(p.get("worker") or ""))):
        counts = part.get("counts") or {}
        wall = float(part.get("completed_at") or 0) - float(part.get("started_at") or 0)
        out.append("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in (
            part.get("bundle"), part.get("shard") or "—", part.get("worker") or "—", part.get("host") or "",
            counts.get("total", ""), counts.get("passed", ""), counts.get("failed", ""), _seconds(max(0.0, wall)),
            part.get("exit_code", ""))) + "</tr>")
    out.append("</table></section>")
    return "".join(out)


def _triage_html(failures: list[tuple[str, list[TrailRecord]]], records: list[TrailRecord]) -> str:
    if not failures:
        return ""
    from .merged import group_failures

    out = ["<section><h2>Triage: failures by signature (tool · error · message shape)</h2>",
           "<table><tr><th>trails</th><th>signature</th><th>devices</th><th>examples</th></tr>"]
    for i, (sig, group) in enumerate(failures[:200]):
        devices = sorted({r.device or r.classifier or r.platform or "" for r in group})
        examples = ", ".join(sorted({r.title for r in group})[:5]) + (" …" if len(group) > 5 else "")
        out.append(f"<tr><td>{len(group)}</td><td><a class=sig data-sig={i}>{_e(sig)}</a></td>"
                   f"<td>{_e(', '.join(d for d in devices if d))}</td><td>{_e(examples)}</td></tr>")
    out.append("</table><h2>Failures by device</h2><table><tr><th>device</th><th>failed</th><th>of</th></tr>")
    totals: dict[str, int] = {}
    for r in records:
        key = r.device or r.classifier or r.platform or "default"
        totals[key] = totals.get(key, 0) + 1
    for device, group in group_failures(records, lambda r: r.device or r.classifier or r.platform or "default"):
        out.append(f"<tr><td>{_e(device)}</td><td>{len(group)}</td><td>{totals.get(device, 0)}</td></tr>")
    out.append("</table></section>")
    return "".join(out)


def _script_json(value: Any) -> str:
    """JSON that cannot close the ``<script>`` element it sits in (nor open a comment or CDATA)."""
    raw: bytes | None
    try:  # encoded in Rust (``json_encode``): the stdlib's ASCII text whenever it holds no other character
        raw = dumps(value)
    except PydanticSerializationError:  # a lone surrogate
        raw = None
    if raw is not None and raw.isascii() and b"\x7f" not in raw:
        text = raw.decode("ascii")
    else:  # non-ASCII text and DEL: the stdlib's \\uXXXX escapes
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _e(value: Any) -> str:
    return _escape(str(value))
