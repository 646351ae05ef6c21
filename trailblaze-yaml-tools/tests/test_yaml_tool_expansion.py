"""YAML tool expansion (seed 000 test list; upstream ``YamlDefinedTrailblazeToolTest`` rules, §10), through the
real dispatcher: typed whole-value tokens, embedded tokens, omitted optional parameters, defaults, explicit
null, required parameters, pass-through memory tokens, load-time token errors, re-decoding, nesting,
cycles and validation of every expanded call."""

from __future__ import annotations

import re

import pytest
from trailblaze.checks import CheckReport
from pydantic import ConfigDict, Field
from trailblaze import Tool, ToolResult, hookimpl
from trailblaze.errors import ToolArgumentError, ToolExpansionError, UnknownToolError
from trailblaze.tools.base import OtherTool, ToolCall


class Probe(Tool):
    """Record the arguments it was called with (a real tool: it runs through the dispatcher)."""

    name = "probe"
    model_config = ConfigDict(extra="allow")

    def execute(self, ctx) -> ToolResult:  # type: ignore[no-untyped-def, override]
        ctx.session.resources.setdefault("probe", []).append(dict(self.model_extra or {}))
        return ToolResult.ok()


class Typed(Tool):
    """A tool with a typed schema, to show expanded calls are validated."""

    name = "typedProbe"
    count: int = Field(..., description="How many.")
    label: str = Field("x", description="A label.")

    def execute(self, ctx) -> ToolResult:  # type: ignore[no-untyped-def, override]
        ctx.session.resources.setdefault("typed", []).append((self.count, self.label))
        return ToolResult.ok()


class ProbePlugin:
    @hookimpl
    def trailblaze_register_tools(self, registry) -> None:  # type: ignore[no-untyped-def]
        registry.add_tool(Probe)
        registry.add_tool(Typed)


@pytest.fixture
def probe_host(host):  # type: ignore[no-untyped-def]
    host.register(ProbePlugin(), "probe")
    return host


ERASE = """
id: eraseText
description: |
  Erases characters from the currently focused text field.
parameters:
  - name: charactersToErase
    type: integer
    required: false
    description: Number of characters to erase from the end (omit to erase all)
tools:
  - probe:
      commands:
        - eraseText:
            charactersToErase: "{{params.charactersToErase}}"
"""

TAP = """
id: tapOnElementWithText
description: Tap on an element containing the provided text.
parameters:
  - {name: text, type: string, required: true, description: "Required text"}
  - {name: index, type: integer, required: false, default: 0, description: "0-based index"}
  - {name: enabled, type: boolean, required: false}
  - {name: code, type: string, required: false, default: 00123}
  - {name: note, type: string, required: false, default: null}
tools:
  - probe:
      tapOn:
        text: "{{text}}"
        index: "{{index}}"
        enabled: "{{params.enabled}}"
        code: "{{params.code}}"
        note: "{{params.note}}"
        label: "#{{params.index}} of {{text}} ({{params.enabled}})"
        list: ["{{params.enabled}}", fixed, "{{params.index}}"]
        memory: "{{memory.user}} and ${user} and {{user}}"
"""


def run(ws, name: str, args: dict, memory: dict | None = None) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    session = ws.session(memory=memory or {"user": "ann"})
    result = session.dispatcher.call(ToolCall(name, args), session.context())
    assert result.success, result.message
    return session.resources["probe"]


def test_descriptor_round_trip_description_and_parameters(write, load, tool) -> None:
    ws = load(write({"trails/config/trailmaps/trailblaze/tools/tapOnElementWithText.tool.yaml": TAP}))
    descriptor = ws.codec.describe(ws.registry.get("tapOnElementWithText"))
    fn = descriptor.openai()["function"]
    assert fn["name"] == "tapOnElementWithText"
    assert fn["description"] == "Tap on an element containing the provided text."
    assert fn["parameters"] == {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "Required text"},
            "index": {"type": "integer", "description": "0-based index", "default": 0},
            "enabled": {"type": "boolean"},
            "code": {"type": "string", "default": "00123"},
            "note": {"type": "string"},
        },
        "required": ["text"],
        "additionalProperties": False,
    }
    assert descriptor.mcp()["inputSchema"] == fn["parameters"]
    assert descriptor.mcp()["_meta"]["trailblaze/isRecordable"] is True


