"""Trailmap-scoped naming (seed 003): advisory ``[TrailmapScopingCheck]`` findings for every tool source a
trailmap owns, deduplicated per ``<id>@<source>``; ``trailblaze check`` exits 0 with them and non-zero
with ``--strict``."""

from __future__ import annotations

import pytest
from trailblaze import Tool, ToolResult, hookimpl
from trailblaze.testing import run_cli
from trailblaze_yaml_tools.scoping import scoped_name_problem

BODY = "description: d\nparameters: []\ntools: [{wait: {timeToWaitInSeconds: 0}}]\n"


def tool_at(trailmap: str, name: str, file: str | None = None) -> dict[str, str]:
    return {f"trails/config/trailmaps/{trailmap}/tools/{file or name}.tool.yaml": f"id: {name}\n{BODY}"}


class Pay(Tool):
    """Pay (a class tool a plugin registers for trailmap 'shop')."""

    name = "pay"

    def execute(self, ctx) -> ToolResult:  # type: ignore[no-untyped-def, override]
        return ToolResult.ok()


class Refund(Pay):
    """Refund."""

    name = "shop_refund"


class ShopPlugin:
    @hookimpl
    def trailblaze_register_tools(self, registry) -> None:  # type: ignore[no-untyped-def]
        registry.add_tool(Pay, trailmap="shop")
        registry.add_tool(Refund, trailmap="shop")


LONG = "shop_" + "veryLongToolNameThatKeepsGoing" * 2  # 65 characters... trimmed below to stay on the wire
LONG = LONG[:62]

WORKSPACE = {
    "trails/config/trailmaps/shop/trailmap.yaml": """
        id: shop
        target:
          display_name: Shop
          tools: [shop_fine, checkoutNow]
          platforms:
            host: {tools: [Shop_Bad]}
        """,
    **tool_at("shop", "shop_fine"),
    **tool_at("shop", "shop_Buy"),
    **tool_at("shop", "buyThing"),
    **tool_at("shop", "gmail_click"),
    **tool_at("shop", LONG, file="long"),
    "trails/config/trailmaps/my_shop/trailmap.yaml": "id: my_shop\n",
    **tool_at("my_shop", "my_shop_x"),
    # the framework trailmap is exempt: flat names are fine there
    "trails/config/trailmaps/trailblaze/trailmap.yaml": "id: trailblaze\n",
    **tool_at("trailblaze", "pressBack"),
}


@pytest.mark.parametrize(("trailmap", "name", "problem"), [
    ("shop", "shop_buyThing", None),
    ("shop", "shop_android_buyThing_v2", None),
    ("shop", "buyThing", "should be named shop_<localName>"),
    ("shop", "gmail_click", "should be named shop_<localName> (it looks scoped to trailmap 'gmail')"),
    ("shop", "shop_BuyThing", "local name 'BuyThing' should be lowerCamelCase segments"),
    ("shop", "shop__buy", "local name '_buy' should be"),
])
def test_scoped_name_rule(trailmap: str, name: str, problem: str | None) -> None:
    found = scoped_name_problem(trailmap, name)
    assert (found is None) if problem is None else (found is not None and found.startswith(problem)), found


def test_advisories_cover_every_source_and_are_deduplicated(host, write, load) -> None:
    host.register(ShopPlugin(), "shop_plugin")
    ws = load(write(WORKSPACE))
    assert ws.errors == []
    findings = [f for f in ws.check().advisories if f.check == "TrailmapScopingCheck"]
    messages = sorted(f.message for f in findings)
    assert len(messages) == len(set(messages))
    text = "\n".join(messages)
    assert "trailmap id 'my_shop' should match ^[a-z][a-zA-Z0-9]*$" in text
    assert "'shop_Buy' local name 'Buy' should be lowerCamelCase" in text
    assert "'buyThing' should be named shop_<localName>" in text
    assert "'gmail_click' should be named shop_<localName> (it looks scoped to trailmap 'gmail')" in text
    assert f"'{LONG}' is 62 characters; keep tool names within 60 (the wire limit is 64)" in text
    # a plugin's class tools owned by 'shop': one advisory for that source, naming only the bad one
    plugin_findings = [m for m in messages if "'pay'" in m]
    assert plugin_findings == ["trailmap 'shop' (plugin 'shop_plugin'): 'pay' should be named shop_<localName>"]
    assert not any("shop_refund" in m or "shop_fine" in m for m in messages)
    # names listed in the manifest but defined nowhere are reported from the manifest, once
    manifest = [f for f in findings if str(f.location).endswith("trailmaps/shop/trailmap.yaml")]
    assert [f.message for f in manifest] == [
        "trailmap 'shop': 'checkoutNow' should be named shop_<localName>; 'Shop_Bad' should be named shop_<localName>"]
    # the framework trailmap is exempt, and my_shop's tools are not reported for the prefix
    assert "pressBack" not in text
    assert len(findings) == 7


def test_trailblaze_check_prints_each_advisory_once_and_strict_fails(host, write) -> None:
    host.register(ShopPlugin(), "shop_plugin")
    root = write(WORKSPACE)
    result = run_cli(["check", "--workspace", str(root)], host=host)
    lines = [line for line in result.output.splitlines() if "[TrailmapScopingCheck]" in line]
    assert len(lines) == 7 and len(set(lines)) == 7
    assert all("warning: [TrailmapScopingCheck]" in line for line in lines)
    # the only errors: the manifest's target lists two tools that nothing registers
    errors = [line for line in result.output.splitlines() if "error:" in line]
    assert len(errors) == 2 and all("[TargetTools]" in line for line in errors), result.output
    assert "lists tool 'checkoutNow', which no source registers" in errors[0]
    assert "lists tool 'Shop_Bad', which no source registers" in errors[1]
    assert result.exit_code == 3 and "2 error(s), " in result.output

    strict = run_cli(["check", "--strict", "--workspace", str(root)], host=host)
    assert strict.exit_code == 3
    strict_lines = [line for line in strict.output.splitlines() if "[TrailmapScopingCheck]" in line]
    assert len(strict_lines) == 7
    assert all("error: [TrailmapScopingCheck]" in line for line in strict_lines)


def test_a_clean_workspace_has_no_scoping_findings(host, write) -> None:
    root = write({"trails/config/trailmaps/shop/trailmap.yaml": "id: shop\ntarget: {display_name: S, tools: [shop_go]}\n",
                  **tool_at("shop", "shop_go")})
    result = run_cli(["check", "--strict", "--workspace", str(root)], host=host)
    assert result.exit_code == 0, result.output
    assert "TrailmapScopingCheck" not in result.output
