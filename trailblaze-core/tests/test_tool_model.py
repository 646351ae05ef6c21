"""Parameter schemas, JSON Schema generation, argument validation, registry rules and descriptors."""

from __future__ import annotations

from typing import ClassVar, Literal

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


def test_a_tool_class_schema_is_derived_once_per_process_whichever_definition_or_registry_asks() -> None:
    import gc
    import weakref

    from trailblaze.tools.base import class_schema

    first, second = ClassToolDefinition.of(TapTool), ClassToolDefinition.of(TapTool, ToolSource(plugin="other"))
    registered = ToolRegistry().add_tool(TapTool)
    shared = first.parameters()
    assert shared is second.parameters() is registered.parameters() is class_schema(TapTool)
    assert shared.json_schema(for_llm=True) is second.parameters().json_schema(for_llm=True)
    assert [p.name for p in shared] == ["nodeSelector", "longPress", "mode", "count"]

    class Made(Tool):  # a class made at run time is not kept alive by the cache
        name = "made_at_run_time"
        value: int = 1

    assert [p.name for p in class_schema(Made)] == ["value"]
    gone = weakref.ref(Made)
    del Made
    gc.collect()
    assert gone() is None


def test_validation_coerces_only_losslessly() -> None:
    s = schema()
    out = s.validate({"text": 5, "times": "3", "ratio": "0.5", "submit": "true", "key": "enter"})
    assert out == {"text": "5", "times": 3, "ratio": 0.5, "submit": True, "key": "ENTER"}
    with pytest.raises(ValueError, match="argument 'times' must be an integer, got string 'three'"):
        s.validate({"text": "a", "times": "three"})
    with pytest.raises(ValueError, match="'times' must be an integer, got number 1.5"):
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


class RateTool(Tool):
    """Rate the page with ``stars`` (see :class:`~trailblaze.tools.Tool` and `the guide <https://x.test>`_).

    Use it **once**::

        rate(stars=5)
    """

    name = "rate"
    stars: int = Field(ge=1, le=5, description="How many stars, per :func:`score`.")
    comment: str = Field("", max_length=20, pattern=r"^[a-z ]*$")
    ratio: float = Field(0.5, gt=0, lt=1)
    tags: list[int] = Field(default=[], max_length=3)
    level: Literal[1, 2, 3] = 2


def test_field_limits_reach_the_openai_and_mcp_descriptors() -> None:
    d = default_descriptor(RateTool.definition())
    for schema in (d.openai()["function"]["parameters"], d.mcp()["inputSchema"]):
        props = schema["properties"]
        assert props["stars"] == {"type": "integer", "description": "How many stars, per score.",
                                  "minimum": 1, "maximum": 5}
        assert props["comment"] == {"type": "string", "default": "", "maxLength": 20, "pattern": "^[a-z ]*$"}
        assert props["ratio"] == {"type": "number", "default": 0.5, "exclusiveMinimum": 0, "exclusiveMaximum": 1}
        assert props["tags"] == {"type": "array", "items": {"type": "integer"}, "default": [], "maxItems": 3}
        assert props["level"] == {"type": "integer", "enum": [1, 2, 3], "default": 2}
        assert schema["required"] == ["stars"]


def test_docstring_markup_reaches_models_as_plain_text() -> None:
    assert RateTool.definition().description == (
        "Rate the page with stars (see Tool and the guide (https://x.test)).\n\nUse it once:\n\n    rate(stars=5)")


def test_limits_from_an_mcp_input_schema_are_described_and_enforced() -> None:
    schema = ParameterSchema.from_json_schema({"type": "object", "required": ["n"], "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 5},
        "code": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$"},
        "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1}}})
    props = schema.json_schema()["properties"]
    assert props["n"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert props["code"] == {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$"}
    assert props["ids"] == {"type": "array", "items": {"type": "string"}, "minItems": 1}
    assert schema.validate({"n": 5, "code": "AB", "ids": ["x"]}) == {"n": 5, "code": "AB", "ids": ["x"]}
    with pytest.raises(ValueError) as err:
        schema.validate({"n": 6, "code": "abcde", "ids": []}, owner="tool 't'")
    message = str(err.value)
    assert "tool 't': argument 'n' must be <= 5, got 6" in message
    assert "argument 'code' must be at most 4 character(s) long" in message
    assert "argument 'code' must match the pattern '^[A-Z]+$', got 'abcde'" in message
    assert "argument 'ids' must have at least 1 item(s), got 0" in message


def test_every_tool_kind_lists_the_known_arguments() -> None:
    with pytest.raises(ValueError, match=r"tool 'rate': unknown argument 'starz' \(known: comment, level, ratio, "
                                         r"stars, tags\)"):
        RateTool.definition().prepare({"stars": 1, "starz": 2})
    with pytest.raises(ValueError, match=r"tool 'typeText': unknown argument 'colour' \(known: box, key, ratio, "):
        schema().validate({"text": "a", "colour": 1}, owner="tool 'typeText'")


def test_tool_class_variables_stay_class_variables_once_their_annotations_are_dropped() -> None:
    # Tool drops its subclasses' ClassVar annotations once pydantic has recorded them (start-up speed):
    # they must still be class variables, never fields, in subclasses of subclasses too.
    class Base(Tool):
        kind_hint: "ClassVar[str]" = "base"  # noqa: UP037 - a string, as `from __future__` makes it
        count: int = 0

    class Leaf(Base):
        name = "leaf"
        kind_hint = "leaf"
        label: str = ""

    assert set(Leaf.model_fields) == {"count", "label"}
    assert {"name", "platforms", "toolsets", "kind_hint"} <= Leaf.__class_vars__
    assert "kind_hint" not in Base.__annotations__ and "count" in Base.__annotations__
    leaf = Leaf(count=2, label="x")
    assert (leaf.name, leaf.kind_hint, leaf.count) == ("leaf", "leaf", 2)
    with pytest.raises(AttributeError, match="ClassVar"):
        leaf.name = "other"
    with pytest.raises(ValueError, match="kind_hint"):
        ClassToolDefinition.of(Leaf).prepare({"kind_hint": "field?"})


def test_class_flags_take_any_collection_of_names_and_refuse_a_bare_string() -> None:
    class Anywhere(Tool):
        """Runs wherever its flags say."""

        name = "flags_anywhere"
        platforms = ["Web", "ANDROID"]
        drivers = ("playwright-native",)

    definition = Anywhere.definition()
    assert definition.platforms == frozenset({"web", "android"})
    assert definition.drivers == frozenset({"playwright-native"})
    assert definition.supports(driver="playwright-native", platform="web")
    assert not definition.supports(driver="host", platform="host")

    class Letters(Anywhere):
        """A string where a collection belongs."""

        name = "flags_letters"
        drivers = "host"

    with pytest.raises(TypeError, match=r"Letters.drivers must be a collection of names such as "
                                        r"\('playwright-native',\), got 'host'"):
        Letters.definition()


class Titled(Tool):
    """A tool whose parameters are called like JSON Schema keywords."""

    name = "titled"
    title: str | None = Field(None, description="A part of a page title.")
    properties: int = 0


def test_a_parameter_named_title_is_kept_in_the_schema() -> None:
    """Pydantic's own ``title`` annotations are dropped; a parameter called ``title`` is a parameter."""
    js = ClassToolDefinition.of(Titled).parameters().json_schema()
    assert set(js["properties"]) == {"title", "properties"}
    assert js["properties"]["title"] == {"type": "string", "description": "A part of a page title."}
