"""Typed TypeScript tools (``ts_tools.py``): upstream's discovery rules, schemas derived from the ``Args``
type by the real TypeScript compiler and ts-json-schema-generator (node), and their cache.

The TypeScript packages come from the bootstrap's node tools (``NODE_PATH`` from ``.tools/env.sh``).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from trailblaze.errors import BadInputError
from trailblaze_yaml_tools import ts_tools

TOOL = """
import {{ trailblaze }} from "@trailblaze/scripting";

export interface {name}Args {{
  /** What to open. */
  target: string;
  /** How often; once when left out. */
  times?: number;
  mode?: "fast" | "slow";
}}

/**
 * Open something, {name}.
 */
export const {name} = trailblaze.tool<{name}Args>(
  {{ supportedPlatforms: ["web", "Android"], requiresHost: true, supportedDrivers: ["playwright-native"],
     trailhead: {{ to: "home" }} }},
  async (args, ctx) => `done ${{args.target}}`,
);
"""


@pytest.fixture(autouse=True)
def typescript_packages() -> None:
    if ts_tools.package_versions() is None:
        pytest.fail("typescript and ts-json-schema-generator are not on NODE_PATH: run "
                    "scripts/bootstrap.sh and source .tools/env.sh")


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_discovery_follows_upstreams_rules(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    write(tools, {
        "a_open.ts": TOOL.format(name="a_open"),
        "nested/b_open.ts": TOOL.format(name="b_open"),
        "a_open.test.ts": TOOL.format(name="a_openTest"),
        "types.d.ts": "export const x = trailblaze.tool<X>(h);\n",
        "shared.ts": "export const HOME = '/';\n",
        "_example.ts": "// export const ex = trailblaze.tool<Args>(spec, handler);\nexport {};\n",
        "two.ts": TOOL.format(name="c_one") + TOOL.format(name="c_two").replace("import {", "import type {"),
        "covered.ts": TOOL.format(name="d_covered"),
    })
    covered = {(tools / "covered.ts").resolve()}
    found = [p.relative_to(tools).as_posix() for p in ts_tools.discover(tools, covered)]
    assert found == ["a_open.ts", "nested/b_open.ts"]


def test_schema_comes_from_the_args_type_and_spec_from_the_literal(tmp_path: Path) -> None:
    write(tmp_path, {"a_open.ts": TOOL.format(name="a_open")})
    tools, errors = ts_tools.extract([tmp_path / "a_open.ts"], cache=None)
    assert errors == []
    [tool] = tools
    assert (tool.name, tool.line, tool.description) == ("a_open", 15, "Open something, a_open.")
    assert tool.input_schema == {
        "type": "object",
        "properties": {"target": {"type": "string", "description": "What to open."},
                       "times": {"type": "number", "description": "How often; once when left out."},
                       "mode": {"type": "string", "enum": ["fast", "slow"]}},
        "required": ["target"], "additionalProperties": False}
    decl = ts_tools.declaration(tool)
    assert decl.platforms == frozenset({"web", "android"})
    assert decl.drivers == frozenset({"playwright-native"})
    assert decl.requires_host is True and decl.meta["trailblaze/trailhead"] == {"to": "home"}
    assert decl.parameters is not None and decl.parameters.get("target") is not None


def test_a_type_the_generator_cannot_read_is_an_error_naming_the_tool(tmp_path: Path) -> None:
    write(tmp_path, {"bad.ts": "export const bad = trailblaze.tool<{ a: string }>(async () => 'x');\n"})
    tools, errors = ts_tools.extract([tmp_path / "bad.ts"], cache=None)
    assert tools == []
    [error] = errors
    assert error.line == 1 and "tool 'bad'" in error.message and "named interface" in error.message


def test_the_cache_answers_without_node_until_the_file_changes(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"a_open.ts": TOOL.format(name="a_open")})
    cache = tmp_path / "cache" / "ts-tools.json"
    first, _ = ts_tools.extract([tmp_path / "a_open.ts"], cache=cache)
    assert cache.is_file()
    monkeypatch.setenv("PATH", "")  # no node: only the cache can answer
    again, _ = ts_tools.extract([tmp_path / "a_open.ts"], cache=cache)
    assert again == first
    (tmp_path / "a_open.ts").write_text(TOOL.format(name="a_open").replace("What to open.", "Changed."))
    with pytest.raises(BadInputError, match="no 'node' is on PATH"):
        ts_tools.extract([tmp_path / "a_open.ts"], cache=cache)


def test_missing_typescript_packages_say_what_to_install(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"a_open.ts": TOOL.format(name="a_open")})
    monkeypatch.setenv("NODE_PATH", os.fspath(tmp_path / "nothing"))
    # The extractor run from outside the checkout: inside it, node would find the packages through the
    # node_modules link the bootstrap puts at the repository root.
    extractor = tmp_path / "outside" / ts_tools.EXTRACTOR.name
    extractor.parent.mkdir()
    extractor.write_bytes(ts_tools.EXTRACTOR.read_bytes())
    monkeypatch.setattr(ts_tools, "EXTRACTOR", extractor)
    with pytest.raises(BadInputError, match="cannot load 'typescript'.*bootstrap"):
        ts_tools.extract([tmp_path / "a_open.ts"], cache=None)


# -- upstream's extract-tool-defs.mjs details (issue 37 item 6) ----------------------------------------
def extract_one(tmp_path: Path, name: str, text: str) -> tuple[list[ts_tools.TypedTool], list[ts_tools.TypedToolError]]:
    write(tmp_path, {f"{name}.ts": text})
    return ts_tools.extract([tmp_path / f"{name}.ts"], cache=None)


def test_tsdoc_tags_stay_in_the_description(tmp_path: Path) -> None:
    # extract-tool-defs.mjs `cleanJsDocText` strips only the comment envelope.
    [tool], _ = extract_one(tmp_path, "t_doc", """
        /**
         * Open the page.
         *
         * @example t_doc({})
         * @deprecated use t_open
         */
        export const t_doc = trailblaze.tool(async () => "x");
        """)
    assert tool.description == "Open the page.\n\n@example t_doc({})\n@deprecated use t_open"


def test_recursive_args_are_emitted_with_definitions_and_refs(tmp_path: Path) -> None:
    [tool], errors = extract_one(tmp_path, "t_tree", """
        export interface TreeNode {
          /** Label. */
          label: string;
          children?: TreeNode[];
        }
        export interface TreeArgs {
          root: TreeNode;
        }
        export const t_tree = trailblaze.tool<TreeArgs>(async () => "x");
        """)
    assert errors == []
    schema = tool.input_schema
    assert schema["properties"]["root"]["properties"]["children"] == {
        "type": "array", "items": {"$ref": "#/definitions/TreeNode"}}
    node = schema["definitions"]["TreeNode"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/definitions/TreeNode"}
    assert node["required"] == ["label"]


def test_a_function_typed_field_fails_the_tool(tmp_path: Path) -> None:
    # extract-tool-defs.mjs `functions: "fail"`: a callback has no JSON Schema shape.
    tools, [error] = extract_one(tmp_path, "t_fn", """
        export interface FnArgs {
          name: string;
          onDone: (x: string) => void;
        }
        export const t_fn = trailblaze.tool<FnArgs>(async () => "x");
        """)
    assert tools == [] and "tool 't_fn'" in error.message and "FnArgs" in error.message


def test_as_const_platforms_are_not_read_so_the_tool_is_not_gated(tmp_path: Path) -> None:
    # extract-tool-defs.mjs `literalValueOf` reads no `as` expression: the field is skipped.
    [tool], _ = extract_one(tmp_path, "t_const", """
        export const t_const = trailblaze.tool(
          { supportedPlatforms: ["web"] as const, requiresHost: true },
          async () => "x",
        );
        """)
    assert tool.spec == {"requiresHost": True}
    assert ts_tools.declaration(tool).platforms is None


def test_a_spec_passed_by_reference_fails_the_tool_naming_the_fix(tmp_path: Path) -> None:
    # AnalyzerScriptedToolEnrichment.kt fails a descriptor-less tool whose spec was dropped.
    tools, [error] = extract_one(tmp_path, "t_ref", """
        const SPEC = { supportedPlatforms: ["web"] };
        export const t_ref = trailblaze.tool(SPEC, async () => "x");
        """)
    assert tools == [] and error.line == 3
    assert "tool 't_ref'" in error.message and "not an inline object literal" in error.message


def test_a_namespace_import_of_the_sdk_is_recognised(tmp_path: Path) -> None:
    text = textwrap.dedent("""
        import * as sdk from "@trailblaze/scripting";

        export interface NsArgs {
          /** Who. */
          who: string;
        }

        /** Greet. */
        export const t_ns = sdk.trailblaze.tool<NsArgs>({ supportedPlatforms: ["web"] }, async (a) => a.who);
        """)
    write(tmp_path / "tools", {"t_ns.ts": text})
    assert [p.name for p in ts_tools.discover(tmp_path / "tools", set())] == ["t_ns.ts"]
    [tool], errors = ts_tools.extract([tmp_path / "tools" / "t_ns.ts"], cache=None)
    assert errors == [] and tool.name == "t_ns" and tool.description == "Greet."
    assert tool.input_schema["required"] == ["who"] and tool.spec == {"supportedPlatforms": ["web"]}
