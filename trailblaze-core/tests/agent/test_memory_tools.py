"""Upstream's memory toolset (issue 25 item 5): same names, parameters and messages, the AI parts asked of
the session's model (a real ``openai`` client against a scripted server on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from trailblaze.builtin.memory_tools import evaluate, parse_number
from trailblaze.config import load_workspace
from trailblaze.plugins import PluginHost
from trailblaze.session import Session, SessionOutcome
from trailblaze.testing import MemoryDriver, MemoryDriverConfig, make_session, new_host
from trailblaze.testing.llm import call
from trailblaze.tools.base import ToolCall, ToolResult

SCREEN = ["Basket", "Subtotal 1,234.50", "Items 3", "Check out"]


@pytest.fixture
def session(workspace: Callable[..., Path], llm_server: Callable[..., Any], tb_llm_config: Callable[..., str],
            request: pytest.FixtureRequest) -> Iterator[tuple[Session, Any]]:
    server = llm_server(request.param)
    root = workspace(tb_llm_config(server))
    host: PluginHost = new_host()
    made = make_session(host, root=root, driver=MemoryDriver(MemoryDriverConfig(elements=SCREEN)),
                        workspace=load_workspace(root, host))
    yield made, server
    from trailblaze.runner.lifecycle import SessionLifecycle

    SessionLifecycle(made).finish(SessionOutcome.SUCCEEDED)


def run(session: Session, name: str, **args: Any) -> ToolResult:
    return session.dispatcher.call(ToolCall(name, args), session.context(step_index=0))


SCRIPT = [
    call("elementValue", found=True, value="Subtotal 1,234.50", reason="the subtotal line"),
    call("elementValue", found=True, value="Items 3", reason="the item count"),
    call("stringEvaluation", result="Basket", reason="the heading"),
    call("elementValue", found=True, value="Items 3", reason="the item count"),
    call("booleanAssertion", result=True, reason="3 items are listed"),
    call("booleanAssertion", result=False, reason="nothing says shipped"),
    call("elementValue", found=True, value="Subtotal 9.99", reason="made up"),
]


@pytest.mark.parametrize("session", [SCRIPT], indirect=True)
def test_the_memory_toolset_remembers_compares_and_asks(session: tuple[Session, Any]) -> None:
    s, server = session
    assert run(s, "rememberText", prompt="the subtotal", variable="subtotal").success
    assert run(s, "rememberNumber", prompt="the item count", variable="count").success
    assert run(s, "rememberWithAi", prompt="What is the page title?", variable="title").success
    assert s.memory.snapshot() == {"subtotal": "Subtotal 1,234.50", "count": "3", "title": "Basket"}
    assert run(s, "assertEquals", actual="{{title}}", expected="Basket").success
    failed = run(s, "assertEquals", actual="{{count}}", expected="4")
    assert failed.message == "Assertion failed: Expected '4', but got '3'"
    assert run(s, "assertNotEquals", actual="${count}", expected="4").success
    assert run(s, "assertNotEquals", actual="{{count}}", expected="3").message == \
        "Assertion failed: Expected '3' to NOT equal '3'"
    assert run(s, "assertMath", expression="[[the item count]] * 2 + {{count}}", expected="9").success
    assert run(s, "assertWithAi", prompt="the basket holds {{count}} items").success
    shipped = run(s, "assertWithAi", prompt="the order has shipped")
    assert shipped.message == "AI assertion failed: the order has shipped (nothing says shipped)"
    # the model's answer must be text the screen shows (upstream reads it back from the hierarchy)
    invented = run(s, "rememberText", prompt="the subtotal", variable="other")
    assert invented.message == "Failed to find element for prompt: the subtotal"
    # each AI question offered exactly one answer tool, and the screen and the interpolated prompt
    assert [r.tool_names for r in server.requests] == [
        ["elementValue"], ["elementValue"], ["stringEvaluation"], ["elementValue"], ["booleanAssertion"],
        ["booleanAssertion"], ["elementValue"]]
    assert "the basket holds 3 items" in str(server.requests[4].body)
    assert "Subtotal 1,234.50" in str(server.requests[0].body)


def test_assert_math_reads_like_exp4j_and_nothing_else() -> None:
    assert evaluate("2^3 + 10 % 4 - -1") == 11.0
    assert evaluate("sqrt(16) + abs(-2)") == 6.0
    for bad in ("__import__('os')", "x + 1", "1 if 1 else 2", "(1).real"):
        with pytest.raises(ValueError):
            evaluate(bad)


def test_numbers_are_read_with_upstreams_pattern() -> None:
    assert parse_number("Subtotal 1,234.50") == "1234.50"
    assert parse_number("12 items") == "12"
    assert parse_number("-7") == "-7"
    assert parse_number("none here") is None


def test_a_memory_tool_that_asks_the_model_without_one_is_bad_input(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from trailblaze.errors import BadInputError

    monkeypatch.setenv("TRAILBLAZE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TRAILBLAZE_DEFAULT_MODEL", raising=False)
    host = new_host()
    s = make_session(host, root=tmp_path, driver=MemoryDriver(MemoryDriverConfig(elements=SCREEN)))
    with pytest.raises(BadInputError, match="asks the model about the screen and no model is configured"):
        run(s, "rememberText", prompt="the subtotal", variable="x")
    assert run(s, "assertMath", expression="1 + 1", expected="2").success
