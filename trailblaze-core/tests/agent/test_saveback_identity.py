"""Save-back by identity, end to end: the trail file is edited by hand while ``trailblaze run`` is solving
it with the agent (the edit happens when the scripted model receives its first request), and each
recording must still land in the step it was made for — or nowhere, with an explanation.

Also: a trail reached through a symlink is recorded into the real file and the link stays a link.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trailblaze.testing import run_cli
from trailblaze.testing.llm import RecordedRequest, Reply, call, done
from trailblaze.trail.parser import load_trail

TRAIL = """\
config:
  devices: {memory: SCREENS}
trail:
  - step: Sign in as ann with the saved email and password
  - verify: The greeting for ann is shown
"""
SIGN_IN_STEP = "  - step: Sign in as ann with the saved email and password\n"
SIGN_IN = [
    call("app_tap", ref="Sign in"),
    call("app_type", label="Email", value="{{email}}"),
    call("app_type", label="Password", value="{{password}}"),
    call("app_tap", ref="Log in"),
    done("signed in"),
]
VERIFY = [call("app_assertVisible", text="Hello, ann")]


def editing_script(trail_file: Path, edit: Callable[[str], str]) -> Callable[[RecordedRequest], Reply]:
    """The scripted model; before answering its first request it edits the trail file, as a person would."""
    replies = [*SIGN_IN, *VERIFY]

    def answer(request: RecordedRequest) -> Reply:
        if len(replies) == len(SIGN_IN) + len(VERIFY):
            trail_file.write_text(edit(trail_file.read_text()))
        return replies.pop(0)

    return answer


def run(root: Path, host: Any, target: str = "trails") -> Any:
    """``--no-heal-check``: what is tested is where each recording lands; a file edited while the run went
    does not replay as the run did, so the proof would keep every recording out of it (test_heal_check.py)."""
    return run_cli(["run", target, "--output-dir", str(root / "logs"), "--memory", "email=ann@example.com",
                    "--secret", "password=pw", "--no-heal-check"], host=host, cwd=root)


def recorded(path: Path) -> dict[str, list[str]]:
    """step text → names of the tools recorded for the memory device."""
    trail = load_trail(path)
    return {f"{s.kind}: {s.text}": [c.name for c in (s.recordings or {}).get("memory", [])] for s in trail.steps}


def test_a_step_inserted_above_during_the_run_gets_no_recording(app_host, workspace, llm_server,  # type: ignore[no-untyped-def]
                                                                 tb_llm_config) -> None:
    holder: dict[str, Path] = {}
    server = llm_server(lambda request: script(request))
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": TRAIL})
    trail_file = holder["file"] = root / "trails" / "sign-in.trail.yaml"
    script = editing_script(trail_file, lambda text: text.replace(
        SIGN_IN_STEP, "  - step: Open the app and dismiss the welcome banner\n" + SIGN_IN_STEP))

    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    assert recorded(trail_file) == {
        "step: Open the app and dismiss the welcome banner": [],
        "step: Sign in as ann with the saved email and password": ["app_tap", "app_type", "app_type", "app_tap"],
        "verify: The greeting for ann is shown": ["app_assertVisible"],
    }
    assert "could not save" not in result.output


def test_a_step_changed_during_the_run_is_refused_with_a_reason(app_host, workspace, llm_server,  # type: ignore[no-untyped-def]
                                                                tb_llm_config) -> None:
    server = llm_server(lambda request: script(request))
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": TRAIL})
    trail_file = root / "trails" / "sign-in.trail.yaml"
    script = editing_script(trail_file, lambda text: text.replace("as ann with", "as bob with"))

    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    assert recorded(trail_file) == {
        "step: Sign in as bob with the saved email and password": [],
        "verify: The greeting for ann is shown": ["app_assertVisible"],
    }
    assert "could not save recordings" in result.output
    assert ("step 1 (step: 'Sign in as ann with the saved email and password', read at "
            "trails/sign-in.trail.yaml:4:5) was changed or removed while the run was going; its memory recording was not saved"
            ) in result.output


def test_a_duplicate_inserted_above_makes_the_step_ambiguous(app_host, workspace, llm_server,  # type: ignore[no-untyped-def]
                                                             tb_llm_config) -> None:
    server = llm_server(lambda request: script(request))
    root = workspace(tb_llm_config(server), {"sign-in.trail.yaml": TRAIL})
    trail_file = root / "trails" / "sign-in.trail.yaml"
    script = editing_script(trail_file, lambda text: text.replace(SIGN_IN_STEP, SIGN_IN_STEP + SIGN_IN_STEP))

    result = run(root, app_host)
    assert result.exit_code == 0, result.output
    steps = load_trail(trail_file).steps
    assert [bool(s.recordings) for s in steps] == [False, False, True]
    assert "now occurs 2 times instead of 1" in result.output


def test_a_symlinked_trail_records_into_the_real_file_and_keeps_the_link(app_host, workspace, llm_server,  # type: ignore[no-untyped-def]
                                                                         tb_llm_config) -> None:
    server = llm_server([*SIGN_IN, *VERIFY])
    root = workspace(tb_llm_config(server))
    real = root / "shared" / "sign-in.trail.yaml"
    real.parent.mkdir()
    real.write_text(TRAIL)
    link = root / "trails" / "sign-in.trail.yaml"
    link.symlink_to(os.path.relpath(real, link.parent))

    result = run(root, app_host, "trails/sign-in.trail.yaml")
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert recorded(real)["verify: The greeting for ann is shown"] == ["app_assertVisible"]
    assert len(recorded(real)["step: Sign in as ann with the saved email and password"]) == 4
    assert not list(real.parent.glob(".*")) and not list(link.parent.glob(".*lock"))
