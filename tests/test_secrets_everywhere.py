"""``--secret`` values never reach any output of a run: not the console, the summary, the report, the
session logs and artifacts, the Appium server's log, nor a temporary file.

One run pushes a secret through every path that used to leak it: ``exec`` output in a failure message,
typing into a real Chromium page, typing on Appium's fake driver (whose server logs request bodies), and
failing verifications that quote the secret. Then every file the run wrote — the output directory, the
workspace, and the run's own temporary directory, zip archives opened — is searched for the value.
The same run is made with the secret given by ``--secret``, ``--secret-env`` and ``--secrets-file``; the
last two also never show it in ``ps`` while the run is going.
"""

from __future__ import annotations

import json
import subprocess
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from trailblaze.testing import CliProcess

pytestmark = pytest.mark.appium

SECRET = "Tb-s3cret-4471"
SETTINGS: dict[str, Any] = {"wait_ms": 800, "web_timeout_ms": 1500, "extra_web": "    trace: retain-on-failure\n"}

HOST_TRAIL = """\
config: {id: leak/exec}
trail:
  - step: A setup script prints the password and fails
    recording:
      host:
        - exec: {argv: [sh, -c, "echo the password is {{password}}; exit 3"]}
"""

WEB_TRAIL = """\
config:
  id: leak/web
  devices: {web: PLAYWRIGHT_NATIVE}
trail:
  - step: Open the sign-in form
    recording:
      web:
        - web_navigate: {url: "data:text/html,<label>Name <input aria-label=Name></label><label>Password <input type=password aria-label=Password></label>"}
  - step: Type the secret into a text field and a password field
    recording:
      web:
        - web_type: {ref: 'textbox "Name"', text: "{{password}}"}
        - web_fillSecret: {ref: 'textbox "Password"', value: "{{password}}"}
  - verify: The page shows the password as text
    recording:
      web:
        - web_verifyTextVisible: {text: "{{password}}"}
"""

ANDROID_TRAIL = """\
config:
  id: leak/android
  devices: {android: ANDROID_ONDEVICE_ACCESSIBILITY}
trail:
  - step: Type the secret into the email field
    recording:
      android:
        - tapOnElementBySelector:
            nodeSelector: {androidAccessibility: {resourceIdRegex: "com.example.fakeshop:id/email"}}
        - inputText: {text: "{{password}}"}
  - verify: The secret is shown
    recording:
      android:
        - assertVisibleBySelector:
            nodeSelector: {androidAccessibility: {textRegex: "nothing like {{password}} here"}}
            timeoutMs: 300
"""


def run(ws: Path, tmp: Path, appium_env: dict[str, str], *args: str, env: dict[str, str] | None = None,
        ps_lines: list[str] | None = None) -> tuple[int, str]:
    """``trailblaze run`` in a subprocess whose temporary directory is ``tmp`` (Python, Node and
    Chromium all honour TMPDIR), so every temporary file of the run can be found afterwards. With
    ``ps_lines``, every ``ps`` line that mentions the secret while the run goes is collected there."""
    tmp.mkdir()
    proc = CliProcess(["run", "trails", "--output-dir", str(ws / "out"), *args], cwd=ws,
                      env={**appium_env, "TMPDIR": str(tmp), **(env or {})})
    done = threading.Event()

    def watch() -> None:  # this run's processes only: tests running beside it may pass --secret
        while not done.is_set():
            ours = {str(proc.pid), *(str(pid) for pid, _ in proc.children())}
            listing = subprocess.run(["ps", "-eww", "-o", "pid=,args="], capture_output=True, text=True, check=False).stdout
            assert ps_lines is not None
            ps_lines.extend(line for line in listing.splitlines()
                            if SECRET in line and line.split(maxsplit=1)[0] in ours)
            done.wait(0.2)

    watcher = threading.Thread(target=watch) if ps_lines is not None else None
    if watcher is not None:
        watcher.start()
    try:
        return proc.finish(timeout=600)
    finally:
        done.set()
        if watcher is not None:
            watcher.join()


