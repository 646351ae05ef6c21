"""The quick output-schema check (``output_check``) in front of the SDK's ``jsonschema`` pass: it answers as
``jsonschema`` does for the keywords it covers, declines every other schema, and a real server's results
that do not fit their schema still fail the call with the SDK's own message."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from jsonschema.validators import validator_for
from trailblaze.tools.base import ToolCall
from trailblaze_mcp_subprocess.output_check import compile_check

VALUES: list[Any] = [None, True, False, 0, 1, -3, 1.0, 2.5, float("inf"), "", "x", [], [1, "a"], ["a", "b"],
                     [[]],
                     {}, {"result": "ok"}, {"result": 5}, {"result": None}, {"n": 1, "m": "x"}, {"n": 1.0},
                     {"n": True}, {"extra": []}, {"a": {"b": "c"}}, {"a": {"b": 1}}, {"a": {}}]

COVERED: list[Any] = [
    True, False, {},
    {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
    {"type": "array"}, {"type": "object"}, {"type": ["string", "null"]}, {"type": ["integer", "boolean"]},
    {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"],
     "title": "echoOutput"},
    {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False},
    {"type": "object", "properties": {"n": {"type": "number"}}, "additionalProperties": {"type": "string"}},
    {"properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}}},
    {"required": ["n", "m"]}, {"type": "array", "items": {"type": "string"}}, {"items": {"type": "array"}},
    {"items": False}, {"additionalProperties": False}, {"properties": {"n": False}},
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "description": "d"},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"},
]

DECLINED: list[Any] = [
    {"$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}}, {"enum": ["a"]}, {"const": 1},
    {"anyOf": [{"type": "string"}]}, {"type": "string", "pattern": "^a"}, {"type": "integer", "minimum": 0},
    {"type": "string", "format": "date"}, {"prefixItems": [{"type": "string"}]},
    {"items": [{"type": "string"}]},
    {"patternProperties": {"^a": {"type": "string"}}}, {"properties": {"n": {"minimum": 1}}},
    {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}, {"$schema": "urn:unknown"},
    # malformed: jsonschema refuses the schema itself, so the SDK's check must run and say so
    {"type": "strnig"}, {"type": []}, {"type": ["string", "string"]}, {"required": "n"},
    {"required": ["n", "n"]},
    {"properties": []}, {"properties": {"n": "string"}}, {"title": 5}, {"additionalProperties": "no"},
    "string", None, 1,
]


@pytest.mark.parametrize("schema", COVERED, ids=lambda s: repr(s)[:60])
def test_a_covered_schema_answers_as_jsonschema_does(schema: Any) -> None:
    check = compile_check(schema)
    assert check is not None
    validator_for(schema).check_schema(schema)
    reference = validator_for(schema)(schema)
    for value in VALUES:
        assert check(value) is reference.is_valid(value), (schema, value)


def test_nested_combinations_answer_as_jsonschema_does() -> None:
    leaves: list[Any] = [{"type": "string"}, {"type": "integer"}, {"type": ["object", "null"]}, True, False]
    seen = 0
    outer_types: list[Any] = ["object", ["object", "array"], None]
    for inner, outer_type, closed in itertools.product(leaves, outer_types, [True, False]):
        schema: dict[str, Any] = {"properties": {"a": {"properties": {"b": inner}, "required": ["b"]}},
                                  "additionalProperties": not closed, "items": inner}
        if outer_type is not None:
            schema["type"] = outer_type
        check = compile_check(schema)
        assert check is not None
        reference = validator_for(schema)(schema)
        for value in VALUES:
            assert check(value) is reference.is_valid(value), (schema, value)
            seen += 1
    assert seen == len(leaves) * 3 * 2 * len(VALUES)


@pytest.mark.parametrize("schema", DECLINED, ids=lambda s: repr(s)[:60])
def test_anything_else_is_left_to_the_sdk(schema: Any) -> None:
    assert compile_check(schema) is None


SHAPES = """
mcpServers:
  - script: {servers}/raw_shapes.py
"""


def call(session: Any, tool_name: str, /, **args: Any) -> Any:
    return session.dispatcher.call(ToolCall(tool_name, args), session.context())


def test_results_that_do_not_fit_their_output_schema_still_fail_the_call(workspace: Any,
                                                                         sessions: Any) -> None:
    session = sessions.start(workspace(SHAPES))
    checks = session.resources["mcp_subprocess"].servers["raw_shapes"].conn._session.output_checks
    assert checks["shape_simple"] is not None and checks["shape_ranged"] is None
    ok = call(session, "shape_simple", content={"result": "fine"})
    assert ok.success and ok.data == {"result": "fine"}
    wrong = call(session, "shape_simple", content={"result": 5})
    assert not wrong.success and wrong.message.startswith("MCP server 'raw_shapes' (")
    assert ("answered tools/call 'shape_simple' with a result that does not fit the tool's outputSchema: "
            "Invalid structured content returned by tool shape_simple: 5 is not of type 'string'"
            ) in wrong.message
    assert session.options.tracebacks == []  # the server's answer, not a crash of ours
    missing = call(session, "shape_simple")
    assert not missing.success and "did not return structured content" in missing.message
    assert call(session, "shape_ranged", content={"n": 3}).success
    below = call(session, "shape_ranged", content={"n": -1})
    assert not below.success and "-1 is less than the minimum of 0" in below.message
