"""A target's ``system_prompt_file`` reaches the LLM agent through ``trailblaze_agent_prompts``."""

from __future__ import annotations


def test_target_system_prompt_file_is_offered_to_the_agent(host, write, load) -> None:
    root = write({
        "trails/config/trailmaps/shop/trailmap.yaml": """\
            id: shop
            target: {display_name: Shop, system_prompt_file: prompt.md}
            """,
        "trails/config/trailmaps/shop/prompt.md": "The shop's test account is hiker@example.com.\n",
    })
    ws = load(root)
    session = ws.session()
    session.target = "shop"
    assert host.agent_prompts(session) == ["The shop's test account is hiker@example.com."]
    other = ws.session(session_id="other")
    other.target = "elsewhere"
    assert host.agent_prompts(other) == []
