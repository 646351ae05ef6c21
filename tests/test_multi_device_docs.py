"""docs/multi-device.md is true: its trail is the one run, and every shell command it shows runs, in the
order shown, with the exit code and the output the page says (two real headless browsers)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "multi-device.md"

pytestmark = pytest.mark.browser

EXPECTED = {  # command → (exit code, text its output contains)
    "trailblaze check trails/invite.trail.yaml": (0, "Checked 1 trail(s)"),
    "trailblaze run trails/invite.trail.yaml -d alice=web -d bob=web": (0, "✓ [bob] verify 4: Bob is in Alice's room"),
    "trailblaze run trails/invite.trail.yaml --endpoint ws://127.0.0.1:9/":
        (3, "2 actors (alice, bob) draw from an endpoint pool of 1: each actor needs its own endpoint"),
    "cp trails/invite.trail.yaml trails/invite-again.trail.yaml": (0, ""),
    "trailblaze run trails -n 2": (0, "Results: 2 passed, 0 failed, 0 skipped"),
    "trailblaze run trails --shard 1/2 --output-dir out/shard-1": (0, "Results: 1 passed, 0 failed, 0 skipped"),
    "trailblaze run trails --shard 2/2 --output-dir out/shard-2": (0, "Results: 1 passed, 0 failed, 0 skipped"),
    "trailblaze merge-reports out/shard-1 out/shard-2 --output-dir out/merged --junit-xml out/merged/junit.xml":
        (0, "Results: 2 passed, 0 failed, 0 skipped"),
    "pytest --trails trails": (0, "2 passed"),
}


def doc_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_documented_commands_are_the_tested_ones() -> None:
    assert doc_commands() == list(EXPECTED)


def test_every_documented_command_runs(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    trail = re.findall(r"```yaml\n(.*?)```", text, re.S)[0]
    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (tmp_path / "trails" / "invite.trail.yaml").write_text(trail, encoding="utf-8")
    for i, command in enumerate(doc_commands()):
        words = shlex.split(command)
        out_dir = ["--output-dir", str(tmp_path / f"out{i}")] if words[1] == "run" and "--output-dir" not in words \
            else []
        program = {"trailblaze": [sys.executable, "-m", "trailblaze.cli"],
                   "pytest": [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]}.get(words[0], words[:1])
        done = subprocess.run([*program, *words[1:], *out_dir],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
        code, expected = EXPECTED[command]
        out = done.stdout + done.stderr
        assert done.returncode == code and expected in out, f"{command}\n{out}"
    assert "says `2 actors (alice, bob) draw from an endpoint pool of 1" in text
    summary = json.loads(next((tmp_path / "out1" / "reports").glob("trailblaze_test_results_*.json")).read_text())
    result = summary["results"][0]
    assert [a["name"] for a in result["actors"]] == ["alice", "bob"]
    assert [(s["index"], s["actor"]) for s in result["steps"]] == [(1, "alice"), (2, "alice"), (3, "bob"), (4, "bob")]
    assert (tmp_path / "trails" / "invite.trail.yaml").read_text(encoding="utf-8") == trail  # nothing saved back
    folders = {a["name"]: Path(a["log_dir"]) for a in result["actors"]}
    assert [(n, f.name, f.parent) for n, f in folders.items()] == [  # <output>/<trail run>/<actor>/
        ("alice", "alice", Path(result["log_dir"])), ("bob", "bob", Path(result["log_dir"]))]
    merged = json.loads((tmp_path / "out" / "merged" / "summary.json").read_text())["results"]
    shape = [([a["name"] for a in r["actors"]], [(s["index"], s["actor"], s.get("block")) for s in r["steps"]])
             for r in merged]
    steps = [(s["index"], s["actor"], s.get("block")) for s in result["steps"]]
    assert shape == [(["alice", "bob"], steps)] * 2  # the merge carries what the plain run wrote
    assert (tmp_path / "out" / "merged" / "junit.xml").read_text().count('name="trailblaze.actor.bob"') == 2