def test_yaml_descriptor_matches_the_equivalent_class_tool(write, load) -> None:
    """Seed 000: the YAML descriptor builder and the class path must stay aligned."""

    class EraseText(Tool):
        """Erases characters from the currently focused text field."""

        name = "eraseText"
        charactersToErase: int | None = Field(None, description="Number of characters to erase from the end (omit to "
                                                                "erase all)")

    from trailblaze.tools.base import ClassToolDefinition

    ws = load(write({"trails/config/trailmaps/trailblaze/tools/eraseText.tool.yaml": ERASE}))
    yaml_d = ws.codec.describe(ws.registry.get("eraseText"))
    class_d = ws.codec.describe(ClassToolDefinition.of(EraseText))
    assert yaml_d.openai() == class_d.openai()
    assert yaml_d.anthropic() == class_d.anthropic()


def test_flags_reach_the_descriptor_and_the_llm_filter(write, load, tool) -> None:
    root = write(tool("demo_check", """
        id: demo_check
        description: Check something.
        parameters: []
        surface_to_llm: false
        is_recordable: false
        requires_host: true
        is_verification: true
        tools: [{wait: {timeToWaitInSeconds: 0}}]
        """))
    ws = load(root)
    definition = ws.registry.get("demo_check")
    meta = ws.codec.describe(definition).mcp()["_meta"]
    assert meta == {"trailblaze/surfaceToLlm": False, "trailblaze/isRecordable": False,
                    "trailblaze/requiresHost": True, "trailblaze/isVerification": True}
    from trailblaze.session import session_tools

    session = ws.session()
    assert "demo_check" not in [t.name for t in session_tools(session, for_llm=True)]
    assert "demo_check" in [t.name for t in session_tools(session, verification_only=True)]


def test_typed_whole_value_and_embedded_tokens(probe_host, write, load) -> None:
    ws = load(write({"trails/config/trailmaps/trailblaze/tools/tapOnElementWithText.tool.yaml": TAP}))
    [args] = run(ws, "tapOnElementWithText", {"text": "Save", "index": "2", "enabled": True}, {"user": "ann"})
    tap = args["tapOn"]
    assert tap["text"] == "Save"
    assert tap["index"] == 2 and isinstance(tap["index"], int)  # "2" validated to int, substituted typed
    assert tap["enabled"] is True
    assert tap["code"] == "00123"  # a string default keeps its leading zeros
    assert tap["note"] is None  # an explicit `default: null` substitutes null
    assert tap["label"] == "#2 of Save (true)"
    assert tap["list"] == [True, "fixed", 2]
    # non-parameter tokens went through untouched and memory resolved them at dispatch
    assert tap["memory"] == "ann and ann and ann"


def test_omitted_optional_without_default_drops_the_key_and_list_item(probe_host, write, load) -> None:
    ws = load(write({"trails/config/trailmaps/trailblaze/tools/tapOnElementWithText.tool.yaml": TAP,
                     "trails/config/trailmaps/trailblaze/tools/eraseText.tool.yaml": ERASE}))
    [args] = run(ws, "tapOnElementWithText", {"text": "Save"})
    tap = args["tapOn"]
    assert "enabled" not in tap
    assert tap["index"] == 0  # declared default
    assert tap["list"] == ["fixed", 0]  # the omitted item is dropped, not null
    assert tap["label"] == "#0 of Save ()"  # embedded: renders as ""
    [erase] = run(ws, "eraseText", {})
    assert erase == {"commands": [{"eraseText": {}}]}  # erase all: the key is gone


def test_explicit_null_counts_as_omitted(probe_host, write, load) -> None:
    ws = load(write({"trails/config/trailmaps/trailblaze/tools/tapOnElementWithText.tool.yaml": TAP,
                     "trails/config/trailmaps/trailblaze/tools/eraseText.tool.yaml": ERASE}))
    [erase] = run(ws, "eraseText", {"charactersToErase": None})
    assert erase == {"commands": [{"eraseText": {}}]}
    [args] = run(ws, "tapOnElementWithText", {"text": "Go", "index": None})
    assert args["tapOn"]["index"] == 0
    [erase5] = run(ws, "eraseText", {"charactersToErase": 5})
    assert erase5 == {"commands": [{"eraseText": {"charactersToErase": 5}}]}


