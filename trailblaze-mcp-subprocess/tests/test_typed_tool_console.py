"""A typed TypeScript tool that prints with ``console.log`` — the first thing an author adds to debug — still
runs: the wrapper that serves the author's module (``js/serve_module.mjs``; upstream's is the one
``InlineScriptToolServerSynthesizer.kt`` generates) keeps stdout for the protocol and sends the module's
``console.log``/``console.info``/``process.stdout.write`` to stderr, the tool server's log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = """\
import { trailblaze } from "@trailblaze/scripting";

console.log("loading the module");  // top-level code runs when the server starts

interface Args {
  /** Who to greet. */
  name: string;
}

/** Greets someone, printing on the way. */
export const logTs_greet = trailblaze.tool<Args>({ description: "Greet someone." }, async (args) => {
  console.log("greeting", args.name);
  console.info({ detail: "an object" });
  console.debug("debug line");
  process.stdout.write("raw write\\n");
  return `hello ${args.name}`;
});
"""

TRAIL = """\
config:
  target: logTs
trail:
  - step: Greet
    recording:
      host:
        - logTs_greet: {name: Ada}
"""


def test_console_output_of_a_typed_tool_goes_to_its_log_not_the_protocol(tmp_path: Path) -> None:
    from trailblaze_yaml_tools.ts_tools import package_versions

    if package_versions() is None:
        pytest.fail("typescript and ts-json-schema-generator are not on NODE_PATH: run scripts/bootstrap.sh and "
                    "source .tools/env.sh")
    files = {
        "trails/config/trailblaze.yaml": "targets:\n  - logTs\ndefaults:\n  target: logTs\n",
        "trails/config/trailmaps/logTs/trailmap.yaml": "id: logTs\ntarget:\n  display_name: Logs\n  tools:\n"
                                                       "    - logTs_greet\n",
        "trails/config/trailmaps/logTs/tools/logTs_greet.ts": TOOL,
        "trails/greet.trail.yaml": TRAIL,
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    done = subprocess.run([sys.executable, "-m", "trailblaze.cli", "run", "trails/greet.trail.yaml", "--output-dir",
                           "out", "--no-report"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          check=False, env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Results: 1 passed" in done.stdout
    assert "not JSON-RPC" not in done.stdout + done.stderr
    logged = "\n".join(p.read_text(errors="replace") for p in (tmp_path / "out").rglob("*") if p.is_file())
    for line in ("loading the module", "greeting Ada", "an object", "debug line", "raw write"):
        assert line in logged, line  # the server's stderr file in the session's log folder
