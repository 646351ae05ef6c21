"""Replay-only runs never touch a provider: openai and anthropic are not even imported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

PROBE = """
import json, sys
from trailblaze.cli import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
loaded = sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'anthropic', 'httpx', 'httpx2'})
print('PROBE' + json.dumps({'code': code, 'loaded': loaded}))
"""


def probe(args: list[str], cwd: Path, home: Path) -> dict[str, object]:
    env = {"PATH": "/usr/bin:/bin", "TRAILBLAZE_HOME": str(home), "HOME": str(home), "TRAILBLAZE_LOAD_PLUGINS": ""}
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE")), None)
    assert line is not None, proc.stdout + proc.stderr
    return json.loads(line[5:])  # type: ignore[no-any-return]


def test_replay_only_run_never_imports_a_provider_client(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "trails" / "config").mkdir(parents=True)
    # A model *is* configured (and unreachable): a fully recorded trail must not care.
    (root / "trails" / "config" / "trailblaze.yaml").write_text(textwrap.dedent("""\
        llm:
          providers:
            openai: {base_url: "http://127.0.0.1:9/v1", auth: {required: false}}
            anthropic: {base_url: "http://127.0.0.1:9", auth: {required: false}}
          defaults: {model: openai/gpt-4.1}
        """))
    (root / "trails" / "replay.trail.yaml").write_text(textwrap.dedent("""\
        trail:
          - step: Note the time
            recording:
              host:
                - wait: {timeToWaitInSeconds: 0}
                - dumpMemory: {}
        """))
    result = probe(["run", "trails", "--output-dir", str(tmp_path / "logs")], root, tmp_path / "home")
    assert result == {"code": 0, "loaded": []}


def test_importing_the_agent_imports_no_client() -> None:
    code = ("import sys, trailblaze.agent, trailblaze.llm, trailblaze.llm.openai_provider, "
            "trailblaze.llm.anthropic_provider; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'anthropic'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert out.stdout.strip() == "[]", out.stderr
