"""Reading trail files: the unified format (a map) and the legacy v1 list, with upstream's rules.

The format is detected like upstream ``TrailblazeYaml.decodeTrailDocument``: a root *list* is v1,
a root *map* is unified. Every rule of ``reference/upstream-trailblaze.md`` §1 and §10 is checked
here, and every violation is one ``TrailFormatError`` line naming ``file:line:column``, the key and
what to write instead.

Speed: the file is composed once by the C parser (``nodes.compose``) and validated on those nodes,
which costs less than a plain safe ``load`` and gives positions for free, so ``TrailStep.location``
and ``TrailStep.tool_locations`` are filled on the happy path without the round-trip loader.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from .. import yamlio
from ..errors import BadInputError, SourceLocation, TrailFormatError
from ..tools.base import ToolCall
from ..tools.codec import CORE_CODEC, ToolCodec
from ..tools.serialization import RESERVED_NAMES, ToolCallFormatError
from . import args as _args
from .model import Trail, TrailConfig, TrailStep, number_steps
from .nodes import MappingNode, Node, NodeReader, ScalarNode, SequenceNode, compose

__all__ = ["load_trail", "locate_call", "locate_step", "parse_trail"]

TOP_KEYS = ("config", "trailhead", "trail")
STEP_KEYS = ("step", "verify", "recording", "recordable", "maxRetries")
TRAILHEAD_KEYS = ("step", "recording", "recordable", "maxRetries")
V1_ITEM_KEYS = ("config", "trailhead", "tools", "prompts")
V1_TRAILHEAD_KEYS = ("step", "tools", "maxRetries")
_TEXT_CONFIG = ("id", "title", "description", "priority", "target", "context")
UNIFIED_CONFIG_KEYS = (*_TEXT_CONFIG, "devices", "drivers", "skip", "tags", "memory", "metadata", "args", "retries",
                       "setup")
V1_CONFIG_KEYS = (*_TEXT_CONFIG, "platform", "driver", "drivers", "skip", "tags", "memory", "metadata", "args",
                  "retries", "source", "electron", "setup")
_CLASSIFIER_LIKE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def _allowed(keys: tuple[str, ...]) -> str:
    return "allowed: " + ", ".join(keys)


def load_trail(path: Path, *, strict: bool = False, codec: ToolCodec = CORE_CODEC) -> Trail:
    """Read and validate the trail at ``path``; raises ``TrailFormatError``/``BadInputError`` (exit 3)."""
    path = Path(path)
    return parse_trail(yamlio.read_text(path), path, strict=strict, codec=codec)


def parse_trail(text: str, path: Path | str | None = None, *, strict: bool = False,
                codec: ToolCodec = CORE_CODEC) -> Trail:
    """Parse trail text. ``strict`` turns lenient-decoding warnings (unknown config keys) into errors.

    Calls are decoded through ``codec`` (the session's or workspace's, so plugins' ``trailblaze_decode_tool``
    applies); the default codec gives the core's own decoding only: every call a plain
    ``ToolCall``/``OtherTool`` resolved at dispatch, as upstream does.
    """
    trail, _root = parse_with_nodes(text, path, strict=strict, codec=codec)
    return trail


def parse_with_nodes(text: str, path: Path | str | None, *, strict: bool = False,
                     codec: ToolCodec = CORE_CODEC) -> tuple[Trail, Node | None]:
    """``parse_trail`` plus the YAML node tree, for code that edits the text in place (save-back)."""
    file = Path(path) if isinstance(path, str) else path
    root, yaml = compose(text, file)
    parser = _Parser(file, NodeReader(file, yaml), strict=strict, codec=codec)
    if root is None:
        raise TrailFormatError("the file is empty; a trail needs a 'trail:' list of steps",
                               location=SourceLocation(file), hint="see docs/trail-format.md")
    if isinstance(root, MappingNode):
        config, steps = parser.unified(root)
        fmt = "unified"
    elif isinstance(root, SequenceNode):
        config, steps = parser.v1(root)
        fmt = "v1"
    else:
        parser.r.fail(root, "a trail must be a map with a 'trail:' list (or a legacy v1 list of items), "
                      f"got {parser.r.describe(root)}")
    number_steps(steps)
    trail = Trail(path=file or Path("<input>"), format=fmt, config=config, steps=steps, text=text,  # type: ignore[arg-type]
                  warnings=parser.warnings)
    return trail, root


class _Parser:
    def __init__(self, path: Path | None, reader: NodeReader, *, strict: bool, codec: ToolCodec) -> None:
        self.path = path
        self.r = reader
        self.strict = strict
        self.codec = codec
        self.warnings: list[str] = []

    def warn(self, node: Node, message: str, key: str | None = None, hint: str | None = None) -> None:
        if self.strict:
            self.r.fail(node, message, key, hint)
        err = TrailFormatError(message, location=self.r.loc(node), key=key, hint=hint)
        self.warnings.append(err.render())

    # -- unified -------------------------------------------------------------------------------
    def unified(self, root: MappingNode) -> tuple[TrailConfig, list[TrailStep]]:
        found: dict[str, tuple[Node, Node]] = {}
        for key, knode, vnode in self.r.entries(root):
            if key not in TOP_KEYS:
                hint = _allowed(TOP_KEYS)
                if key in ("prompts", "tools"):
                    hint += "; v1 trails are a YAML list ('- prompts: ...'), unified trails list steps under 'trail:'"
                elif key in ("step", "verify"):
                    hint += "; steps go in a list under 'trail:' ('trail:\\n  - step: ...')"
                self.r.fail(knode, "unexpected top-level key", key, hint)
            found[key] = (knode, vnode)
        config = TrailConfig()
        if "config" in found:
            config = self.config(found["config"][1], unified=True)
        steps: list[TrailStep] = []
        trailhead = found.get("trailhead")
        if trailhead is not None and not self.r.is_null(trailhead[1]):
            steps.append(self.unified_trailhead(trailhead[1]))
        trail = found.get("trail")
        has_steps = trail is not None and not self.r.is_null(trail[1]) and not (
            isinstance(trail[1], SequenceNode) and not trail[1].value)
        if not has_steps:
            if steps:
                assert trailhead is not None
                self.r.fail(trailhead[0], "a trailhead alone is not a trail; add the steps under 'trail:'",
                            "trailhead")
            if "config" in found:
                return config, []  # a config-only metadata document
            node = trail[0] if trail is not None else root
            self.r.fail(node, "a trail needs a non-empty 'trail:' list of steps", "trail",
                        "e.g. 'trail:\\n  - step: Open the settings screen'")
        assert trail is not None
        if not isinstance(trail[1], SequenceNode):
            self.r.fail(trail[1], f"'trail' must be a list of steps, got {self.r.describe(trail[1])}", "trail",
                        "write each step as '- step: <text>'")
        for i, item in enumerate(trail[1].value):
            steps.append(self.step(item, ("trail", i)))
        return config, steps

    def step(self, node: Node, source_path: tuple[str | int, ...], *, v1: bool = False) -> TrailStep:
        """One ``- step:``/``- verify:`` item, of the unified ``trail:`` list or of a v1 ``prompts:`` list.

        The two formats share every key; a v1 item is called a *prompt*, holds its one recording as
        ``recording: {tools: [...]}`` rather than per device classifier, and (as upstream) does not
        forbid ``recordable: false`` beside a recording."""
        r = self.r
        noun = "prompt" if v1 else "step"
        if not isinstance(node, MappingNode):
            r.fail(node, f"a {noun} must be a map like '- step: <text>', got {r.describe(node)}",
                   hint="write '- step: <what to do>' or '- verify: <what must be true>'")
        kind: str | None = None
        kind_node: Node | None = None
        text: str | None = None
        recordings: dict[str, list[ToolCall]] | None = None
        locations: dict[str, list[SourceLocation]] = {}
        recordable = True
        recordable_node: Node | None = None
        max_retries: int | None = None
        for key, knode, vnode in r.entries(node):
            if key in ("step", "verify"):
                if kind is not None:
                    r.fail(knode, f"a {noun} has either 'step:' or 'verify:', not both (this one already has "
                                  f"'{kind}:')", key)
                kind, kind_node = key, knode
                text = self.nl_text(vnode, key)
            elif key == "recording":
                if not r.is_null(vnode):
                    recordings, locations = self.v1_recording(vnode) if v1 else self.unified_recording(vnode)
            elif key == "recordable":
                recordable = r.boolean(vnode, "'recordable'", key)
                recordable_node = knode
            elif key == "maxRetries":
                max_retries = self.max_retries(vnode)
            else:
                hint = _allowed(STEP_KEYS)
                if not v1 and (isinstance(vnode, SequenceNode)
                               or (_CLASSIFIER_LIKE.match(key) and isinstance(vnode, MappingNode))):
                    hint += f"; device classifiers nest under 'recording:' ('recording:\\n  {key}: [...]')"
                r.fail(knode, f"unexpected {noun} key", key, hint)
        if kind is None:
            r.fail(node, f"a {noun} needs its natural-language text: 'step: <text>' or 'verify: <text>'",
                   hint="recording-only steps are not allowed; every step carries its intent")
        if not v1 and not recordable and recordings and any(recordings.values()):
            cls = next(c for c, calls in recordings.items() if calls)
            r.fail(recordable_node, f"'recordable: false' cannot go with a non-empty recording (classifier "
                                    f"'{cls}' has {len(recordings[cls])} call(s))", "recordable",
                   "remove the recording, or drop 'recordable: false' to replay it")
        return TrailStep(kind=kind, text=text, recordings=recordings, recordable=recordable,  # type: ignore[arg-type]
                         max_retries=max_retries, location=r.loc(kind_node or node), tool_locations=locations,
                         source_path=source_path)

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

    def unified_trailhead(self, node: Node) -> TrailStep:
        r = self.r
        if not isinstance(node, MappingNode):
            r.fail(node, f"'trailhead' must be a map with 'step:' and 'recording:', got {r.describe(node)}",
                   "trailhead", "e.g. 'trailhead:\\n  step: Launch the app\\n  recording:\\n    android:\\n"
                                "      launchApp: {appId: com.example}'")
        text: str | None = None
        kind_node: Node | None = None
        recordings: dict[str, list[ToolCall]] | None = None
        locations: dict[str, list[SourceLocation]] = {}
        recordable = True
        recordable_node: Node | None = None
        max_retries: int | None = None
        for key, knode, vnode in r.entries(node):
            if key == "step":
                text, kind_node = self.nl_text(vnode, key), knode
            elif key == "verify":
                r.fail(knode, "a trailhead cannot be a verification; it brings the app to a known start",
                       key, "use 'step:' for the trailhead and put checks in the trail as '- verify: ...'")
            elif key == "recording":
                if not r.is_null(vnode):
                    recordings, locations = self.trailhead_recording(vnode)
            elif key == "recordable":
                recordable, recordable_node = r.boolean(vnode, "'recordable'", key), knode
            elif key == "maxRetries":
                max_retries = self.max_retries(vnode)
            else:
                r.fail(knode, "unexpected trailhead key", key, _allowed(TRAILHEAD_KEYS))
        if text is None and not recordings:
            r.fail(node, "an empty trailhead: give it 'step:' text and/or a recorded tool", "trailhead")
        if not recordable and recordings and any(recordings.values()):
            r.fail(recordable_node, "'recordable: false' cannot go with a non-empty recording", "recordable")
        return TrailStep(kind="trailhead", text=text, recordings=recordings, recordable=recordable,
                         max_retries=max_retries, location=r.loc(kind_node or node), tool_locations=locations,
                         source_path=("trailhead",))

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

    # -- v1 ------------------------------------------------------------------------------------
    def v1(self, root: SequenceNode) -> tuple[TrailConfig, list[TrailStep]]:
        r = self.r
        if not root.value:
            r.fail(root, "an empty list is not a trail", hint="a unified trail is a map with 'trail:' steps")
        config = TrailConfig()
        steps: list[TrailStep] = []
        seen_config = seen_trailhead = seen_body = False
        for i, item in enumerate(root.value):
            if not isinstance(item, MappingNode) or len(item.value) != 1:
                if isinstance(item, MappingNode) and item.value:
                    keys = ", ".join(f"'{k.value}'" for k, _ in item.value)
                    r.fail(item.value[1][0], f"each item of a v1 trail has exactly one key, found {keys}",
                           hint="start each of config, trailhead, tools and prompts with its own '- '")
                r.fail(item, f"each item of a v1 trail is a one-key map ({', '.join(V1_ITEM_KEYS)}), got "
                             f"{r.describe(item)}")
            (knode, vnode), = item.value
            key = knode.value if isinstance(knode, ScalarNode) else None
            if key == "config":
                if seen_config:
                    r.fail(knode, "only one 'config' item is allowed", key)
                if i != 0:
                    r.fail(knode, "'config' must be the first item of a v1 trail", key)
                seen_config = True
                config = self.config(vnode, unified=False)
            elif key == "trailhead":
                if seen_trailhead:
                    r.fail(knode, "only one 'trailhead' item is allowed", key)
                if seen_body:
                    r.fail(knode, "'trailhead' must come before any 'prompts' or 'tools' item", key)
                seen_trailhead = True
                steps.append(self.v1_trailhead(vnode, (i, "trailhead")))
            elif key == "tools":
                seen_body = True
                if not isinstance(vnode, SequenceNode):
                    r.fail(vnode if not r.is_null(vnode) else knode,
                           f"'tools' must be a list of tool calls, got {r.describe(vnode)}", key)
                calls, locs = self.tool_list(vnode)
                steps.append(TrailStep(kind="tools", text=None, recordings={"*": calls}, location=r.loc(knode),
                                       tool_locations={"*": locs}, source_path=(i, "tools")))
            elif key == "prompts":
                seen_body = True
                if r.is_null(vnode):
                    continue
                if not isinstance(vnode, SequenceNode):
                    r.fail(vnode, f"'prompts' must be a list of steps, got {r.describe(vnode)}", key)
                for j, step in enumerate(vnode.value):
                    steps.append(self.step(step, (i, "prompts", j), v1=True))
            else:
                hint = _allowed(V1_ITEM_KEYS)
                if key == "maestro":
                    hint = "raw Maestro is now the tool 'mobile_maestro: {commands: [...]}' inside a 'tools:' list"
                elif key == "trail":
                    hint += "; a unified trail is a map, not a list: remove the leading '- '"
                r.fail(knode, "unknown key in a v1 trail item", str(key), hint)
        return config, steps

    def v1_trailhead(self, node: Node, source_path: tuple[str | int, ...]) -> TrailStep:
        r = self.r
        if isinstance(node, ScalarNode) and not r.is_null(node):
            name = r.text(node, "trailhead")
            if not name or not name.strip():
                r.fail(node, "an empty trailhead: give a tool id, or 'step:' and/or 'tools:'", "trailhead")
            name = name.strip()
            call = self.decode(node, {name.strip(): {}})
            return TrailStep(kind="trailhead", text=None, recordings={"*": [call]}, location=r.loc(node),
                             tool_locations={"*": [r.loc(node)]}, source_path=source_path)
        if not isinstance(node, MappingNode):
            r.fail(node, f"an empty trailhead: give a tool id ('- trailhead: myapp_launch') or 'step:' and/or "
                         f"'tools:', got {r.describe(node)}", "trailhead")
        text: str | None = None
        calls: list[ToolCall] = []
        locs: list[SourceLocation] = []
        max_retries: int | None = None
        for key, knode, vnode in r.entries(node):
            if key == "step":
                text = self.nl_text(vnode, key)
            elif key == "tools":
                if not isinstance(vnode, SequenceNode):
                    r.fail(vnode if not r.is_null(vnode) else knode,
                           f"'tools' must be a list of tool calls, got {r.describe(vnode)}", key)
                calls, locs = self.tool_list(vnode)
            elif key == "maxRetries":
                max_retries = self.max_retries(vnode)
            else:
                r.fail(knode, "unexpected trailhead key", key, _allowed(V1_TRAILHEAD_KEYS))
        if text is None and not calls:
            r.fail(node, "an empty trailhead: it needs 'step:' text and/or at least one tool in 'tools:'",
                   "trailhead")
        return TrailStep(kind="trailhead", text=text, recordings={"*": calls} if calls else None,
                         max_retries=max_retries, location=r.loc(node), tool_locations={"*": locs} if calls else {},
                         source_path=source_path)

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

    # -- shared pieces -------------------------------------------------------------------------
    def nl_text(self, node: Node, key: str) -> str:
        text = self.r.text(node, f"'{key}'", key)
        if text is None or not text.strip():
            self.r.fail(node, f"'{key}' needs natural-language text", key,
                        f"e.g. '{key}: Tap the Sign in button'" if key != "verify" else
                        "e.g. 'verify: The inbox is visible'")
        return text

    def max_retries(self, node: Node) -> int | None:
        return self.count(node, "maxRetries")

    def count(self, node: Node, key: str) -> int | None:
        if self.r.is_null(node):
            return None
        value = self.r.integer(node, f"'{key}'", key)
        if value < 0:
            self.r.fail(node, f"'{key}' must be 0 or more, got {value}", key)
        return value

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

    # -- config --------------------------------------------------------------------------------
    def config(self, node: Node, *, unified: bool) -> TrailConfig:
        r = self.r
        cfg = TrailConfig()
        if r.is_null(node):
            return cfg
        if not isinstance(node, MappingNode):
            r.fail(node, f"'config' must be a map, got {r.describe(node)}", "config")
        allowed = UNIFIED_CONFIG_KEYS if unified else V1_CONFIG_KEYS
        for key, knode, vnode in r.entries(node):
            if key not in allowed:
                hint = _allowed(allowed)
                if unified and key in ("driver", "platform"):
                    hint = "the unified format pins drivers per classifier: 'devices: {android: ANDROID_ONDEVICE_" \
                           "ACCESSIBILITY, web: PLAYWRIGHT_NATIVE}'"
                elif not unified and key == "devices":
                    hint = "v1 pins one driver: 'driver: PLAYWRIGHT_NATIVE'"
                self.warn(knode, "unknown config key, ignored", key, hint)
                continue
            if key in _TEXT_CONFIG or key in ("platform", "driver"):
                setattr(cfg, key, r.text(vnode, f"'{key}'", key))
            elif key == "devices":
                cfg.devices = self.text_map(vnode, key, allow_null=False)
            elif key == "drivers":
                self.driver_settings(vnode, cfg)
            elif key == "skip":
                cfg.skip = self.skip(vnode, unified=unified)
            elif key == "tags":
                cfg.tags = self.tags(vnode)
            elif key == "memory":
                cfg.memory = self.text_map(vnode, key, allow_null=False,
                                           null_hint="write '{name}: \"\"' for an empty value")
            elif key == "metadata":
                cfg.metadata = dict(self.text_map(vnode, key, allow_null=False))
            elif key == "args":
                cfg.args = _args.parse_declarations(vnode, r)
            elif key == "retries":
                cfg.retries = self.count(vnode, "retries")
            elif key == "source":
                self.source(vnode, cfg)
            elif key == "setup":
                cfg.setup = self.setup(vnode)
            elif key == "electron":
                self.warn(knode, "Electron apps are not supported by this runner; 'electron' is ignored", key)
        return cfg

    def driver_settings(self, node: Node, cfg: TrailConfig) -> None:
        """``drivers: {<driver>: {<setting>: value}}``: the shape is checked here, the settings by the
        driver's config model when the run builds the driver (it names this file, line and key)."""
        r = self.r
        if r.is_null(node):
            return
        if not isinstance(node, MappingNode):
            r.fail(node, f"'drivers' must map driver names to their settings, got {r.describe(node)}", "drivers",
                   "e.g. 'drivers: {playwright-native: {timeout_ms: 10000}}'")
        for name, knode, vnode in r.entries(node):
            cfg.driver_locations[name] = r.loc(knode)
            if r.is_null(vnode):
                cfg.drivers[name] = {}
                continue
            if not isinstance(vnode, MappingNode):
                r.fail(vnode, f"'drivers.{name}' must be a map of settings, got {r.describe(vnode)}", name)
            settings: dict[str, Any] = {}
            for setting, snode, value in r.entries(vnode):
                cfg.driver_locations[f"{name}.{setting}"] = r.loc(snode)
                settings[setting] = r.plain(value)
            cfg.drivers[name] = settings

    def text_map(self, node: Node, key: str, *, allow_null: bool, null_hint: str | None = None) -> dict[str, str]:
        r = self.r
        if r.is_null(node):
            return {}
        if not isinstance(node, MappingNode):
            r.fail(node, f"'{key}' must be a map of names to values, got {r.describe(node)}", key)
        out: dict[str, str] = {}
        for name, knode, vnode in r.entries(node):
            if isinstance(vnode, ScalarNode) and not r.is_null(vnode):
                out[name] = r.text(vnode, f"'{key}.{name}'", name) or ""
            elif r.is_null(vnode):
                if allow_null:
                    out[name] = ""
                else:
                    r.fail(knode, f"'{key}.{name}' has no value", name,
                           (null_hint or "give it a value").replace("{name}", name))
            else:
                r.fail(vnode, f"'{key}.{name}' must be a single value (text, number or true/false), got "
                              f"{r.describe(vnode)}", name)
        return out

    def skip(self, node: Node, *, unified: bool) -> dict[str, str]:
        r = self.r
        if r.is_null(node):
            return {}
        if isinstance(node, MappingNode):
            return self.text_map(node, "skip", allow_null=True)
        if unified:
            r.fail(node, "'skip' maps device classifiers to a reason in the unified format", "skip",
                   f"e.g. 'skip: {{ios: \"{r.text(node, 'skip') or 'reason'}\"}}'")
        reason = r.text(node, "'skip'", "skip")
        return {"*": reason or ""}

    def tags(self, node: Node) -> list[str]:
        r = self.r
        if r.is_null(node):
            return []
        if not isinstance(node, SequenceNode):
            r.fail(node, f"'tags' must be a list, got {r.describe(node)}", "tags", "e.g. 'tags: [smoke, login]'")
        out = []
        for item in node.value:
            text = r.text(item, "a tag", "tags")
            if text is None or not text.strip():
                r.fail(item, "a tag cannot be empty", "tags")
            out.append(text)
        return out

    def setup(self, node: Node) -> list[Path]:
        """``setup: TRAIL`` or a list: trails replayed before this one (relative to this file), each
        checked to exist here so the error names this file's line."""
        r = self.r
        if r.is_null(node):
            return []
        items = [node] if isinstance(node, ScalarNode) else \
            node.value if isinstance(node, SequenceNode) else None
        if items is None:
            r.fail(node, f"'setup' names a trail or a list of trails, got {r.describe(node)}", "setup",
                   "e.g. 'setup: setup/sign-in.trail.yaml'")
        base = self.path.resolve().parent if self.path else Path.cwd()
        out: list[Path] = []
        for item in items:
            text = r.text(item, "a setup trail", "setup")
            if not text or not text.strip():
                r.fail(item, "a setup trail cannot be empty", "setup")
            path = (base / text).resolve()
            if not path.is_file():
                r.fail(item, f"setup trail '{text}' does not exist (looked for {path})", "setup",
                       "paths in 'setup' are relative to this trail's file")
            if self.path is not None and path == self.path.resolve():
                r.fail(item, "a trail cannot be its own setup", "setup")
            out.append(path)
        return out

    def source(self, node: Node, cfg: TrailConfig) -> None:
        r = self.r
        if r.is_null(node):
            return
        if not isinstance(node, MappingNode):
            r.fail(node, f"'source' must be a map like '{{type: HANDWRITTEN, reason: ...}}', got {r.describe(node)}",
                   "source")
        for key, knode, vnode in r.entries(node):
            value = r.text(vnode, f"'source.{key}'", key)
            if key == "type" and value is not None:
                cfg.metadata.setdefault("source", value)
            elif key == "reason" and value is not None:
                cfg.metadata.setdefault("sourceReason", value)
            elif key not in ("type", "reason"):
                self.warn(knode, "unknown source key, ignored", key, "allowed: type, reason")


