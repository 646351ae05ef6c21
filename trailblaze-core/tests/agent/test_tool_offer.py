"""The agent's tool offer is made per step, its descriptors once per session (``agent/tool_offer.py``)."""

from __future__ import annotations

from pathlib import Path

from trailblaze.agent.loop import offered_tools
from trailblaze.agent.tool_offer import DESCRIPTORS_KEY, SMALL_OFFER, ToolOffer
from trailblaze.testing import make_session, new_host
from trailblaze.tools.base import Tool


def _extra_tools(count: int) -> list[type[Tool]]:
    """Plain tools, so the session offers more than a small offer and lists some by name only."""
    return [type(f"Extra{i}", (Tool,), {"__doc__": f"Extra tool {i}. Does nothing.", "name": f"extra_{i}",
                                        "__annotations__": {"level": "int"}, "level": 1,
                                        "execute": lambda self, ctx: None})
            for i in range(count)]


def test_each_tool_is_described_once_per_session_and_the_system_text_once_per_offer(tmp_path: Path) -> None:
    session = make_session(new_host(), root=tmp_path, start=False)
    session.registry.add_tools(_extra_tools(SMALL_OFFER))
    tools = offered_tools(session, verify=False)
    first = ToolOffer(session, tools, "openai", trail=None)
    made = dict(session.resources[DESCRIPTORS_KEY])
    second = ToolOffer(session, tools, "openai", trail=None)  # the next step's offer
    assert second.specs == first.specs and session.resources[DESCRIPTORS_KEY] == made
    assert {name for name, _ in made} == {t.name for t in tools if t.name not in first.deferred}
    assert all(made[(t.name, "openai")][0] is t for t in tools if t.name not in first.deferred)
    ToolOffer(session, tools, "anthropic", trail=None)  # another provider type is described for itself
    assert {provider for _, provider in session.resources[DESCRIPTORS_KEY]} == {"openai", "anthropic"}

    # The tools listed by name are in the system text, made once, and again when a fetch takes one off.
    assert first.deferred and "extra_0" in first.deferred
    text = first.system_text()
    assert text is not None and first.system_text() is text and "- extra_0: Extra tool 0" in text
    answer, is_error = first.fetch({"name": "extra_0"})
    assert not is_error and '"level"' in answer and first.specs[-1]["name"] == "extra_0"
    assert "- extra_0:" not in (first.system_text() or "") and "- extra_1:" in (first.system_text() or "")
