"""YAML tools: loading 1,000 trailmaps × 10 tools cold and from the cache, `trailblaze check` in a
212-tool workspace, and expanding one tool 10,000 times.

1. Load: 10,000 generated ``*.tool.yaml`` files (plus 1,000 ``trailmap.yaml``) through discovery,
   validation, registration and descriptor generation (OpenAI + MCP shapes). Baseline: a C-loader
   ``safe_load`` of the same files (ruamel.yaml's ``YAML(typ="safe", pure=False)`` on libyaml — PyYAML is
   not a dependency). Cold: no cache (the run writes it); aims <= 2.0 s and ratio <= 1.5. Warm: the
   catalog from ``.trailblaze/cache``; aim <= 0.3 s. The files are dated a minute back, as in a
   workspace nobody is editing this second (fresher files are re-hashed on every load, see cache.py).
2. ``trailblaze check`` of one trail in a workspace with 212 tool files, in fresh processes with
   bytecode compiled (a private ``PYTHONPYCACHEPREFIX``), warm cache; baseline ``trailblaze --version``;
   aim <= 0.35 s.
3. Expansion: one YAML tool with 10 parameters and a 5-call body, expanded 10,000 times: µs per
   expansion (substitution only, and with argument validation + re-decoding into tool calls, which is
   what the dispatcher runs), against deep-copying the raw body (the least any expansion must do).

Usage: uv run python benchmarks/bench_yaml_tools.py [--trailmaps 1000] [--tools 10] [--expansions 10000]
"""

from __future__ import annotations

import argparse
import copy
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trailblaze_yaml_tools.plugin as yaml_plugin
from ruamel.yaml import YAML
from trailblaze.config import load_workspace
from trailblaze.testing import new_host
from trailblaze.tools.base import ToolSource
from trailblaze.tools.registry import ToolRegistry
from trailblaze_yaml_tools.catalog import load_catalog

TOOL = """\
id: {name}
description: |
  Log in to the {tm} app with an email and a password, then wait for the home screen.
parameters:
  - {{name: email, type: string, description: Account email}}
  - {{name: password, type: string, description: Account password}}
  - {{name: remember, type: boolean, required: false, default: false, description: Keep me signed in}}
tools:
  - rememberValue: {{variable: lastEmail, value: "{{{{params.email}}}}"}}
  - wait: {{timeToWaitInSeconds: 0}}
  - dumpMemory: {{reasoning: "signed in as {{{{params.email}}}} ({{{{params.remember}}}})"}}
"""

MANIFEST = """\
id: {tm}
target:
  display_name: App {i}
  platforms:
    host: {{tool_sets: [core_interaction]}}
"""

EXPAND = """\
id: bench_expand
description: Ten parameters, five calls.
parameters:
  - {name: s1, type: string}
  - {name: s2, type: string}
  - {name: i1, type: integer}
  - {name: i2, type: integer, required: false, default: 3}
  - {name: b1, type: boolean}
  - {name: b2, type: boolean, required: false}
  - {name: n1, type: number, required: false, default: 1.5}
  - {name: s3, type: string, required: false}
  - {name: e1, type: string, enum: [UP, DOWN], required: false, default: DOWN}
  - {name: s4, type: string, required: false, default: "00123"}
tools:
  - rememberValue: {variable: first, value: "{{params.s1}}-{{params.s2}}"}
  - wait: {timeToWaitInSeconds: "{{params.n1}}"}
  - dumpMemory: {reasoning: "i1={{params.i1}} i2={{params.i2}} b1={{params.b1}}"}
  - rememberValue: {variable: second, value: "{{params.s3}}", reason: "{{memory.user}}"}
  - probe: {flags: ["{{params.b1}}", "{{params.b2}}"], nested: {count: "{{params.i1}}", dir: "{{params.e1}}", code: "{{params.s4}}"}}
"""


def generate(root: Path, trailmaps: int, tools: int) -> list[Path]:
    files: list[Path] = []
    config = root / "trails" / "config"
    config.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("defaults: {}\n")
    for i in range(trailmaps):
        tm = f"app{i}"
        base = config / "trailmaps" / tm
        (base / "tools").mkdir(parents=True)
        manifest = base / "trailmap.yaml"
        manifest.write_text(MANIFEST.format(tm=tm, i=i))
        files.append(manifest)
        for j in range(tools):
            path = base / "tools" / f"{tm}_login{j}.tool.yaml"
            path.write_text(TOOL.format(name=f"{tm}_login{j}", tm=tm))
            files.append(path)
    return files


def bare_load(files: list[Path]) -> float:
    yaml = YAML(typ="safe", pure=False)  # C-loader safe_load: libyaml + ruamel's safe constructor
    t0 = time.perf_counter()
    for path in files:
        yaml.load(path.read_text(encoding="utf-8"))
    return time.perf_counter() - t0


def our_load(root: Path, expected: int) -> float:
    host = new_host()
    host.register(yaml_plugin, "yaml_tools")
    t0 = time.perf_counter()
    config = load_workspace(root, host)
    registry = ToolRegistry()
    host.register_tools(registry, config)
    codec = host.codec(registry)
    for definition in registry:
        d = codec.describe(definition)
        d.openai()
        d.mcp()
    elapsed = time.perf_counter() - t0
    assert len(registry) >= expected, len(registry)
    return elapsed


