"""Parameter schemas, JSON Schema generation, argument validation, registry rules and descriptors."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import Field

from trailblaze.errors import BadInputError, DuplicateToolError
from trailblaze.tools import ParameterDefinition, ParameterSchema, ParamType, Tool, ToolRegistry, ToolSource
from trailblaze.tools.base import ClassToolDefinition
from trailblaze.tools.descriptors import default_descriptor


class Selector(Tool):
    name = "unused"
    textRegex: str | None = None


class TapTool(Tool):
    """Tap an element."""

    name = "tapOnElementBySelector"
    surface_to_llm = False
    nodeSelector: dict = Field(..., json_schema_extra={"hidden_from_llm": True}, description="Where to tap.")
    longPress: bool = False
    mode: Literal["FAST", "SLOW"] = "FAST"
    count: int = Field(1, description="How many times.")


def schema() -> ParameterSchema:
    return ParameterSchema([
        ParameterDefinition(name="text", type=ParamType.STRING, description="What to type"),
        ParameterDefinition(name="times", type=ParamType.INTEGER, required=False, default=1, has_default=True),
        ParameterDefinition(name="ratio", type=ParamType.NUMBER, required=False),
        ParameterDefinition(name="submit", type=ParamType.BOOLEAN, required=False),
        ParameterDefinition(name="key", type=ParamType.ENUM, enum_values=("ENTER", "TAB"), required=False),
        ParameterDefinition(name="tags", type=ParamType.ARRAY, required=False,
                            items=ParameterDefinition(name="items", type=ParamType.STRING)),
        ParameterDefinition(name="box", type=ParamType.OBJECT, required=False, additional_properties=False,
                            properties=(ParameterDefinition(name="x", type=ParamType.INTEGER),)),
    ])


def test_json_schema_is_inline_and_cached() -> None:
    s = schema()
    js = s.json_schema()
    assert js is s.json_schema()
    assert js["required"] == ["text"]
    assert js["additionalProperties"] is False
    assert js["properties"]["key"] == {"type": "string", "enum": ["ENTER", "TAB"]}
    assert js["properties"]["tags"]["items"] == {"type": "string"}
    assert js["properties"]["box"]["properties"]["x"] == {"type": "integer"}
    assert "$ref" not in str(js)


def test_validation_coerces_only_losslessly() -> None:
    s = schema()
    out = s.validate({"text": 5, "times": "3", "ratio": "0.5", "submit": "true", "key": "enter"})
    assert out == {"text": "5", "times": 3, "ratio": 0.5, "submit": True, "key": "ENTER"}
    with pytest.raises(ValueError, match="argument 'times' must be a integer, got string 'three'"):
        s.validate({"text": "a", "times": "three"})
    with pytest.raises(ValueError, match="'times' must be a integer, got number 1.5"):
        s.validate({"text": "a", "times": 1.5})
    with pytest.raises(ValueError, match="'submit' must be a boolean"):
        s.validate({"text": "a", "submit": "yes"})


def test_validation_names_tool_and_key() -> None:
    s = schema()
    with pytest.raises(ValueError) as err:
        s.validate({"colour": 1}, owner="tool 'typeText'")
    assert "tool 'typeText': unknown argument 'colour'" in str(err.value)
    assert "tool 'typeText': missing required argument 'text'" in str(err.value)
    with pytest.raises(ValueError, match=r"unknown argument 'box.y'"):
        s.validate({"text": "a", "box": {"x": 1, "y": 2}})
    with pytest.raises(ValueError, match=r"'tags\[1\]' must be a string"):
        s.validate({"text": "a", "tags": ["a", ["b"]]})


def test_zero_parameter_tool_rejects_any_key_and_schemaless_accepts_all() -> None:
    with pytest.raises(ValueError, match="it takes no arguments"):
        ParameterSchema([]).validate({"x": 1})
    assert ParameterSchema.from_json_schema({"type": "object", "additionalProperties": True}).validate({"x": 1}) == {"x": 1}


def test_from_json_schema_rules() -> None:
    s = ParameterSchema.from_json_schema({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {}, "c": {"type": "string", "enum": ["x", "y"]}}, "required": ["a"]})
    a, b, c = s.parameters
    assert a.required and not b.required
    assert b.type is ParamType.STRING  # missing type defaults to string
    assert c.enum_values == ("x", "y")


def test_class_tool_definition_hides_selectors_from_llm() -> None:
    d = ClassToolDefinition.of(TapTool)
    desc = default_descriptor(d)
    assert "nodeSelector" in desc.input_schema["properties"]
    assert "nodeSelector" not in desc.llm_input_schema["properties"]
    assert desc.llm_input_schema["properties"]["mode"]["enum"] == ["FAST", "SLOW"]
    assert desc.openai()["function"]["name"] == "tapOnElementBySelector"
    assert desc.mcp()["inputSchema"] is desc.llm_input_schema
    assert desc.mcp()["_meta"]["trailblaze/surfaceToLlm"] is False
    assert desc.description == "Tap an element."


def test_class_tool_prepare_reports_pydantic_errors_in_our_words() -> None:
    d = ClassToolDefinition.of(TapTool)
    with pytest.raises(ValueError, match="tool 'tapOnElementBySelector': missing required argument 'nodeSelector'"):
        d.prepare({})
    with pytest.raises(ValueError, match="unknown argument 'bogus'"):
        d.prepare({"nodeSelector": {}, "bogus": 1})
    assert d.prepare({"nodeSelector": {}, "reason": "annotation only"}).longPress is False


def test_registry_duplicate_names_both_sources() -> None:
    reg = ToolRegistry()
    with reg.contributing(ToolSource(plugin="web", distribution="trailblaze-driver-web", version="0.1.0")):
        reg.add_tool(TapTool)
    with reg.contributing(ToolSource(file="trails/config/trailmaps/x/tools/tap.tool.yaml", line=1)):
        with pytest.raises(DuplicateToolError) as err:
            reg.add_tool(TapTool)
    msg = str(err.value)
    assert "plugin 'web' (trailblaze-driver-web 0.1.0)" in msg
    assert "file trails/config/trailmaps/x/tools/tap.tool.yaml:1" in msg


def test_registry_name_rules() -> None:
    reg = ToolRegistry()
    with pytest.raises(BadInputError, match="not a valid tool name"):
        reg.add_tool(TapTool, name="tap:element")
    with pytest.raises(BadInputError, match="not a valid tool name"):
        reg.add_tool(TapTool, name="x" * 65)
    reg.add_tool(TapTool, name="Tap_Element")
    assert any("naming convention" in w for w in reg.warnings)
    reg.add_tool(TapTool, name="web_tapElement")
    assert len(reg.warnings) == 1
