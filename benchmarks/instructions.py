"""Instructions a command executes, it and every process it starts, counted by valgrind's callgrind.

On a shared two-core machine the same command's wall and CPU time move by ±40 % within minutes, more than
the differences worth measuring between two trees. An instruction count does not move with the load: the
same command on the same input counts within a fraction of a percent of itself, so two trees compare
exactly, run after run. It is not time (a cache miss costs more than an add; sleeps and waits count
nothing), so the benchmarks print it beside their timings, never instead of them. Slow (about 50× the
command's time); needs ``valgrind`` (Debian package ``valgrind``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def available() -> bool:
    return shutil.which("valgrind") is not None


def instructions(cmd: Sequence[str], *, env: Mapping[str, str] | None = None,
                 cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``cmd`` under callgrind (children followed); its result and the instructions of every process."""
    with tempfile.TemporaryDirectory(prefix="callgrind-") as logs:
        done = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                               "--callgrind-out-file=/dev/null", f"--log-file={logs}/%p.log", *cmd],
                              capture_output=True, text=True, check=False, env=env, cwd=cwd)
        total = sum(int(m.group(1).replace(",", "")) for log in Path(logs).glob("*.log")
                    for m in _REFS.finditer(log.read_text(errors="replace")))
    return done, total