def test_required_parameter_missing_or_null_names_tool_and_parameter(probe_host, write, load) -> None:
    ws = load(write({"trails/config/trailmaps/trailblaze/tools/tapOnElementWithText.tool.yaml": TAP}))
    session = ws.session()
    for args in ({}, {"text": None}):
        with pytest.raises(ToolArgumentError, match=r"tool 'tapOnElementWithText': missing required argument 'text'"):
            session.dispatcher.call(ToolCall("tapOnElementWithText", args), session.context())
    with pytest.raises(ToolArgumentError, match=r"unknown argument 'colour'"):
        session.dispatcher.call(ToolCall("tapOnElementWithText", {"text": "a", "colour": 1}), session.context())
    with pytest.raises(ToolArgumentError, match=r"argument 'index' must be an integer, got string 'two'"):
        session.dispatcher.call(ToolCall("tapOnElementWithText", {"text": "a", "index": "two"}), session.context())


@pytest.mark.parametrize(("value", "message"), [
    ("{{params.missing}}", r"token '\{\{params.missing\}\}' names parameter 'missing', which is not declared \(declared: text\)"),
    ("{{params.text.length}}", r"token '\{\{params.text.length\}\}' is dotted"),
    ("{{text.length}}", r"token '\{\{text.length\}\}' is dotted: parameter 'text' is substituted whole"),
    ("{{params.1st}}", r"malformed token '\{\{params.1st\}\}'"),
    ("{{params.my-text}}", r"malformed token '\{\{params.my-text\}\}'"),
    ("{{params}}", r"malformed token '\{\{params\}\}'"),
    ("{{}}", r"empty token"),
    ("{{ a + b }}", r"malformed token '\{\{ a \+ b \}\}'.*expressions are not evaluated"),
    ("x {{params.text", r"malformed token in 'x \{\{params.text': a '\{\{params.' without its closing"),
    ("${params.nope}", r"token '\$\{params.nope\}' names parameter 'nope', which is not declared"),
])
def test_bad_tokens_are_load_time_errors_with_location(write, load, tool, value: str, message: str) -> None:
    body = f"""
        id: demo_bad
        description: d
        parameters:
          - {{name: text, type: string}}
        tools:
          - wait:
              reason: '{value}'
        """
    ws = load(write(tool("demo_bad", body)))
    assert "demo_bad" not in ws.registry
    [error] = ws.errors
    assert re.search(r"demo_bad\.tool\.yaml:7:7: 'reason': " + message, error), error


def test_token_in_a_map_key_is_an_error(write, load, tool) -> None:
    ws = load(write(tool("demo_bad", """
        id: demo_bad
        description: d
        parameters: [{name: k, type: string}]
        tools:
          - probe: {"{{params.k}}": 1}
        """)))
    assert re.search(r"demo_bad\.tool\.yaml:5:13: '\{\{params.k\}\}': map key .* contains a token", ws.errors[0])


def test_pass_through_tokens_are_not_errors(probe_host, write, load, tool) -> None:
    """``${…}`` is also JavaScript: anything that is not a parameter stays for memory (or the page)."""
    ws = load(write(tool("demo_js", """
        id: demo_js
        description: d
        parameters: [{name: sel, type: string}]
        tools:
          - probe:
              script: "(() => `${document.title} ${a + b}`)()"
              target: "{{params.sel}}"
              device: "{{device.platform}}"
              arg: "{{args.user.name}}"
        """)))
    assert ws.errors == []
    from trailblaze.memory import UnknownTokenWarning

    with pytest.warns(UnknownTokenWarning) as warned:
        [args] = run(ws, "demo_js", {"sel": "#x"})
    assert {str(w.message).split(" left")[0] for w in warned} == {
        "unknown token ${document.title}", "unknown token ${a + b}", "unknown token {{device.platform}}",
        "unknown token {{args.user.name}}"}
    assert args["script"] == "(() => `${document.title} ${a + b}`)()"
    assert args["target"] == "#x"
    assert args["device"] == "{{device.platform}}"  # unknown tokens stay literal at dispatch too


