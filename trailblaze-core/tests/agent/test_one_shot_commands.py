"""``trailblaze step`` and ``trailblaze verify``: one instruction on a fresh device, optionally saved."""

from __future__ import annotations

from trailblaze.testing import run_cli
from trailblaze.testing.llm import call, done, give_up


def test_step_then_verify_build_a_trail(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([call("app_tap", ref="e2"), call("app_type", label="Email", value="{{email}}"), done(),
                         call("app_assertVisible", text="Email")])
    root = workspace(tb_llm_config(server))
    target = root / "trails" / "new.trail.yaml"
    step = run_cli(["step", "Open sign-in and enter the email", "--driver", "screens", "--memory", "email=a@b.c",
                    "--save", str(target), "--output-dir", str(root / "logs")], host=app_host, cwd=root)
    assert step.exit_code == 0, step.output
    assert "Saved as step 1 of" in step.output
    # Each command starts a fresh device: this one starts on the sign-in screen (a driver option).
    verify = run_cli(["verify", "The email field is shown", "--driver", "screens", "-o", "start=login", "--save", str(target),
                      "--output-dir", str(root / "logs")], host=app_host, cwd=root)
    assert verify.exit_code == 0, verify.output
    # a verify step offers verification tools only (the app's, and the memory toolset's assertions)
    assert server.requests[-1].tool_names == ["app_assertVisible", "assertEquals", "assertMath", "assertNotEquals",
                                              "assertWaypoint", "assertWithAi", "objectiveStatus"]
    assert target.read_text() == (
        "trail:\n"
        "  - step: Open sign-in and enter the email\n"
        "    recording:\n      memory:\n        - app_tap:\n            ref: Sign in\n"
        "        - app_type:\n            label: Email\n            value: '{{email}}'\n"
        "  - verify: The email field is shown\n"
        "    recording:\n      memory:\n        - app_assertVisible:\n            text: Email\n")
    # The saved trail replays without the model.
    again = run_cli(["run", str(target), "--driver", "screens", "--memory", "email=a@b.c", "--output-dir",
                     str(root / "logs")], host=app_host, cwd=root)
    assert again.exit_code == 0, again.output
    assert len(server.requests) == 4


def test_failed_verify_exits_1_and_saves_nothing(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([call("app_assertVisible", text="Hello, ann")])
    root = workspace(tb_llm_config(server))
    target = root / "trails" / "x.trail.yaml"
    result = run_cli(["verify", "ann is signed in", "--driver", "screens", "--save", str(target)], host=app_host,
                     cwd=root)
    assert result.exit_code == 1, result.output
    assert "'Hello, ann' is not visible" in result.output and not target.exists()


def test_step_that_gives_up_exits_1(app_host, workspace, llm_server, tb_llm_config) -> None:
    server = llm_server([give_up("there is no cart on this screen")])
    root = workspace(tb_llm_config(server))
    result = run_cli(["step", "Empty the cart", "--driver", "screens"], host=app_host, cwd=root)
    assert result.exit_code == 1 and "the agent gave up: there is no cart on this screen" in result.output


def test_step_without_a_model_exits_3(app_host, workspace) -> None:
    root = workspace("")
    result = run_cli(["step", "Do something", "--driver", "screens"], host=app_host, cwd=root)
    assert result.exit_code == 3 and "needs an LLM to run" in result.output


def test_commands_are_listed(app_host) -> None:
    out = run_cli(["--help"], host=app_host)
    assert "step" in out.output and "verify" in out.output
    helptext = run_cli(["step", "--help"], host=app_host).output
    assert "--save" in helptext and "--llm" in helptext