def expansion(n: int) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "trails/config/trailmaps/bench/tools").mkdir(parents=True)
        (root / "trails/config/trailmaps/bench/tools/bench_expand.tool.yaml").write_text(EXPAND)
        host = new_host()
        config = load_workspace(root, host)
        catalog = load_catalog(config, host, ToolSource(plugin="bench"))
        assert not catalog.errors, catalog.errors
        [definition] = catalog.definitions
        registry = ToolRegistry()
        registry.add(definition)
        codec = host.codec(registry)
        raw = YAML(typ="safe").load(EXPAND)["tools"]
        args = {"s1": "ann", "s2": "lee", "i1": "7", "b1": True, "s3": "x"}
        prepared = definition.prepare(args)
        assert definition.expand(prepared)[4]["probe"] == {
            "flags": [True], "nested": {"count": 7, "dir": "DOWN", "code": "00123"}}

        t0 = time.perf_counter()
        for _ in range(n):
            copy.deepcopy(raw)
        base = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(n):
            definition.expand(prepared)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(n):
            definition.calls(definition.prepare(args), codec)
        full = time.perf_counter() - t0
    return base, ours, full


def age(root: Path, seconds: float = 60.0) -> None:
    """Date every file and directory ``seconds`` back."""
    then = time.time() - seconds
    for directory, dirs, names in os.walk(root):
        for name in (*names, *dirs):
            os.utime(os.path.join(directory, name), (then, then))
        os.utime(directory, (then, then))


def cache_of(root: Path) -> Path:
    return root / ".trailblaze" / "cache"


def check_command(trailmaps: int, tools: int, repeat: int) -> tuple[float, float, int]:
    """Median seconds of ``trailblaze check`` (warm cache) and ``trailblaze --version`` in fresh processes."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        files = generate(root, trailmaps, tools)
        (root / "trails" / "one.trail.yaml").write_text(
            "trail:\n  - step: Sign in\n    recording:\n      host:\n"
            "        - app0_login0: {email: ann@example.com, password: pw}\n")
        age(root)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        check = [sys.executable, "-m", "trailblaze.cli", "check", "trails/one.trail.yaml"]
        version = [sys.executable, "-m", "trailblaze.cli", "--version"]

        def timed(argv: list[str]) -> float:
            t0 = time.perf_counter()
            done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - t0
            assert done.returncode == 0, done.stdout + done.stderr
            return elapsed

        timed(check)  # compiles the bytecode and writes the catalog cache
        timed(version)
        pairs = [(timed(check), timed(version)) for _ in range(repeat)]
    return statistics.median(c for c, _ in pairs), statistics.median(v for _, v in pairs), len(files) - trailmaps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trailmaps", type=int, default=1000)
    parser.add_argument("--tools", type=int, default=10)
    parser.add_argument("--expansions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    ns = parser.parse_args()
    count = ns.trailmaps * ns.tools
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        files = generate(root, ns.trailmaps, ns.tools)
        age(root)
        print(f"generated {count} tool files + {ns.trailmaps} manifests in {time.perf_counter() - t0:.1f} s")
        bare_load(files)  # warm the page cache
        runs = []
        for _ in range(ns.repeat):
            shutil.rmtree(cache_of(root), ignore_errors=True)
            base = bare_load(files)
            cold = our_load(root, count)
            assert (cache_of(root) / "catalog.pickle").is_file()
            warm = our_load(root, count)
            runs.append((base, cold, warm))
    base = statistics.median(r[0] for r in runs)
    cold = statistics.median(r[1] for r in runs)
    warm = statistics.median(r[2] for r in runs)
    print(f"baseline, C-loader safe_load of the same files: {base:6.2f} s")
    print(f"cold: discovery + validation + registration + descriptors (+ writing the cache): {cold:6.2f} s "
          f"({cold / count * 1e6:.0f} µs per tool; aim <= 2.0 s)")
    print(f"  cold ratio: {cold / base:.2f} (aim <= 1.5)")
    print(f"warm, from the cache: {warm:6.2f} s (aim <= 0.3 s); ratio {warm / base:.2f}")

    check, version, tool_files = check_command(53, 4, max(ns.repeat, 5))
    print(f"trailblaze check of one trail, {tool_files} tool files, warm: {check:.2f} s (aim <= 0.35 s); "
          f"trailblaze --version: {version:.2f} s; ratio {check / version:.2f}")

    base_e, ours_e, full_e = expansion(ns.expansions)
    n = ns.expansions
    print(f"expansion, 10 params / 5 calls: {ours_e / n * 1e6:.1f} µs (substitution only), "
          f"{full_e / n * 1e6:.1f} µs (validate args + substitute + re-decode to tool calls)")
    print(f"  baseline deepcopy of the raw body: {base_e / n * 1e6:.1f} µs; ratio {ours_e / base_e:.2f}")


if __name__ == "__main__":
    main()