def test_expansion_is_re_decoded_and_may_call_other_yaml_tools(probe_host, write, load, tool) -> None:
    root = write({
        **tool("demo_inner", """
            id: demo_inner
            description: inner
            parameters: [{name: n, type: integer}]
            tools:
              - typedProbe: {count: "{{params.n}}", label: inner}
            """),
        **tool("demo_outer", """
            id: demo_outer
            description: outer
            parameters: [{name: n, type: integer, required: false, default: 3}]
            tools:
              - demo_inner: {n: "{{params.n}}"}
              - typedProbe: {count: 1}
            """),
    })
    ws = load(root)
    definition = ws.registry.get("demo_outer")
    calls = definition.calls(definition.prepare({}), ws.codec)
    assert calls == [ToolCall("demo_inner", {"n": 3}), ToolCall("typedProbe", {"count": 1})]
    assert not isinstance(calls[0], OtherTool)
    session = ws.session()
    assert session.dispatcher.call(ToolCall("demo_outer", {}), session.context()).success
    assert session.resources["typed"] == [(3, "inner"), (1, "x")]
    assert [(e.authored.name, e.depth) for e in session.executed] == [
        ("typedProbe", 2), ("demo_inner", 1), ("typedProbe", 1), ("demo_outer", 0)]


def test_every_expanded_call_is_validated_against_its_schema(probe_host, write, load, tool) -> None:
    ws = load(write(tool("demo_typed", """
        id: demo_typed
        description: d
        parameters: [{name: label, type: string}]
        tools:
          - typedProbe: {count: "{{params.label}}"}
        """)))
    session = ws.session()
    with pytest.raises(ToolArgumentError, match=r"in expansion of 'demo_typed': tool 'typedProbe': argument 'count'"):
        session.dispatcher.call(ToolCall("demo_typed", {"label": "many"}), session.context())
    assert session.dispatcher.call(ToolCall("demo_typed", {"label": "7"}), session.context()).success


def test_unknown_tool_in_a_body_fails_at_dispatch_and_is_an_advisory_at_check(write, load, tool) -> None:
    ws = load(write(tool("demo_ghost", """
        id: demo_ghost
        description: d
        parameters: []
        tools:
          - ghostTool: {}
        """)))
    advisories = [f for f in ws.check().advisories if f.check == "YamlToolBody"]
    assert [a.message for a in advisories] == [
        "tool 'demo_ghost' calls unknown tool 'ghostTool'; run `trailblaze tools` to list the tools of this "
        "workspace and driver (not decided: MCP tool servers were not started, so the tools they serve are not "
        "known yet)"]
    assert re.search(r"demo_ghost\.tool\.yaml:5:5$", str(advisories[0].location))
    # `trailblaze check` started every tool server: the registry is complete, the name is a mistake
    complete = CheckReport(tools_complete=True)
    ws.host.check_tools(ws.registry, complete, ws.config)
    [error] = [f for f in complete.errors if f.check == "YamlToolBody"]
    assert error.message.startswith("tool 'demo_ghost' calls unknown tool 'ghostTool'; ")
    session = ws.session()
    with pytest.raises(UnknownToolError, match=r"in expansion of 'demo_ghost': unknown tool 'ghostTool'"):
        session.dispatcher.call(ToolCall("demo_ghost", {}), session.context())


def test_constant_body_calls_are_checked_against_schemas_early(probe_host, write, load, tool) -> None:
    ws = load(write({**tool("demo_static", """
        id: demo_static
        description: d
        parameters: []
        tools:
          - typedProbe: {count: lots}
        """), **tool("demo_outer", "id: demo_outer\ndescription: o\nparameters: []\ntools: [{demo_static: {}}]\n")}))
    # strict: an error now, naming the file and line
    [error] = ws.check(strict=True).errors
    assert error.check == "YamlToolBody"
    assert "tool 'demo_static' calls 'typedProbe' with arguments it rejects" in error.message
    assert re.search(r"demo_static\.tool\.yaml:5:5$", str(error.location))
    # otherwise (upstream decodes leniently): a warning, and an error of the trails reaching the tool
    report = ws.check()
    assert not report.errors
    [warning] = [f for f in report.advisories if f.check == "YamlToolBody"]
    assert warning.message.endswith("(an error of the trails that call it)")
    assert report.errors_for({"demo_outer"}) == report.errors_for({"demo_static"}) != []
    assert report.errors_for({"typedProbe", "demo_other"}) == []