# -- locating at run time -----------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _recompose(text: str, file: str | None) -> tuple[Trail, Node | None]:
    return parse_with_nodes(text, Path(file) if file else None)


def locate_step(trail: Trail, step_index: int) -> SourceLocation:
    """Where step ``step_index`` is written (its ``step:``/``verify:`` key)."""
    if 0 <= step_index < len(trail.steps):
        return trail.steps[step_index].location
    return SourceLocation(trail.path)


def locate_call(trail: Trail, step_index: int, classifier: str, call_index: int) -> SourceLocation:
    """``file:line:column`` of recorded call ``call_index`` of ``classifier`` in step ``step_index``.

    Positions are recorded while parsing; a trail built another way (or modified since) is re-read
    from its text, only here, on the error path.
    """
    if not 0 <= step_index < len(trail.steps):
        return SourceLocation(trail.path)
    step = trail.steps[step_index]
    locs = step.tool_locations.get(classifier)
    if locs is not None and 0 <= call_index < len(locs):
        return locs[call_index]
    if trail.text:
        try:
            reparsed, _ = _recompose(trail.text, str(trail.path))
        except BadInputError:
            return step.location
        if step_index < len(reparsed.steps):
            locs = reparsed.steps[step_index].tool_locations.get(classifier)
            if locs is not None and 0 <= call_index < len(locs):
                return locs[call_index]
    return step.location if step.location.file is not None else SourceLocation(trail.path)


def require_classifiers(trail: Trail, classifiers: list[str] | None) -> None:
    """Refuse to run a unified trail that has recordings when the device reported no classifiers.

    Upstream (``UnifiedTrailAdapterTest``): without classifiers no recording can be chosen, and
    silently running every step in AI mode would hide the misconfiguration (and spend tokens).
    """
    if classifiers and any(c and c.strip() for c in classifiers):
        return
    if trail.format != "unified":
        return
    for step in trail.steps:
        if step.recordings and any(k != "*" for k in step.recordings):
            raise BadInputError(
                "this trail has per-device recordings but the device reported no classifiers, so none can be "
                "chosen; refusing to run every step in AI mode", location=step.location,
                hint="the driver must report classifiers (e.g. ['android', 'phone'] or ['web'])")
