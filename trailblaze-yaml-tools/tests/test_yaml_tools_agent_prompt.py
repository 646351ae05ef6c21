"""A target as its trailmap declares it reaches the core as ``session.target_info``
(``trailblaze_target_info``): the agent's system prompt from ``system_prompt_file``, app ids, the web
base URL."""

from __future__ import annotations


def test_target_info_comes_from_the_trailmap(host, write, load) -> None:  # type: ignore[no-untyped-def]
    root = write({
        "trails/config/trailmaps/shop/trailmap.yaml": """\
            id: shop
            target:
              display_name: Shop
              system_prompt_file: prompt.md
              platforms:
                web: {base_url: "http://127.0.0.1:8000/shop/"}
                android: {app_ids: [com.example.shop, com.example.shop.debug]}
            """,
        "trails/config/trailmaps/shop/prompt.md": "The shop's test account is hiker@example.com.\n",
    })
    ws = load(root)
    session = ws.session()
    session.target = "shop"
    info = session.target_info
    assert info is not None and info.id == "shop" and info.display_name == "Shop"
    assert info.platform("web").base_url == "http://127.0.0.1:8000/shop/"
    assert info.platform("android").app_ids == ["com.example.shop", "com.example.shop.debug"]
    assert info.platform("ios").app_ids == []
    assert info.system_prompt == "The shop's test account is hiker@example.com."
    other = ws.session(session_id="other")
    other.target = "elsewhere"
    assert other.target_info is None
