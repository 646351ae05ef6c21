"""The HTML report's stylesheet and script, inline in every report so the file opens offline and fetches
nothing. Kept apart from the rendering (``html.py``): they change for looks, the rendering for content."""

from __future__ import annotations

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
main{padding:16px 24px;max-width:1200px}
.counts span{display:inline-block;margin-right:14px}
.bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 8px}
.bar button{border:1px solid #d0d7de;background:#fff;border-radius:14px;padding:3px 12px;cursor:pointer;font:inherit}
.bar button.on{background:#1d2330;color:#fff;border-color:#1d2330}
.bar input{flex:1;min-width:220px;padding:5px 10px;border:1px solid #d0d7de;border-radius:6px;font:inherit}
.env{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:6px 14px;margin:8px 0}
.env>summary{cursor:pointer;font-weight:600}
.trail{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:12px 0;padding:0}
.trail>summary{padding:10px 14px;cursor:pointer;font-weight:600;list-style:none}
.trail>summary::-webkit-details-marker{display:none}
.trail .dur{float:right;font-weight:400;color:#57606a;font-size:12px}
.body{padding:0 14px 12px}
.badge{display:inline-block;min-width:64px;text-align:center;border-radius:4px;padding:1px 6px;font-size:12px;
 font-weight:700;margin-right:8px;color:#fff}
.PASSED{background:#1f883d}.FAILED{background:#cf222e}.ERROR{background:#9a6700}.SKIPPED{background:#6e7781}
.CANCELLED,.TIMEOUT,.MAX_CALLS_REACHED{background:#8250df}.FLAKY{background:#bc4c00}.HEALED{background:#0969da}
.QUARANTINED{background:#57606a}
.history{float:right;margin-right:12px}.history i{display:inline-block;width:7px;height:14px;margin-left:2px;
 border-radius:2px;vertical-align:middle}
.attempt{border:1px dashed #d0d7de;border-radius:6px;margin:8px 0;padding:4px 10px}
.attempt>summary{cursor:pointer;font-weight:600}
.meta{color:#57606a;font-size:12px;margin:4px 0 8px}
.meta a{color:#0969da}
.mode.agent,.mode.healed{border-radius:4px;padding:0 4px;color:#fff;background:#8250df}
.mode.healed{background:#bf8700}
.actor{display:inline-block;border-radius:4px;padding:0 5px;margin-right:4px;font-size:12px;background:#ddf4ff;color:#0969da}
.parallel{border-left:3px solid #0969da;margin:6px 0;padding:2px 0 2px 8px}
.lanes{display:flex;gap:10px;align-items:flex-start}.lane{flex:1;min-width:0}
.lane-name{font-weight:600;font-size:12px;color:#0969da;margin:2px 0}
.reason{color:#57606a;font-size:12px;margin:2px 0 6px 18px}
.copy-prompt{font-size:12px;margin:4px 0;cursor:pointer}
.prompt-text{white-space:pre-wrap;font-size:12px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px}
.cmd{user-select:all;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:1px 4px}
.error{background:#ffebe9;border:1px solid #ff8182;border-radius:6px;padding:8px 10px;white-space:pre-wrap;
 font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;margin:8px 0}
.step{border-top:1px solid #eaeef2;padding:6px 0}
.step>summary{cursor:pointer}
.step.hit>summary{background:#fff8c5}
.ok{color:#1f883d}.bad{color:#cf222e}
table{border-collapse:collapse;width:100%;margin:6px 0;font-size:12px}
td,th{border-bottom:1px solid #eaeef2;text-align:left;padding:4px 6px;vertical-align:top}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
pre{margin:0;white-space:pre-wrap;word-break:break-word}
figure.shot{display:inline-block;margin:6px 8px 6px 0;vertical-align:top}
img.thumb{width:240px;max-height:180px;object-fit:cover;object-position:top;border:1px solid #d0d7de;
 border-radius:4px;cursor:zoom-in;display:block;background:#eaeef2;min-height:40px}
#overlay{position:fixed;inset:0;background:rgba(0,0,0,.85);display:flex;flex-direction:column;align-items:center;
 justify-content:center;z-index:10;cursor:zoom-out}
#overlay[hidden]{display:none}
#overlay img{max-width:96vw;max-height:90vh;background:#fff}
#overlay div{color:#fff;margin-top:6px;font-size:12px}
.events{font-size:12px;color:#57606a}
.evidence{border:1px solid #eaeef2;border-radius:6px;margin:8px 0;padding:4px 10px}
.evidence>summary{cursor:pointer;font-weight:600}
tr.bad td{color:#cf222e}
.hidden{display:none}
#none{color:#57606a}
"""

SCRIPT = """
(function(){
var shots=JSON.parse(document.getElementById('tb-shots').textContent);
document.querySelectorAll('img[data-shot]').forEach(function(img){img.src=shots[img.dataset.shot]||'';});
var overlay=document.getElementById('overlay'),big=overlay.querySelector('img'),cap=overlay.querySelector('div');
function copied(b,ok){b.textContent=ok?'Copied':'Select the text below and copy it';b.nextElementSibling.hidden=ok;}
function copyPrompt(b){
 var text=b.nextElementSibling.textContent;
 function fallback(){var a=document.createElement('textarea');a.value=text;document.body.appendChild(a);a.select();
  var ok=false;try{ok=document.execCommand('copy');}catch(x){}document.body.removeChild(a);copied(b,ok);}
 if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(text).then(function(){copied(b,true);},fallback);}
 else{fallback();}
}
document.addEventListener('click',function(e){
 var t=e.target;
 if(t.classList&&t.classList.contains('copy-prompt')){copyPrompt(t);return;}
 if(t.classList&&t.classList.contains('thumb')){big.src=t.src;big.alt=t.alt;cap.textContent=t.title;overlay.hidden=false;}
 else if(overlay.contains(t)){overlay.hidden=true;}
});
document.addEventListener('keydown',function(e){if(e.key==='Escape'){overlay.hidden=true;}});
var status='all',query='',trails=document.querySelectorAll('details.trail');
function apply(){
 var shown=0;
 trails.forEach(function(tr){
  var okStatus=status==='all'||tr.dataset.status===status,hit=false;
  tr.querySelectorAll('details.step').forEach(function(st){
   var m=query!==''&&st.dataset.text.indexOf(query)>=0;st.classList.toggle('hit',m);if(m){st.open=true;hit=true;}
  });
  var okQuery=query===''||hit||tr.dataset.text.indexOf(query)>=0;
  tr.classList.toggle('hidden',!(okStatus&&okQuery));
  if(okStatus&&okQuery){shown++;if(hit){tr.open=true;}}
 });
 document.getElementById('none').classList.toggle('hidden',shown>0);
}
document.querySelectorAll('button[data-filter]').forEach(function(b){
 b.addEventListener('click',function(){
  status=b.dataset.filter;
  document.querySelectorAll('button[data-filter]').forEach(function(o){o.classList.toggle('on',o===b);});
  apply();
 });
});
document.getElementById('search').addEventListener('input',function(e){query=e.target.value.trim().toLowerCase();apply();});
})();
"""


__all__ = ["CSS", "SCRIPT"]
