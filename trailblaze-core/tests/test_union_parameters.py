"""A class tool's union parameter (``dict[str, Any] | list[Any] | None``, ``int | str``) is advertised as
what it takes, pydantic's ``anyOf``, to every consumer (the listing, OpenAI, Anthropic, MCP clients), and
what it advertises runs: a plugin installed through a real entry point, the real CLI and MCP server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from trailblaze.llm.registry import describe_unions

UNIONS = '''
from __future__ import annotations

from typing import Any

from trailblaze import Tool, ToolContext, ToolRegistry, ToolResult, hookimpl


class PostBody(Tool):
    """Post a JSON body (an object or a list) and say what was posted."""

    name = "union_post"
    body: dict[str, Any] | list[Any] | None = None
    n: int | str = 1

    def execute(self, ctx: ToolContext) -> ToolResult:
        ctx.memory.remember("posted", f"{type(self.body).__name__}:{json.dumps(self.body)}:{self.n!r}")
        return ToolResult.ok(f"posted {type(self.body).__name__} {self.n!r}")


import json


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    registry.add_tool(PostBody)
'''

BODY = {"anyOf": [{"type": "object"}, {"type": "array", "items": {}}]}
N = {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 1}
ONLY = {"TRAILBLAZE_LOAD_PLUGINS": "unions"}


def test_tools_json_advertises_unions_as_any_of_in_every_shape(fake_site, trailblaze_cmd) -> None:
    fake_site("trailblaze-unions", "tb_unions", UNIONS, "unions")
    proc = trailblaze_cmd(["tools", "--json", "--driver", "host"], pythonpath=fake_site.path, env=ONLY)
    assert proc.returncode == 0, proc.stderr
    entry = next(t for t in json.loads(proc.stdout) if t["name"] == "union_post")
    for schema in (entry["inputSchema"], entry["openai"]["function"]["parameters"], entry["mcp"]["inputSchema"]):
        assert schema["properties"] == {"body": BODY, "n": N}
        assert "$ref" not in json.dumps(schema) and "required" not in schema


def test_a_trail_passing_a_dict_a_list_and_either_n_runs(fake_site, trailblaze_cmd, tmp_path: Path) -> None:
    fake_site("trailblaze-unions", "tb_unions", UNIONS, "unions")
    calls = ['{body: {sku: A1, qty: 2}}', '{body: [1, two], n: "3"}', '{body: [], n: 7}']
    (tmp_path / "t.trail.yaml").write_text(
        "config:\n  title: unions\ntrail:\n" + "".join(
            f"  - step: post {i}\n    recording:\n      host:\n        - union_post: {call}\n"
            for i, call in enumerate(calls)))
    proc = trailblaze_cmd(["run", "t.trail.yaml", "--driver", "host", "--no-report", "--output-dir", "out"],
                          pythonpath=fake_site.path, env=ONLY, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    events = "\n".join(p.read_text() for p in (tmp_path / "out").rglob("*.ndjson"))
    assert "posted dict 1" in events and "posted list '3'" in events and "posted list 7" in events


def test_a_string_for_a_dict_or_list_is_refused_naming_both_types() -> None:
    from trailblaze.tools.params import ParameterSchema

    schema = ParameterSchema.from_json_schema({"type": "object", "properties": {"body": BODY, "n": N}})
    assert schema.validate({"body": [1], "n": "5"}) == {"body": [1], "n": "5"}  # "5" fits string as it is
    assert schema.validate({"body": {"a": 1}, "n": 5.0}) == {"body": {"a": 1}, "n": 5}
    try:
        schema.validate({"body": "{}"})
    except ValueError as exc:
        assert str(exc) == "tool: argument 'body' must be an object or an array, got string '{}'"
    else:
        raise AssertionError("a string was accepted for an object or an array")


def test_the_describe_fallback_sends_no_any_of_and_names_the_types() -> None:
    schema = {"type": "object", "properties": {"body": {**BODY, "description": "The body."}, "n": N}}
    flat = describe_unions(schema)
    assert "anyOf" not in json.dumps(flat)
    assert flat["properties"]["body"] == {"description": "The body. (one of: object, array)"}
    assert flat["properties"]["n"] == {"default": 1, "description": "One of: integer, string."}
    assert schema["properties"]["n"] == N  # the cached descriptor is not touched


def test_an_mcp_client_lists_the_union_tool_with_any_of(fake_site, tmp_path: Path) -> None:
    fake_site("trailblaze-unions", "tb_unions", UNIONS, "unions")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(ONLY, PYTHONPATH=os.pathsep.join(filter(None, [str(fake_site.path), env.get("PYTHONPATH")])))
    params = StdioServerParameters(command=str(Path(sys.executable).parent / "trailblaze"),
                                   args=["mcp", "--output-dir", str(tmp_path / "logs")], cwd=str(tmp_path), env=env)
    seen: dict[str, Any] = {}

    async def main() -> None:
        with open(tmp_path / "server.stderr", "w") as err:
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=120) as session:
                    await session.initialize()
                    await session.call_tool("device", {"action": "CONNECT", "driver": "host"})
                    tools = {t.name: t for t in (await session.list_tools()).tools}
                    seen["schema"] = tools["union_post"].model_dump(by_alias=True)["inputSchema"]
                    result = await session.call_tool("union_post", {"body": {"sku": "A1"}, "n": "x"})
                    seen["result"] = [c.text for c in result.content if hasattr(c, "text")]

    anyio.run(main)
    assert seen["schema"]["properties"] == {"body": BODY, "n": N}, (tmp_path / "server.stderr").read_text()
    assert any("posted dict 'x'" in text for text in seen["result"]), seen["result"]