def test_cycles_fail_naming_the_chain(write, load, tool) -> None:
    root = write({
        **tool("demo_a", "id: demo_a\ndescription: a\nparameters: []\ntools: [{demo_b: {}}]\n"),
        **tool("demo_b", "id: demo_b\ndescription: b\nparameters: []\ntools: [{demo_a: {}}]\n"),
    })
    ws = load(root)
    session = ws.session()
    with pytest.raises(ToolExpansionError, match=r"tool expansion cycle: demo_a -> demo_b -> demo_a"):
        session.dispatcher.call(ToolCall("demo_a", {}), session.context())


def test_depth_cap(write, load, tool) -> None:
    files: dict[str, str] = {}
    for i in range(20):
        files.update(tool(f"demo_d{i}", f"id: demo_d{i}\ndescription: d\nparameters: []\ntools: [{{demo_d{i + 1}: {{}}}}]\n"))
    files.update(tool("demo_d20", "id: demo_d20\ndescription: d\nparameters: []\ntools: [{wait: {timeToWaitInSeconds: 0}}]\n"))
    ws = load(write(files))
    session = ws.session()
    with pytest.raises(ToolExpansionError, match=r"tool expansion too deep \(>16\): demo_d0 -> demo_d1 -> .* -> demo_d16"):
        session.dispatcher.call(ToolCall("demo_d0", {}), session.context())


def test_expansions_do_not_share_state(write, load, tool) -> None:
    ws = load(write(tool("demo_share", """
        id: demo_share
        description: d
        parameters: [{name: v, type: string}]
        tools:
          - probe: {fixed: {list: [1, 2]}, v: "{{params.v}}"}
        """)))
    definition = ws.registry.get("demo_share")
    first = definition.expand(definition.prepare({"v": "a"}))
    first[0]["probe"]["fixed"]["list"].append(3)
    second = definition.expand(definition.prepare({"v": "b"}))
    assert second == [{"probe": {"fixed": {"list": [1, 2]}, "v": "b"}}]


def test_read_only_and_core_flags_reach_the_planner_the_agent_and_mcp_clients(write, load, tool) -> None:
    """``is_read_only``/``is_core`` as a class tool has them: ``trailblaze plan`` offers a read-only YAML tool,
    the agent gets a core one in full, an MCP client sees MCP's ``readOnlyHint``."""
    root = write(tool("demo_look", """
        id: demo_look
        description: Look at the cart.
        parameters: []
        is_read_only: true
        is_core: true
        tools: [{demo_check: {}}]
        """))
    write(tool("demo_check", """
        id: demo_check
        description: Check the cart.
        parameters: []
        is_verification: true
        tools: [{wait: {timeToWaitInSeconds: 0}}]
        """), root=root)
    ws = load(root)
    look = ws.registry.get("demo_look")
    assert look.is_read_only and look.is_core
    assert ws.codec.describe(look).mcp()["annotations"] == {"readOnlyHint": True}
    assert "annotations" not in ws.codec.describe(ws.registry.get("demo_check")).mcp()
    from trailblaze.agent.planner import planner_tools

    offered = [t.name for t in planner_tools(ws.session(), allow_actions=False)]
    assert "demo_look" in offered and "demo_check" in offered and "wait" not in offered
    assert not [f for f in ws.check().errors if f.check == "YamlToolBody"]  # it calls a verification only


def test_a_read_only_tool_calling_an_action_is_an_error_naming_the_call(write, load, tool) -> None:
    ws = load(write(tool("demo_sneaky", """
        id: demo_sneaky
        description: Looks, but waits too.
        parameters: []
        is_read_only: true
        tools:
          - wait: {timeToWaitInSeconds: 0}
        """)))
    [error] = [f for f in ws.check().errors if f.check == "YamlToolBody"]
    assert error.message == ("tool 'demo_sneaky' says is_read_only but calls 'wait', which may change the app "
                             "(its source does not mark it read-only)")
    assert re.search(r"demo_sneaky\.tool\.yaml:6:5$", str(error.location))
