"""The agent may pass a ``{{secret}}`` token only in a parameter declared sensitive: anywhere else the call
is refused before it runs, and the model is told why and which tools take a secret."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trailblaze.testing import run_cli
from trailblaze.testing.llm import call, done

from .test_agent_runs import NL_TRAIL, SECRET, VERIFY, logs

SIGN_IN_WITH_A_LEAK = [
    call("app_tap", ref="e2"),
    call("app_tap", ref="{{password}}"),                         # a secret in a non-sensitive parameter
    call("app_type", label="Email", value="{{email}}"),
    call("app_type", label="Password", value="{{password}}"),   # app_type's value is sensitive
    call("app_tap", ref="Log in"),
    done("signed in"),
]


def test_a_secret_token_outside_a_sensitive_parameter_is_refused_and_explained(
        app_host: Any, workspace: Any, llm_server: Any, tb_llm_config: Any) -> None:
    server = llm_server([*SIGN_IN_WITH_A_LEAK, *VERIFY])
    root: Path = workspace(tb_llm_config(server), {"sign-in.trail.yaml": NL_TRAIL})
    result = run_cli(["run", "trails", "--output-dir", str(root / "logs"), "--memory", "email=ann@example.com",
                      "--secret", f"password={SECRET}", "--no-save-recording"], host=app_host, cwd=root)
    assert result.exit_code == 0, result.output

    # The refusal reached the model as the result of that call, naming the parameter and the tools to use.
    refusal = server.requests[2].tool_results()[-1]
    assert "refused, nothing was run: {{password}} is a secret" in refusal
    assert "'ref' of app_tap is not one" in refusal and "Tools that take a secret: app_type" in refusal
    # The refused call never ran: only the four other calls of the step reached the dispatcher.
    ran = [entry["toolName"] for entry in logs(root, "TrailblazeToolLog")]
    assert ran == ["app_tap", "app_type", "app_type", "app_tap", "app_assertVisible"]
    assert SECRET not in server.bodies_text()
