"""Instructions a command executes, it and every process it starts, counted by valgrind's callgrind.

On a shared two-core machine the same command's wall and CPU time move by ±40 % within minutes, more than
the differences worth measuring between two trees. An instruction count does not move with the load: the
same command on the same input counts within a fraction of a percent of itself, so two trees compare
exactly, run after run — except where a process's event loop takes more or fewer turns as bytes arrive
early or late (the MCP SDK's stdio transport: up to half between runs; ``instructions_by_process`` shows
which process moved). It is not time (a cache miss costs more than an add; sleeps and waits count
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
    done, processes = instructions_by_process(cmd, env=env, cwd=cwd)
    return done, sum(count for _, count in processes)


def instructions_by_process(cmd: Sequence[str], *, env: Mapping[str, str] | None = None,
                            cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], list[tuple[str, int]]]:
    """``instructions``, process by process: each process's command line (as valgrind logged it) and its
    count, in the order of their process ids. Where one process's count swings between runs and
    another's does not (an event loop that takes more turns when an answer comes late), the total hides
    which one moved."""
    with tempfile.TemporaryDirectory(prefix="callgrind-") as logs:
        done = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                               "--callgrind-out-file=/dev/null", f"--log-file={logs}/%p.log", *cmd],
                              capture_output=True, text=True, check=False, env=env, cwd=cwd)
        processes = []
        for log in sorted(Path(logs).glob("*.log"), key=lambda p: int(p.stem) if p.stem.isdigit() else 0):
            text = log.read_text(errors="replace")
            command = _COMMAND.search(text)
            count = sum(int(m.group(1).replace(",", "")) for m in _REFS.finditer(text))
            processes.append((command.group(1).strip() if command else "?", count))
    return done, processes


_COMMAND = re.compile(r"Command:\s+(.*)")
