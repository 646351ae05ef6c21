"""docs/writing-a-plugin.md's testing snippet is a real test file, and it runs without a single warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "writing-a-plugin.md"
SNIPPET = REPO / "examples" / "trailblaze-acme" / "tests" / "test_authoring_kit.py"


def _testing_block() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 5. Test it"):text.index("## 6.")]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_doc_shows_the_test_file_verbatim() -> None:
    assert _testing_block() == SNIPPET.read_text(encoding="utf-8")


def test_the_snippet_passes_with_warnings_as_errors(tmp_path: Path) -> None:
    # Its own pytest process, as a plugin author's CI runs it: `-W error` turns any warning (the assertion
    # rewrite one included) into a failure; `-p no:cacheprovider` keeps the checkout clean.
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-W", "error", "-p", "no:cacheprovider",
                             "--rootdir", str(tmp_path), str(SNIPPET)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 passed" in result.stdout and "warning" not in result.stdout.lower(), result.stdout
