"""Fixtures for cross-distribution tests: building wheels once and installing them into clean venvs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _uv() -> str:
    uv = shutil.which("uv")
    if uv is None:
        pytest.fail("uv is not on PATH: run scripts/bootstrap.sh")
    return uv


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``wheelhouse("trailblaze-core")`` builds that distribution's wheel once per session."""
    out = tmp_path_factory.mktemp("wheels")
    built: dict[str, Path] = {}

    def build(directory: str) -> Path:
        if directory not in built:
            before = set(out.glob("*.whl"))
            subprocess.run([_uv(), "build", "--wheel", "--quiet", "-o", str(out), str(REPO / directory)],
                           check=True, capture_output=True, text=True, timeout=300)
            new = set(out.glob("*.whl")) - before
            assert len(new) == 1, f"expected one new wheel for {directory}, got {new}"
            built[directory] = new.pop()
        return built[directory]

    return build


class CleanVenv:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.python = path / "bin" / "python"
        self.bin = path / "bin"

    def install(self, *wheels: Path) -> None:
        subprocess.run([_uv(), "pip", "install", "--quiet", "--python", str(self.python), *map(str, wheels)],
                       check=True, capture_output=True, text=True, timeout=600)

    def run(self, *args: str, cwd: Path | None = None, check: bool = False,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run a console script of this venv with no workspace around it."""
        clean_env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "UV_"))}
        clean_env["PATH"] = f"{self.bin}{os.pathsep}{clean_env.get('PATH', '')}"
        clean_env.update(env or {})
        return subprocess.run([str(self.bin / args[0]), *args[1:]], cwd=cwd, capture_output=True, text=True,
                              env=clean_env, timeout=600, check=check)


@pytest.fixture
def clean_venv(tmp_path: Path) -> CleanVenv:
    path = tmp_path / "venv"
    subprocess.run([_uv(), "venv", "--quiet", "--python", sys.executable, str(path)], check=True,
                   capture_output=True, text=True, timeout=300)
    return CleanVenv(path)


@pytest.fixture
def appium_run_env() -> dict[str, str]:
    """What a ``trailblaze run`` subprocess needs to start Appium with the fake driver itself."""
    binary = os.environ.get("TRAILBLAZE_APPIUM_BIN") or str(REPO / ".tools/node/node_modules/.bin/appium")
    home = os.environ.get("APPIUM_HOME") or str(REPO / ".tools/appium-home")
    return {"TRAILBLAZE_APPIUM_BIN": binary, "APPIUM_HOME": home}


@pytest.fixture
def fake_shop_workspace() -> Callable[..., Path]:
    """``fake_shop_workspace(root, {name: trail_text}, wait_ms=…, web_timeout_ms=…)``: a workspace with
    the Fake Shop app for Appium's fake driver (Trailblaze manages the server), the web driver, and
    those trails. ``extra_web`` adds lines under ``drivers.playwright-native``."""

    def make(root: Path, trails: dict[str, str], *, wait_ms: int, web_timeout_ms: int, extra_web: str = "") -> Path:
        shutil.copytree(REPO / "examples" / "mobile" / "fake-shop" / "app", root / "app")
        (root / "trails" / "config").mkdir(parents=True)
        (root / "trails" / "config" / "trailblaze.yaml").write_text(
            "drivers:\n  android-appium-uiautomator2:\n    platform_name: Fake\n    automation_name: Fake\n"
            f"    app: app/shop-android.xml\n    wait_timeout_ms: {wait_ms}\n    poll_interval_ms: 50\n"
            f"  playwright-native:\n    timeout_ms: {web_timeout_ms}\n{extra_web}")
        for name, text in trails.items():
            (root / "trails" / name).write_text(text)
        return root

    return make
