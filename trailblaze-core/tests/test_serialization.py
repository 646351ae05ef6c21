"""Tool-call encoding: YAML ``- name: {args}``, JSON ``{"toolName", "raw"}``, legacy ``class``, OtherTool."""

from __future__ import annotations

import json

import pytest

from trailblaze.tools import OtherTool, ToolCall, ToolRegistry
from trailblaze.tools.codec import CORE_CODEC, ToolCodec
from trailblaze.tools.serialization import ToolCallFormatError, encode_json
from trailblaze.builtin.tools import WaitTool


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.add_tool(WaitTool)
    return reg


def test_known_name_decodes_to_toolcall_unknown_to_othertool() -> None:
    reg = registry()
    codec = ToolCodec(registry=reg)
    known = codec.decode_yaml_item({"wait": {"timeToWaitInSeconds": 1}})
    unknown = codec.decode_yaml_item({"shop_login": {"email": "a@b.c", "nested": {"x": [1, 2]}}})
    assert type(known) is ToolCall
    assert isinstance(unknown, OtherTool)
    assert unknown.args == {"email": "a@b.c", "nested": {"x": [1, 2]}}


def test_othertool_round_trips_unchanged_through_yaml_and_json() -> None:
    raw = {"contacts_ios_createContact": {"firstName": "Trailblaze", "phoneNumber": "5551234567", "n": 3,
                                          "flag": True, "list": [{"a": None}]}}
    call = CORE_CODEC.decode_yaml_item(raw)
    assert CORE_CODEC.encode_yaml(call) == raw
    as_json = json.loads(json.dumps(encode_json(call)))
    assert as_json == {"toolName": "contacts_ios_createContact", "raw": raw["contacts_ios_createContact"]}
    again = CORE_CODEC.decode_json(as_json)
    assert CORE_CODEC.encode_yaml(again) == raw


def test_legacy_class_shape_is_decoded_by_the_plugin_owning_the_class(plugin_host) -> None:  # type: ignore[no-untyped-def]
    legacy = {"class": "xyz.block.trailblaze.toolcalls.commands.WaitForIdleSyncTrailblazeTool",
              "timeToWaitInSeconds": 0}
    call = plugin_host.codec().decode_json(legacy)  # the core's builtin tools plugin owns `wait`
    assert (call.name, call.args) == ("wait", {"timeToWaitInSeconds": 0})
    # Nobody guesses a tool from a class name: an unclaimed class stays as written, an OtherTool that
    # fails at dispatch naming the class.
    other = plugin_host.codec().decode_json({"class": "com.example.ShinyTrailblazeTool", "x": 1})
    assert isinstance(other, OtherTool) and other.name == "com.example.ShinyTrailblazeTool"


def test_upstream_class_decoder_is_a_hook_a_plugin_uses(plugin_host) -> None:  # type: ignore[no-untyped-def]
    from trailblaze.testing import register_plugin
    from trailblaze.tools.serialization import upstream_class_decoder

    class Plugin:
        trailblaze_decode_tool = staticmethod(upstream_class_decoder({"com.acme.GreetTool": "acme_greet"}))

    with register_plugin(plugin_host, Plugin(), "acme"):
        call = plugin_host.codec().decode_json({"class": "com.acme.GreetTool", "person": "Ada"})
    assert (call.name, call.args) == ("acme_greet", {"person": "Ada"})


@pytest.mark.parametrize("item, message", [
    ({"eraseText": 3}, "expected a map of arguments"),
    ("wait", "must be a map with one key"),
    ({"config": {}}, "reserved"),
    ({}, "must be a map with one key"),
])
def test_malformed_calls_are_rejected(item: object, message: str) -> None:
    with pytest.raises(ToolCallFormatError, match=message):
        CORE_CODEC.decode_yaml_item(item)


def test_empty_args_mean_no_arguments() -> None:
    assert CORE_CODEC.decode_yaml_item({"dumpMemory": None}).args == {}
    assert CORE_CODEC.decode_yaml_item({"dumpMemory": {}}).args == {}


def test_every_written_recording_goes_through_the_encoder(plugin_host, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A team policy as a plugin: recordings it writes never keep the model's ``reasoning`` annotation."""
    from trailblaze import hookimpl
    from trailblaze.testing import register_plugin
    from trailblaze.trail.saveback import append_step

    class NoReasoning:
        @hookimpl
        def trailblaze_encode_tool(self, call: ToolCall) -> dict[str, object] | None:
            if "reasoning" not in call.args:
                return None
            return {call.name: {k: v for k, v in call.args.items() if k != "reasoning"}}

    trail = tmp_path / "t.trail.yaml"
    calls = [ToolCall("wait", {"timeToWaitInSeconds": 1, "reasoning": "the page is still loading"})]
    with register_plugin(plugin_host, NoReasoning(), "no_reasoning"):
        append_step(trail, "Wait for the page", classifier="host", calls=calls, codec=plugin_host.codec())
    text = trail.read_text()
    assert "reasoning" not in text and "timeToWaitInSeconds: 1" in text
    from trailblaze.trail.parser import load_trail

    (call,) = load_trail(trail).steps[0].recordings["host"]
    assert (call.name, call.args) == ("wait", {"timeToWaitInSeconds": 1})
