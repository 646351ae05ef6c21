"""Every YAML example of docs/trail-format.md is real: valid ones parse and pass ``trailblaze check``,
error ones (marked ``<!-- error: ... -->``) fail with that message."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trailblaze.errors import TrailFormatError
from trailblaze.plugins import PluginHost
from trailblaze.testing import run_cli
from trailblaze.trail.parser import parse_trail

DOC = Path(__file__).resolve().parents[3] / "docs" / "trail-format.md"
_ERROR = re.compile(r"^<!-- error: (.*) -->$")


def _blocks() -> list[tuple[int, str, str | None]]:
    """``(line, yaml, expected error or None)`` for each ```yaml block of the document."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    out: list[tuple[int, str, str | None]] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```yaml":
            start = i + 1
            j = start
            while lines[j].strip() != "```":
                j += 1
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            marker = _ERROR.match(before.strip())
            out.append((start, "\n".join(lines[start:j]) + "\n", marker.group(1) if marker else None))
            i = j
        i += 1
    return out


BLOCKS = _blocks()
VALID = [(line, text) for line, text, error in BLOCKS if error is None]
ERRORS = [(line, text, error) for line, text, error in BLOCKS if error is not None]


def test_the_document_has_examples_of_both_kinds() -> None:
    assert len(VALID) >= 10 and len(ERRORS) >= 25


@pytest.mark.parametrize("line, text", VALID, ids=[f"line{line}" for line, _ in VALID])
def test_valid_example_parses(line: int, text: str) -> None:
    trail = parse_trail(text, f"trail-format.md:{line}")
    assert trail.warnings == []


@pytest.mark.parametrize("line, text, error", ERRORS, ids=[f"line{line}" for line, _, _ in ERRORS])
def test_error_example_fails_with_the_documented_message(line: int, text: str, error: str) -> None:
    with pytest.raises(TrailFormatError) as info:
        parse_trail(text, "example.trail.yaml")
    assert error in str(info.value)
    assert re.match(r"example\.trail\.yaml:\d+:\d+: ", str(info.value)), str(info.value)


def test_valid_examples_pass_trailblaze_check(tmp_path: Path, plugin_host: PluginHost) -> None:
    trails = tmp_path / "trails"
    trails.mkdir()
    for line, text in VALID:
        (trails / f"doc_{line}.trail.yaml").write_text(text, encoding="utf-8")
    # The format examples call driver and app tools this core-only host does not have: --no-servers keeps
    # unknown names as warnings, so this checks the format, the args and the tools the core knows.
    # Its only errors may be the examples pinned to the Android driver, which this host does not have:
    # check names the distribution to install (exit 3), and finds nothing else wrong with them.
    result = run_cli(["check", "--no-servers", str(trails)], host=plugin_host, cwd=tmp_path)
    errors = [line for line in result.output.splitlines() if ": error: " in line]
    assert all("[NoDriver]" in line and "install trailblaze-driver-android" in line for line in errors), result.output
    assert result.exit_code == (3 if errors else 0), result.output
    assert f"Checked {len(VALID)} trail(s)" in result.output