def secret_source(source: str, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    """The command-line options and environment that give the run the secret ``password``."""
    if source == "--secret":
        return ["--secret", f"password={SECRET}"], {}
    if source == "--secret-env":
        return ["--secret-env", "password=TB_LEAK_TEST_PASSWORD"], {"TB_LEAK_TEST_PASSWORD": SECRET}
    path = tmp_path / "secrets.yaml"  # outside the workspace, as a CI secret file would be
    path.write_text(f"password: {SECRET}\n")
    path.chmod(0o600)
    return ["--secrets-file", str(path)], {}


def contents(path: Path) -> list[tuple[str, bytes]]:
    """A file's bytes, and for a zip archive (a Playwright trace) each member's too."""
    data = path.read_bytes()
    out = [(str(path), data)]
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            out.extend((f"{path}!{name}", archive.read(name)) for name in archive.namelist())
    return out


# The value as typed, and as WebDriver spells typed text too: a JSON list of its characters.
FORMS = (SECRET.encode(), ",".join(f'"{c}"' for c in SECRET).encode())


def leaks(*roots: Path) -> list[str]:
    found = []
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                found.extend(where for where, data in contents(path) if any(form in data for form in FORMS))
    return found


@pytest.mark.parametrize("source", ["--secret", "--secret-env", "--secrets-file"])
def test_a_failing_run_through_exec_web_and_appium_leaves_no_copy_of_a_secret(
        fake_shop_workspace: Callable[..., Path], appium_run_env: dict[str, str], tmp_path: Path,
        source: str) -> None:
    ws = fake_shop_workspace(tmp_path / "ws", {"a_exec.trail.yaml": HOST_TRAIL, "b_web.trail.yaml": WEB_TRAIL,
                                               "c_android.trail.yaml": ANDROID_TRAIL}, **SETTINGS)
    tmp = tmp_path / "tmp"
    options, env = secret_source(source, tmp_path)
    ps_lines: list[str] = []
    code, output = run(ws, tmp, appium_run_env, *options, env=env, ps_lines=ps_lines)
    if source == "--secret":  # a value on the command line is in ps by nature (and proves the watch sees it)
        assert ps_lines, "ps never showed the run's command line"
    else:
        assert ps_lines == [], ps_lines
    assert code == 1, output
    assert "Results: 0 passed, 3 failed, 0 skipped" in output, output

    # The failures are told, with the secret masked where it was.
    summary = json.loads(next((ws / "out" / "reports").glob("trailblaze_test_results_*.json")).read_text())
    reasons = {r["test_key"]: r["failure_reason"] for r in summary["results"]}
    assert "the password is ***" in reasons["leak/exec"], reasons
    assert "***" in reasons["leak/web"] and "***" in reasons["leak/android"], reasons
    assert "the password is ***" in output

    # The Appium server's log of the failed session is kept next to its other logs, redacted; it is the
    # log that held the typed text in plain words before.
    appium_logs = list((ws / "out").glob("*/appium.log"))
    assert len(appium_logs) == 1, appium_logs
    assert '{"text":"***","value":[***]}' in appium_logs[0].read_text()
    assert list((ws / "out").glob("*/trace.zip")), "the failed web trail keeps its Playwright trace"

    assert SECRET not in output
    assert leaks(ws, tmp) == []
    assert not list(tmp.rglob("trailblaze-appium-*")), "no Appium log in the temporary directory"


def test_a_clean_run_leaves_nothing_in_the_temporary_directory(
        fake_shop_workspace: Callable[..., Path], appium_run_env: dict[str, str], tmp_path: Path) -> None:
    passing = ANDROID_TRAIL.replace("nothing like {{password}} here", "Email")
    ws = fake_shop_workspace(tmp_path / "ws", {"android.trail.yaml": passing}, **SETTINGS)
    tmp = tmp_path / "tmp"
    code, output = run(ws, tmp, appium_run_env, "--secret", f"password={SECRET}")
    assert code == 0, output
    # Only the cross-process port claims stay: empty-but-for-a-pid lock files, one per port ever used,
    # kept on purpose (deleting a flock file races with a process that is about to lock it).
    left = [p for p in tmp.rglob("*") if p.is_file()]
    assert [p for p in left if not (p.parent.name == "trailblaze-appium" and p.suffix == ".lock")] == []
    # A passed trail's Appium log holds nothing worth keeping.
    assert not list((ws / "out").glob("*/appium.log"))
    assert leaks(ws, tmp) == []
