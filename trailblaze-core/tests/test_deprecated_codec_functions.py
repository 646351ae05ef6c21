"""``describe`` and ``decode_yaml_item`` (and their siblings ``decode``, ``decode_json``, ``encode_yaml``)
went with the codec change of contract 1.1 without a warning period, and a driver plugin written from the
docs stopped passing its tests. They are back for one more minor version: each does what it did, through
the codec, and warns with a ``DeprecationWarning`` that names the codec method to call instead."""

from __future__ import annotations

from typing import Any

import pytest

from trailblaze import (OtherTool, PluginHost, ToolCall, ToolCallFormatError, ToolDefinition, ToolDescriptor,
                        hookimpl)
from trailblaze.builtin.tools import WaitTool
from trailblaze.testing import register_plugin
from trailblaze.tools import ToolRegistry


class LegacyNames:
    """A plugin that reads an old spelling of ``wait``, writes it back that way and describes it."""

    @hookimpl
    def trailblaze_decode_tool(self, name: str, args: dict[str, Any]) -> ToolCall | None:
        return ToolCall("wait", args) if name == "pause" else None

    @hookimpl
    def trailblaze_encode_tool(self, call: ToolCall) -> dict[str, Any] | None:
        return {"pause": call.args} if call.name == "wait" else None

    @hookimpl
    def trailblaze_tool_descriptor(self, definition: ToolDefinition,
                                   provider: str | None) -> ToolDescriptor | None:
        if definition.name != "wait":
            return None
        return ToolDescriptor("wait", f"wait, described for {provider}", {}, {})


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.add_tool(WaitTool)
    return reg


def test_describe_answers_through_the_plugins_and_names_the_codec(plugin_host: PluginHost) -> None:
    from trailblaze.tools.descriptors import describe

    definition = registry().get("wait")
    assert definition is not None
    with register_plugin(plugin_host, LegacyNames(), "legacy"):
        with pytest.warns(DeprecationWarning, match=r"descriptors\.describe.*use session\.codec\.describe"):
            found = describe(definition, plugin_host, "openai")
        assert found == plugin_host.codec().describe(definition, "openai")
        assert found.description == "wait, described for openai"
    with pytest.warns(DeprecationWarning):
        core = describe(definition, plugin_host)  # no plugin answers: the core's default descriptor
    assert core.name == "wait" and "timeToWaitInSeconds" in core.input_schema["properties"]


def test_the_old_tools_package_name_still_imports() -> None:
    from trailblaze.tools import describe
    from trailblaze.tools.descriptors import describe as original

    assert describe is original


def test_decode_yaml_item_with_a_host_decodes_through_its_plugins(plugin_host: PluginHost) -> None:
    from trailblaze.tools.serialization import decode_yaml_item

    with register_plugin(plugin_host, LegacyNames(), "legacy"):
        with pytest.warns(DeprecationWarning, match=r"serialization\.decode_yaml_item.*"
                                                    r"use session\.codec\.decode_yaml_item\(item\)"):
            call = decode_yaml_item({"pause": {"timeToWaitInSeconds": 2}}, registry=registry(),
                                    host=plugin_host)
    assert type(call) is ToolCall and (call.name, call.args) == ("wait", {"timeToWaitInSeconds": 2})


def test_decode_yaml_item_without_a_host_is_the_core_answer_and_keeps_its_errors() -> None:
    from trailblaze.tools.serialization import decode_yaml_item

    with pytest.warns(DeprecationWarning):
        known = decode_yaml_item({"wait": None}, registry=registry())
        unknown = decode_yaml_item({"shop_login": {"email": "a@b.c"}})
    assert type(known) is ToolCall and known.args == {}
    assert isinstance(unknown, OtherTool) and unknown.args == {"email": "a@b.c"}
    with pytest.warns(DeprecationWarning), pytest.raises(ToolCallFormatError, match="'tools' is reserved"):
        decode_yaml_item({"tools": {}})
    with pytest.warns(DeprecationWarning), pytest.raises(ToolCallFormatError, match="expected a map"):
        decode_yaml_item({"wait": [1]})


def test_the_other_removed_codec_functions_come_back_too(plugin_host: PluginHost) -> None:
    from trailblaze.tools.serialization import decode, decode_json, encode_yaml

    with register_plugin(plugin_host, LegacyNames(), "legacy"):
        with pytest.warns(DeprecationWarning, match=r"use session\.codec\.decode_json\(obj\)"):
            call = decode_json({"toolName": "pause", "raw": {"timeToWaitInSeconds": 1}}, host=plugin_host)
        assert (call.name, call.args) == ("wait", {"timeToWaitInSeconds": 1})
        with pytest.warns(DeprecationWarning, match=r"use session\.codec\.encode_yaml\(call\)"):
            assert encode_yaml(call, plugin_host) == {"pause": {"timeToWaitInSeconds": 1}}
        with pytest.warns(DeprecationWarning, match=r"use session\.codec\.decode\(name, args\)"):
            assert decode("pause", {}, host=plugin_host).name == "wait"
    with pytest.warns(DeprecationWarning):
        assert encode_yaml(ToolCall("wait", {"n": 1})) == {"wait": {"n": 1}}
        assert isinstance(decode_json({"class": "com.example.Shiny", "x": 1}), OtherTool)
