"""Hostile YAML is refused early with one located line and exit 3, through the real CLI.

An alias bomb of a few hundred bytes, 10,000-deep nesting and a 50 MB trail used to cost gigabytes,
a RecursionError or a minute; they must now end like any other bad input. The same limits guard tool
files, trailmap manifests, toolsets and ``trailblaze.yaml``, and each can be raised through the
environment (docs/trail-format.md, "Limits"). The loader that enforces them must still read ordinary
YAML exactly as ruamel's safe loader does.
"""

from __future__ import annotations

import copy
import datetime
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from trailblaze import yamlio, yamlstream
from trailblaze.errors import BadInputError
from trailblaze.yamlstream import YamlLimitError

Run = Callable[..., Any]

LAUGHS = ('{a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"], '
          + ", ".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]" for p, c in zip("abcdefg", "bcdefgh"))
          + ", i: [" + ", ".join(["*h"] * 9) + "]}")
DEEP = "[" * 10_000 + "]" * 10_000
STEP = "  - step: wait a moment\n    recording:\n      host:\n        - wait: {timeToWaitInSeconds: 0}\n"


def trail_with_args(args: str) -> str:
    return f"trail:\n  - step: go\n    recording:\n      host:\n        - dumpMemory: {args}\n"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """The three hostile trails and the message + line each must be reported with."""
    root = tmp_path_factory.mktemp("hostile")
    bomb = root / "bomb.trail.yaml"
    bomb.write_text(trail_with_args(LAUGHS))
    assert len(bomb.read_bytes()) < 700
    deep = root / "deep.trail.yaml"
    deep.write_text(trail_with_args("{reasoning: " + DEEP + "}"))
    big = root / "big.trail.yaml"
    text = "trail:\n" + STEP * (50 * 1024 * 1024 // len(STEP) + 1)
    big.write_text(text)
    limit_line = text.count("\n", 0, yamlstream.Limits().max_bytes) + 1  # where the limit is crossed
    return {
        "bomb": (bomb, r"bomb\.trail\.yaml:5:\d+: YAML aliases expand to more than 100,000 nodes"),
        "deep": (deep, r"deep\.trail\.yaml:5:\d+: YAML nested more than 100 levels deep"),
        "big": (big, rf"big\.trail\.yaml:{limit_line}: the file is 52,\d{{3}},\d{{3}} bytes; YAML input is limited"),
    }


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize("case", ["bomb", "deep", "big"])
def test_hostile_trail_ends_with_exit_3_and_file_line(case: str, command: str, hostile: dict[str, tuple[Path, str]],
                                                      trailblaze_cmd: Run, tmp_path: Path) -> None:
    path, pattern = hostile[case]
    args = [command, str(path)] + (["--output-dir", str(tmp_path / "out")] if command == "run" else [])
    result = trailblaze_cmd(args, cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 3, output
    assert re.search(pattern, output), output
    assert "Traceback" not in output and "MemoryError" not in output and "RecursionError" not in output


def _workspace(root: Path) -> Path:
    config = root / "trails" / "config"
    (config / "trailmaps" / "app" / "tools").mkdir(parents=True)
    (config / "trailmaps" / "app" / "toolsets").mkdir()
    (config / "trailblaze.yaml").write_text("defaults: {}\n")
    (config / "trailmaps" / "app" / "trailmap.yaml").write_text("id: app\n")
    (root / "trails" / "good.trail.yaml").write_text("trail:\n" + STEP)
    return config


HOSTILE_FILES = {
    "tool file": ("trailmaps/app/tools/t.tool.yaml",
                  "id: t\ndescription: d\nparameters: []\ntools:\n  - dumpMemory: " + LAUGHS + "\n",
                  r"t\.tool\.yaml:5:\d+: .*YAML aliases expand"),
    "trailmap": ("trailmaps/app/trailmap.yaml", "id: app\nx: " + DEEP + "\n",
                 r"trailmap\.yaml:2:\d+: .*YAML nested more than 100 levels"),
    "toolset": ("trailmaps/app/toolsets/ts.yaml", "id: ts\ntools: " + DEEP + "\n",
                r"ts\.yaml:2:\d+: .*YAML nested more than 100 levels"),
    "trailblaze.yaml": ("trailblaze.yaml", "defaults: {}\nx: " + LAUGHS + "\n",
                        r"trailblaze\.yaml:2:\d+: .*YAML aliases expand"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_FILES))
def test_workspace_files_are_bounded_too(kind: str, trailblaze_cmd: Run, tmp_path: Path) -> None:
    config = _workspace(tmp_path)
    name, text, pattern = HOSTILE_FILES[kind]
    (config / name).write_text(text)
    result = trailblaze_cmd(["check", "trails/good.trail.yaml"], cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 3, output
    assert re.search(pattern, output), output
    assert "Traceback" not in output


def test_limits_are_raised_and_lowered_through_the_environment(trailblaze_cmd: Run, tmp_path: Path) -> None:
    trail = tmp_path / "nested.trail.yaml"
    trail.write_text(trail_with_args("{reasoning: " + "[" * 150 + "]" * 150 + "}"))
    refused = trailblaze_cmd(["check", str(trail)], cwd=tmp_path)
    assert refused.returncode == 3 and "TRAILBLAZE_YAML_MAX_DEPTH" in refused.stdout + refused.stderr
    allowed = trailblaze_cmd(["check", str(trail)], cwd=tmp_path, env={"TRAILBLAZE_YAML_MAX_DEPTH": "200"})
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr

    small = tmp_path / "small.trail.yaml"
    small.write_text("trail:\n" + STEP * 3)
    line = small.read_text().count("\n", 0, 100) + 1
    lowered = trailblaze_cmd(["check", str(small)], cwd=tmp_path, env={"TRAILBLAZE_YAML_MAX_BYTES": "100"})
    output = lowered.stdout + lowered.stderr
    assert lowered.returncode == 3, output
    assert re.search(rf"small\.trail\.yaml:{line}: the file is 283 bytes; YAML input is limited to 100 bytes", output), output

    bad = trailblaze_cmd(["check", str(small)], cwd=tmp_path, env={"TRAILBLAZE_YAML_MAX_ALIAS_NODES": "lots"})
    assert bad.returncode == 3 and "TRAILBLAZE_YAML_MAX_ALIAS_NODES='lots' must be a positive whole number" in \
        bad.stdout + bad.stderr


def test_modest_aliases_and_depth_still_load() -> None:
    text = "base: &b {a: 1, b: [1, 2]}\nuse: [*b, *b]\nmerged: {<<: *b, b: 3}\n" + "deep: " + "[" * 99 + "]" * 99
    data = yamlio.load_fast(text, "ok.yaml")
    assert data["use"] == [{"a": 1, "b": [1, 2]}] * 2 and data["merged"] == {"a": 1, "b": 3}
    assert yamlio.compose(text, "ok.yaml") is not None


def test_recursive_and_undefined_aliases_are_located_errors() -> None:
    with pytest.raises(BadInputError, match=r"r\.yaml:1:11: .*refers to the structure it is inside"):
        yamlio.load_fast("a: &a [1, *a]", "r.yaml")
    with pytest.raises(BadInputError, match=r"u\.yaml:2:4: the alias '\*x' has no anchor"):
        yamlio.compose("a: 1\nb: *x\n", "u.yaml")


def test_limit_errors_are_bad_input() -> None:
    with pytest.raises(YamlLimitError) as info:
        yamlio.load_fast("x: " + DEEP, "d.yaml")
    assert info.value.exit_code == 3


SAME_AS_RUAMEL = [
    "a: 1", "a: &x [1, {b: 2}]\nb: *x", "k: !!str 5", "q: 'x'\nr: \"y\"", "m: {<<: {a: 1, b: 2}, b: 3}",
    "m: {<<: [{a: 1}, {a: 2, c: 3}], d: 4}", "s: !!set {a, b}", "t: 2001-12-14",
    "f: [1.5, .inf, 1e3, 0x1f, 0o17, 017, -0, +3, 1_000, 12., .5, -.5]", "n: [~, null, Null, '', true, False, TRUE]",
    "", "- 1\n- 2", "x", "%YAML 1.1\n---\na: yes", "b: !!binary aGVsbG8=", "o: !!omap [a: 1, b: 2]", "k: !!float 3",
    "1: x\n2.5: y\nnull: z", "y: [yes, no, on, off]", "text: |\n  two\n  lines\n", "e: {}\nl: []\n",
]


@pytest.mark.parametrize("text", SAME_AS_RUAMEL)
def test_the_bounded_loader_reads_like_ruamels_safe_loader(text: str) -> None:
    expected = YAML(typ="safe", pure=False).load(text)
    got = yamlio.load_fast(text, "same.yaml")
    assert got == expected
    assert type(got) is type(expected)
    if isinstance(expected, dict):
        assert list(got) == list(expected)
        assert all(type(got[k]) is type(v) for k, v in expected.items())
    assert not isinstance(got, datetime.datetime) or got == expected


def test_config_that_only_ruamels_parser_accepts_still_loads_within_the_limits() -> None:
    # libyaml rejects ':' inside a flow scalar; ruamel's parser (and YAML 1.2) accept it
    assert yamlio.load_roundtrip("llm: {providers: {x: {base_url: http://h}}}\n", "c.yaml") == {
        "llm": {"providers": {"x": {"base_url": "http://h"}}}}
    with pytest.raises(YamlLimitError, match=r"c\.yaml:1:\d+: YAML nested more than 100 levels"):
        yamlio.load_roundtrip("a: {b: http://h, c: " + DEEP + "}\n", "c.yaml")


@pytest.mark.parametrize("text", ["a: " + "1" * 5000, "a: 2001-13-45", "a: !!int x"])
def test_unreadable_scalars_are_located_errors(text: str) -> None:
    with pytest.raises(BadInputError, match=r"v\.yaml:1:4: cannot read this value"):
        yamlio.load_fast(text, "v.yaml")


def test_the_depth_limit_cannot_be_raised_past_what_python_can_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_YAML_MAX_DEPTH", "201")
    with pytest.raises(BadInputError, match="TRAILBLAZE_YAML_MAX_DEPTH='201' must be a positive whole number of at "
                                            "most 200"):
        yamlio.load_fast("a: 1", "x.yaml")
    monkeypatch.setenv("TRAILBLAZE_YAML_MAX_DEPTH", "200")
    text = "a: " + "[" * 199 + "]" * 199
    node = yamlio.compose(text, "x.yaml")
    assert node is not None
    from trailblaze.trail.nodes import NodeReader

    data = NodeReader("x.yaml").plain(node)
    assert data == yamlio.load_fast(text, "x.yaml")
    assert copy.deepcopy(data) == data and json.loads(json.dumps(data)) == data
