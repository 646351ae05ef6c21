"""Every distribution's sources stay ``mypy --strict`` clean (with the pydantic plugin), so a typing
slip fails CI like any other defect instead of piling up until someone runs mypy by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = [
    "trailblaze-core/src/trailblaze",
    "trailblaze-yaml-tools/src",
    "trailblaze-mcp-subprocess/src",
    "trailblaze-driver-web/src/trailblaze_driver_web",
    "trailblaze-driver-android/src/trailblaze_driver_android",
    "trailblaze-driver-ios/src/trailblaze_driver_ios",
]


def test_sources_are_mypy_strict_clean() -> None:
    # The settings (strict, pydantic plugin) are the root pyproject's [tool.mypy].
    result = subprocess.run([sys.executable, "-m", "mypy", *SOURCES], cwd=REPO, capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
