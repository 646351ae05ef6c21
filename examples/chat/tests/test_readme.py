"""Every shell line of examples/chat/README.md is run by a test: the ``trailblaze run`` lines by
``test_chat_trails.py`` (the same paths), the server line here."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1]
REPO = EXAMPLE.parents[1]

HOW = {
    "uv run trailblaze run examples/chat/trails": "test_chat_trails.py::test_the_chat_trails_pass_and_leave_no_browser_or_server",
    "uv run trailblaze run examples/chat/failing": "test_chat_trails.py::test_the_failing_twin_exits_1_and_names_the_actor_step_and_tool",
    "python examples/chat/server.py": "test_readme.py::test_the_server_script_serves_until_interrupted",
}
"""Each README line (its comment cut) → the test that runs it."""


def _shell_lines() -> list[str]:
    text = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:bash|sh)\n(.*?)```", text, flags=re.DOTALL)
    return [ln.split("#", 1)[0].strip() for b in blocks for ln in b.splitlines() if ln.split("#", 1)[0].strip()]


def test_every_readme_line_has_a_test() -> None:
    assert sorted(_shell_lines()) == sorted(HOW)
    here = Path(__file__).parent
    for where in HOW.values():
        module, name = where.split("::")
        assert f"def {name}(" in (here / module).read_text(encoding="utf-8"), where
    run_lines = [ln for ln in HOW if " run " in ln]
    trails_test = (here / "test_chat_trails.py").read_text(encoding="utf-8")
    assert all(f'EXAMPLE / "{ln.rsplit("/", 1)[1]}"' in trails_test for ln in run_lines)


def test_the_server_script_serves_until_interrupted() -> None:
    # The README's line, on a free port instead of 8001 (another test or program may hold that one).
    process = subprocess.Popen([sys.executable, "examples/chat/server.py", "--port", "0"], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", first)
        assert url, first
        with urllib.request.urlopen(url.group(0), timeout=10) as response:  # noqa: S310 - loopback only
            assert b"Sign in to Trail Chat" in response.read()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert out.strip().endswith("Stopped.")
