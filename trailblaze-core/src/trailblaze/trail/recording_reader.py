"""Reading recordings: the tool calls under a step's or trailhead's ``recording:`` (unified, keyed by
device classifier) or a v1 ``tools:`` list, each decoded through the session's codec."""

from __future__ import annotations

from typing import Any

from ..errors import SourceLocation
from ..tools.base import ToolCall
from ..tools.serialization import RESERVED_NAMES, ToolCallFormatError
from ..tools.codec import ToolCodec
from .nodes import MappingNode, Node, NodeReader, ScalarNode, SequenceNode

__all__ = ["RecordingReader"]


class RecordingReader:
    """Recordings and tool calls, with each call's position kept for ``locate_call``.

    It needs only the file's node reader (for positions and errors) and the codec that decodes each
    call; a recording never warns, every rule it checks is an error."""

    __slots__ = ("codec", "r")

    def __init__(self, reader: NodeReader, codec: ToolCodec) -> None:
        self.r = reader
        self.codec = codec

    def unified_recording(self, node: Node) -> tuple[dict[str, list[ToolCall]], dict[str, list[SourceLocation]]]:
        r = self.r
        if not isinstance(node, MappingNode):
            hint = "put the list under a device classifier: 'recording:\\n  web:\\n    - toolName: {...}'" \
                if isinstance(node, SequenceNode) else None
            r.fail(node, "'recording' maps device classifiers (android, ios-iphone, web, ...) to lists of tool "
                         f"calls, got {r.describe(node)}", "recording", hint)
        recordings: dict[str, list[ToolCall]] = {}
        locations: dict[str, list[SourceLocation]] = {}
        for cls, knode, vnode in r.entries(node):
            if cls == "tools":
                r.fail(knode, "'recording: {tools: [...]}' is the legacy v1 shape; in the unified format "
                              "'recording' is keyed by device classifier", cls,
                       "e.g. 'recording:\\n  android:\\n    - toolName: {...}'")
            if not cls.strip():
                r.fail(knode, "a classifier cannot be blank", "recording")
            if not isinstance(vnode, SequenceNode):
                what = r.describe(vnode)
                r.fail(vnode if not r.is_null(vnode) else knode,
                       f"classifier '{cls}' must map to a list of tool calls, got {what}", cls,
                       f"write '{cls}: []' for an explicit no-op, or '{cls}:\\n  - toolName: {{...}}'")
            calls, locs = self.tool_list(vnode)
            recordings[cls] = calls
            locations[cls] = locs
        return recordings, locations

    def trailhead_recording(self, node: Node) -> tuple[dict[str, list[ToolCall]], dict[str, list[SourceLocation]]]:
        r = self.r
        if not isinstance(node, MappingNode):
            r.fail(node, f"'recording' maps device classifiers to one tool each, got {r.describe(node)}",
                   "recording")
        recordings: dict[str, list[ToolCall]] = {}
        locations: dict[str, list[SourceLocation]] = {}
        for cls, knode, vnode in r.entries(node):
            if isinstance(vnode, SequenceNode):
                r.fail(vnode, "a trailhead runs one tool per device: write the tool as a map, not a list", cls,
                       f"'{cls}:\\n  toolName: {{...}}' (or '{cls}: {{}}' for no tool)")
            if not isinstance(vnode, MappingNode):
                r.fail(vnode if not r.is_null(vnode) else knode,
                       f"classifier '{cls}' must map to one tool ('toolName: {{...}}') or {{}}, got "
                       f"{r.describe(vnode)}", cls)
            if len(vnode.value) > 1:
                names = ", ".join(f"'{k.value}'" for k, _ in vnode.value)
                r.fail(vnode.value[1][0], f"a trailhead takes exactly one tool per classifier, found {names}", cls,
                       "chain several tools by writing a YAML tool that calls them")
            if not vnode.value:
                recordings[cls], locations[cls] = [], []
                continue
            call, loc = self.tool_call(vnode)
            recordings[cls], locations[cls] = [call], [loc]
        return recordings, locations

    def v1_recording(self, node: Node) -> tuple[dict[str, list[ToolCall]], dict[str, list[SourceLocation]]]:
        r = self.r
        if not isinstance(node, MappingNode) or not node.value:
            r.fail(node, "a v1 'recording' needs 'tools:' with the list of calls", "recording",
                   "write 'recording:\\n  tools:\\n    - toolName: {...}' or remove 'recording:'")
        recordings: dict[str, list[ToolCall]] = {}
        locations: dict[str, list[SourceLocation]] = {}
        for sub, sknode, svnode in r.entries(node):
            if sub != "tools":
                hint = "allowed: tools"
                if isinstance(svnode, SequenceNode):
                    hint += ("; per-device recordings are the unified format: a v1 file holds one "
                             "device's recording under 'tools:'")
                r.fail(sknode, "unexpected key in a v1 recording", sub, hint)
            if not isinstance(svnode, SequenceNode):
                r.fail(svnode if not r.is_null(svnode) else sknode,
                       f"'tools' must be a list of tool calls, got {r.describe(svnode)}", sub)
            calls, locs = self.tool_list(svnode)
            recordings, locations = {"*": calls}, {"*": locs}
        return recordings, locations

    def tool_list(self, node: SequenceNode) -> tuple[list[ToolCall], list[SourceLocation]]:
        calls: list[ToolCall] = []
        locs: list[SourceLocation] = []
        for item in node.value:
            call, loc = self.tool_call(item)
            calls.append(call)
            locs.append(loc)
        return calls, locs

    def tool_call(self, node: Node) -> tuple[ToolCall, SourceLocation]:
        """One ``- toolName: {args}`` item (upstream §1.4)."""
        r = self.r
        if not isinstance(node, MappingNode):
            shown = r.describe(node)
            hint = f"write '- {node.value}: {{}}'" if isinstance(node, ScalarNode) and (node.tag or "").endswith(":str") \
                else "write '- toolName: {arg: value}'"
            r.fail(node, f"a tool call is a one-key map '- toolName: {{args}}', got {shown}", hint=hint)
        if not node.value:
            r.fail(node, "an empty tool call '{}': write '- toolName: {args}'")
        knode, vnode = node.value[0]
        if not isinstance(knode, ScalarNode) or knode.tag != "tag:yaml.org,2002:str":
            r.fail(knode, "a tool name must be text")
        name = knode.value
        if name == "class" and isinstance(vnode, ScalarNode) and len(node.value) > 1:
            # Upstream's legacy form {"class": "<Kotlin FQCN>", ...fields}: the plugin owning the tool
            # maps the class (trailblaze_decode_tool).
            fields = r.plain(node)
            try:
                return self.codec.decode_json(fields), r.loc(knode)
            except ToolCallFormatError as exc:
                r.fail(node, str(exc), name)
        if len(node.value) > 1:
            other = node.value[1][0]
            r.fail(other, f"a tool call has exactly one key, the tool name; found '{name}' and "
                          f"'{getattr(other, 'value', other)}'", str(getattr(other, "value", "")),
                   f"arguments go under the tool name, indented: '- {name}:\\n    arg: value'")
        if name in RESERVED_NAMES:
            r.fail(knode, f"'{name}' is reserved and cannot be a tool name", name,
                   f"reserved: {', '.join(sorted(RESERVED_NAMES))}")
        if not name.strip():
            r.fail(knode, "a tool name cannot be blank")
        if r.is_null(vnode):
            args: Any = {}
        elif isinstance(vnode, MappingNode):
            args = r.plain(vnode)
        else:
            shown = r.describe(vnode)
            r.fail(vnode, f"tool '{name}': arguments must be a map, got {shown} (\"Expected a map\")", name,
                   f"name the parameter: '- {name}: {{<param>: {shown}}}', or '- {name}: {{}}' for no arguments")
        loc = r.loc(knode)
        return self.decode(knode, {name: args}), loc

    def decode(self, node: Node, item: dict[str, Any]) -> ToolCall:
        try:
            return self.codec.decode_yaml_item(item)
        except ToolCallFormatError as exc:
            self.r.fail(node, str(exc), next(iter(item)))
