"""The mobile examples' tests use the Appium fixtures of trailblaze-driver-android's test suite."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def appium_env() -> Iterator[tuple[str, dict[str, str]]]:
    """The appium binary installed by scripts/bootstrap.sh (or on PATH) and its APPIUM_HOME."""
    binary = os.environ.get("TRAILBLAZE_APPIUM_BIN")
    local = REPO / ".tools" / "node" / "node_modules" / ".bin" / "appium"
    binary = binary or (str(local) if local.exists() else shutil.which("appium"))
    if not binary:
        pytest.fail("Appium is not installed: run scripts/bootstrap.sh or set TRAILBLAZE_APPIUM_BIN")
    env: dict[str, str] = {}
    home = os.environ.get("APPIUM_HOME") or str(REPO / ".tools" / "appium-home")
    if Path(home).exists():
        env["APPIUM_HOME"] = home
    yield binary, env
