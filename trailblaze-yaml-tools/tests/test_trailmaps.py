"""Trailmaps (upstream §3.1–§3.3): packaged and workspace trailmaps, shadowing, manifests, dependencies,
exports, toolsets with driver/platform filters and ``always_enabled``, targets, and the effective tool set
that ``trailblaze tools --target T --driver D`` shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from trailblaze import Tool, ToolResult, hookimpl
from trailblaze.errors import BadInputError
from trailblaze.testing import run_cli
from trailblaze_yaml_tools.toolsets import effective_set

BODY = "description: d\nparameters: []\ntools: [{wait: {timeToWaitInSeconds: 0}}]\n"


def tool_at(trailmap: str, name: str, extra: str = "") -> dict[str, str]:
    return {f"trails/config/trailmaps/{trailmap}/tools/{name}.tool.yaml": f"id: {name}\n{extra}{BODY}"}


class ShipsTrailmaps:
    """A plugin that ships trailmaps as package data (here: a directory the test made)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @hookimpl
    def trailblaze_trailmap_dirs(self) -> list[Path]:
        return [self.root]


def test_packaged_trailmaps_load_with_their_plugin_and_workspace_shadows_wholesale(host, write, load, tmp_path) -> None:
    packaged = tmp_path / "site-packages" / "vendor_pkg" / "trailmaps"
    for rel, text in {**tool_at("vendor", "vendor_ping"), **tool_at("vendor", "vendor_pong"),
                      **tool_at("kit", "kit_go"), "trails/config/trailmaps/kit/trailmap.yaml": "id: kit\n"}.items():
        path = packaged / rel.removeprefix("trails/config/trailmaps/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    host.register(ShipsTrailmaps(packaged), "vendor_plugin")
    root = write(tool_at("kit", "kit_mine"))
    ws = load(root)
    names = set(ws.registry.names())
    assert {"vendor_ping", "vendor_pong", "kit_mine"} <= names
    assert "kit_go" not in names  # the workspace 'kit' replaced the packaged one wholesale
    ping = ws.registry.get("vendor_ping")
    assert ping.source.plugin == "vendor_plugin" and ping.trailmap == "vendor"
    assert ws.registry.get("kit_mine").source.plugin == "yaml_tools"
    assert ws.catalog.trailmaps["kit"].origin == "workspace"
    assert ws.catalog.trailmaps["trailblaze"].origin == "packaged"  # this plugin's framework trailmap


def test_two_plugins_shipping_one_trailmap_id_is_an_error_naming_both(host, write, load, tmp_path) -> None:
    first, second = tmp_path / "a" / "trailmaps", tmp_path / "b" / "trailmaps"
    for base in (first, second):
        (base / "dup" / "tools").mkdir(parents=True)
    host.register(ShipsTrailmaps(first), "plugin_a")
    host.register(ShipsTrailmaps(second), "plugin_b")
    ws = load(write({}))
    [error] = ws.errors
    assert "trailmap 'dup' is shipped twice: by plugin 'plugin_a'" in error and "by plugin 'plugin_b'" in error


def test_missing_and_cyclic_dependencies_skip_the_trailmap_with_a_message(write, load) -> None:
    root = write({
        "trails/config/trailmaps/app/trailmap.yaml": "id: app\ndependencies: [trailblaze, lib]\n",
        "trails/config/trailmaps/lib/trailmap.yaml": "id: lib\n",
        "trails/config/trailmaps/lost/trailmap.yaml": "id: lost\ndependencies: [nowhere]\n",
        "trails/config/trailmaps/uses/trailmap.yaml": "id: uses\ndependencies: [lost]\n",
        "trails/config/trailmaps/ping/trailmap.yaml": "id: ping\ndependencies: [pong]\n",
        "trails/config/trailmaps/pong/trailmap.yaml": "id: pong\ndependencies: [ping]\n",
        **tool_at("app", "app_go"), **tool_at("lost", "lost_go"), **tool_at("uses", "uses_go"),
        **tool_at("ping", "ping_go"),
    })
    ws = load(root)
    assert "app_go" in ws.registry
    assert not {"lost_go", "uses_go", "ping_go"} & set(ws.registry.names())
    skipped = {t.id: t.skipped for t in ws.catalog.trailmaps.values() if t.skipped}
    assert skipped == {
        "lost": "it depends on 'nowhere', which no trailmap provides",
        "uses": "its dependency 'lost' is skipped (it depends on 'nowhere', which no trailmap provides)",
        "ping": "dependency cycle ping -> pong -> ping",
        "pong": "dependency cycle ping -> pong -> ping",
    }
    advisories = [f.render() for f in ws.check().advisories if f.check == "TrailmapDependencies"]
    assert len(advisories) == 4
    assert any(re.search(r"lost/trailmap\.yaml: warning: \[TrailmapDependencies\] trailmap 'lost' is skipped: it "
                         r"depends on 'nowhere'", a) for a in advisories), advisories


@pytest.mark.parametrize(("manifest", "expected"), [
    ("id: shop\ntarget:\n  display_name: Shop\n  platforms:\n    web:\n      toolsets: [x]\n",
     r"trailmap\.yaml:6:7: 'toolsets': trailmap manifest: unknown key 'toolsets' \(known: app_ids, base_url, .*did "
     r"you mean 'tool_sets'"),
    ("id: shop\ntarget:\n  platforms: {}\n", r"trailmap\.yaml:2:1: 'target': trailmap manifest: 'display_name' is required"),
    ("id: store\n", r"trailmap\.yaml:1:1: 'id': id 'store' does not match the trailmap's directory name 'shop'"),
    ("id: shop\ntarget: {display_name: S}\nplatforms: {web: {}}\n", r":3:1: 'platforms': 'platforms' is for library"),
    ("id: shop\ntarget: {display_name: S, system_prompt_file: prompt.md}\n",
     r"'system_prompt_file': system_prompt_file 'prompt.md' does not exist"),
    ("id: shop\ntarget: {display_name: S, system_prompt: hi}\n", r"unknown key 'system_prompt'"),
    ("id: shop\ndependencies: lib\n", r"'dependencies': trailmap manifest: 'dependencies': Input should be a valid list"),
])
def test_bad_manifests_name_file_line_and_key_and_skip_the_trailmap(write, load, manifest: str, expected: str) -> None:
    ws = load(write({"trails/config/trailmaps/shop/trailmap.yaml": manifest, **tool_at("shop", "shop_go")}))
    [error] = ws.errors
    assert re.search(expected, error), error
    assert "shop_go" not in ws.registry


def test_removed_manifest_keys_are_warnings(write, load) -> None:
    ws = load(write({"trails/config/trailmaps/shop/trailmap.yaml": "id: shop\nroutes: []\nextend: base\n",
                     **tool_at("shop", "shop_go")}))
    assert ws.errors == [] and "shop_go" in ws.registry
    messages = sorted(f.render() for f in ws.check().advisories if f.check == "TrailmapManifest")
    assert len(messages) == 2
    assert re.search(r"trailmap\.yaml:2:1: warning: \[TrailmapManifest\] key 'routes' is removed", messages[0])


class ShopTools:
    @hookimpl
    def trailblaze_register_tools(self, registry) -> None:  # type: ignore[no-untyped-def]
        class Scan(Tool):
            """Scan a barcode (a class tool joining a toolset through its class attribute)."""

            name = "barcode_scan"
            toolsets = ("shopping",)

            def execute(self, ctx) -> ToolResult:  # type: ignore[no-untyped-def, override]
                return ToolResult.ok()

        registry.add_tool(Scan)


SHOP = {
    "trails/config/trailmaps/shop/trailmap.yaml": """
        id: shop
        dependencies: [lib]
        target:
          display_name: Shop
          platforms:
            host:
              tool_sets: [shopping]
              tools: [exec]
              excluded_tools: [shop_hidden]
            memory: {}
        """,
    "trails/config/trailmaps/shop/toolsets/shopping.yaml":
        "id: shopping\ndescription: Buying things.\ndrivers: [host]\ntools: [wait]\n",
    "trails/config/trailmaps/shop/toolsets/nested/always.yaml":
        "id: alwaysOn\nalways_enabled: true\nplatforms: [host]\ntools: [dumpMemory]\n",
    "trails/config/trailmaps/lib/trailmap.yaml": "id: lib\nexports: [lib_public]\n",
    "trails/config/trailmaps/open/trailmap.yaml": "id: open\n",
    **tool_at("shop", "shop_buy"), **tool_at("shop", "shop_hidden"), **tool_at("lib", "lib_public"),
    **tool_at("lib", "lib_private"), **tool_at("other", "other_thing"),
}


def listed(root: Path, host, *args: str) -> list[str]:  # type: ignore[no-untyped-def]
    result = run_cli(["tools", "--json", "--workspace", str(root), *args], host=host)
    assert result.exit_code == 0, result.output
    return sorted(entry["name"] for entry in json.loads(result.stdout))


def test_effective_tool_set_per_target_and_driver(host, write) -> None:
    host.register(ShopTools(), "shop_tools")
    root = write(SHOP)
    # host: the shopping toolset (file list + class member) ∪ always-enabled ∪ platform tools ∪ own tools ∪
    # exports of dependencies − excluded
    assert listed(root, host, "--target", "shop", "--driver", "host") == [
        "barcode_scan", "dumpMemory", "exec", "lib_public", "shop_buy", "wait"]
    # in-memory driver (platform 'memory'): no toolsets declared and no framework defaults for it; the
    # host-only always-enabled toolset does not apply, nothing is excluded
    assert listed(root, host, "--target", "shop", "--driver", "in-memory") == ["lib_public", "shop_buy", "shop_hidden"]
    # no driver: the union over the target's platforms
    assert listed(root, host, "--target", "shop") == [
        "barcode_scan", "dumpMemory", "exec", "lib_public", "shop_buy", "shop_hidden", "wait"]
    # no target: nothing is narrowed
    everything = listed(root, host, "--driver", "host")
    assert {"other_thing", "lib_private", "rememberValue", "shop_hidden"} <= set(everything)


def test_toolset_file_membership_is_shown_by_tools(host, write) -> None:
    root = write(SHOP)
    result = run_cli(["tools", "--json", "--all", "--workspace", str(root)], host=host)
    entries = {e["name"]: e for e in json.loads(result.stdout)}
    assert entries["wait"]["toolsets"] == ["core_interaction"]  # class attribute; the YAML list is for ours only
    assert entries["shop_buy"]["trailmap"] == "shop"
    assert entries["shop_buy"]["kind"] == "yaml"


MEMORY_TOOLSET = ["assertEquals", "assertMath", "assertNotEquals", "assertWithAi", "dumpMemory", "rememberNumber",
                  "rememberText", "rememberValue", "rememberWithAi"]


def test_framework_defaults_apply_when_a_platform_declares_no_toolsets(host, write) -> None:
    root = write({"trails/config/trailmaps/tiny/trailmap.yaml":
                  "id: tiny\ntarget:\n  display_name: Tiny\n  platforms:\n    host: {}\n",
                  **tool_at("tiny", "tiny_go")})
    # host defaults of the framework trailmap: core_interaction (wait) and memory (upstream's memory toolset
    # and rememberValue)
    assert listed(root, host, "--target", "tiny", "--driver", "host", "--all") == [
        *MEMORY_TOOLSET, "tiny_go", "wait"]


def test_dependency_defaults_win_over_the_framework(host, write) -> None:
    root = write({
        "trails/config/trailmaps/base/trailmap.yaml": "id: base\ndefaults:\n  host: {tool_sets: [memory]}\n",
        "trails/config/trailmaps/app/trailmap.yaml":
            "id: app\ndependencies: [base]\ntarget:\n  display_name: App\n  platforms: {host: {}}\n",
    })
    assert listed(root, host, "--target", "app", "--driver", "host") == MEMORY_TOOLSET


def test_unknown_undeclared_and_disabled_targets(host, write, load) -> None:
    root = write({**SHOP, "trails/config/trailblaze.yaml": "targets: [shop]\n",
                  "trails/config/targets/legacy.yaml": "id: legacy\ndisplay_name: Legacy\nplatforms: {host: {}}\n"})
    result = run_cli(["tools", "--workspace", str(root), "--target", "nope"], host=host)
    assert result.exit_code == 3
    assert "unknown target 'nope' (known targets: legacy, shop)" in result.stderr
    result = run_cli(["tools", "--workspace", str(root), "--target", "legacy"], host=host)
    assert result.exit_code == 3 and "target 'legacy' is not enabled" in result.stderr
    ws = load(root)
    with pytest.raises(BadInputError, match=r"target 'shop' does not declare platform 'web' \(it declares host, "
                                            r"memory; add 'web: \{\}'"):
        effective_set(ws.catalog, "shop", platform="web", driver="playwright-native", tools=ws.registry)


def test_default_target_and_workspace_sections(host, write, load) -> None:
    root = write({
        **SHOP,
        "trails/config/trailblaze.yaml": """
            defaults: {target: shop}
            targets: [shop, flat]
            toolsets:
              - id: extras
                always_enabled: true
                drivers: [HOST]
                tools: [rememberValue]
              - ref: toolsets/more.yaml
            """,
        "trails/config/toolsets/more.yaml": "id: more\ntools: [exec]\n",
        "trails/config/targets/flat.yaml": "id: flat\ndisplay_name: Flat\nplatforms:\n  host: {tool_sets: [more]}\n",
    })
    # defaults.target applies without --target; the workspace toolset 'extras' is always on for HOST
    assert listed(root, host, "--driver", "host") == ["dumpMemory", "exec", "lib_public", "rememberValue", "shop_buy",
                                                      "wait"]
    assert listed(root, host, "--driver", "host", "--target", "flat") == ["dumpMemory", "exec", "rememberValue"]
    ws = load(root)
    assert ws.errors == []
    assert ws.catalog.enabled_targets == ["shop", "flat"]


def test_bad_workspace_sections_and_toolsets(write, load) -> None:
    root = write({
        "trails/config/trailblaze.yaml": """
            targets: [ghost]
            toolsets:
              - id: a
                tools: [wait]
                colour: red
              - ref: missing.yaml
            """,
        "trails/config/trailmaps/x/toolsets/a.yaml": "id: a\ntools: []\n",
        "trails/config/trailmaps/x/toolsets/b.yaml": "id: b\ntools: wait\n",
    })
    ws = load(root)
    joined = "\n".join(ws.errors)
    assert re.search(r"b\.yaml:2:1: 'tools': toolset: 'tools': Input should be a valid list", joined), joined
    assert re.search(r"trailblaze\.yaml:5:5: 'colour': toolset: unknown key 'colour'", joined), joined
    assert re.search(r"trailblaze\.yaml:6:5: 'ref': ref 'missing.yaml' does not exist", joined), joined
    assert re.search(r"trailblaze\.yaml:1:11: 'targets': target 'ghost' is not defined", joined), joined


def test_exports_and_unknown_toolsets_are_advisories(write, load) -> None:
    ws = load(write({
        "trails/config/trailmaps/lib/trailmap.yaml": "id: lib\nexports: [lib_public, lib_typo]\n",
        "trails/config/trailmaps/app/trailmap.yaml":
            "id: app\ntarget:\n  display_name: App\n  platforms: {host: {tool_sets: [nothingHere]}}\n",
        **tool_at("lib", "lib_public"),
    }))
    rendered = {f.check: f.message for f in ws.check().advisories}
    assert rendered["TrailmapExports"] == "trailmap 'lib' exports 'lib_typo', which it does not define"
    assert rendered["Toolsets"] == "target 'app' uses toolset 'nothingHere', which no toolset file or tool defines"


def test_a_run_whose_target_is_not_a_trailmap_offers_every_tool(host, write, load) -> None:
    """Upstream trails may name an app id or URL as ``config.target``; only known targets narrow."""
    from trailblaze.session import session_tools

    ws = load(write(SHOP))
    session = ws.session()
    session.target = "com.example.app"
    assert "other_thing" in [t.name for t in session_tools(session)]
    session.target = "shop"
    session.device = session.device.model_copy(update={"platform": "host", "driver": "host"})
    assert sorted(t.name for t in session_tools(session, for_llm=False)) == [
        "dumpMemory", "exec", "lib_public", "shop_buy", "wait"]
