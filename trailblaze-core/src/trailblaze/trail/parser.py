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

from .. import yamlio
from ..errors import BadInputError, SourceLocation, TrailFormatError
from ..tools.base import ToolCall
from ..tools.codec import CORE_CODEC, ToolCodec
from .actor_reader import ActorReader, is_parallel
from .config_reader import ConfigReader
from .model import Trail, TrailConfig, TrailStep, number_steps
from .nodes import MappingNode, Node, NodeReader, ScalarNode, SequenceNode, compose
from .read_context import ReadContext, allowed
from .recording_reader import RecordingReader

__all__ = ["load_trail", "locate_call", "locate_step", "parse_trail"]

TOP_KEYS = ("config", "trailhead", "trail")
STEP_KEYS = ("step", "verify", "recording", "recordable", "maxRetries")
TRAILHEAD_KEYS = ("step", "recording", "recordable", "maxRetries")
ACTOR_KEYS = ("actor",)
"""Step keys of our extension (``trail/actors.py``), listed in hints only in a trail that declares actors."""
V1_ITEM_KEYS = ("config", "trailhead", "tools", "prompts")
V1_TRAILHEAD_KEYS = ("step", "tools", "maxRetries")
_CLASSIFIER_LIKE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


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
    reader = NodeReader(file, yaml)
    context = ReadContext(file, reader, strict=strict)
    parser = _Parser(context, ConfigReader(context), RecordingReader(reader, codec))
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
        reader.fail(root, "a trail must be a map with a 'trail:' list (or a legacy v1 list of items), "
                    f"got {reader.describe(root)}")
    number_steps(steps)
    trail = Trail(path=file or Path("<input>"), format=fmt, config=config, steps=steps, text=text,  # type: ignore[arg-type]
                  warnings=context.warnings)
    return trail, root


class _Parser:
    """Step reading (unified ``trail:``/``trailhead:``, v1 items and prompts); it has the parts that read
    ``config:``, the recordings and the actors (``actor:``, ``parallel:``), and shares the file's
    ``ReadContext`` with the config reader."""

    __slots__ = ("actor_reader", "config_reader", "ctx", "r", "recording_reader")

    def __init__(self, context: ReadContext, config_reader: ConfigReader,
                 recording_reader: RecordingReader) -> None:
        self.ctx = context
        self.r = context.r
        self.config_reader = config_reader
        self.recording_reader = recording_reader
        self.actor_reader = ActorReader(context.r)
        """Reads ``actor:`` and ``parallel:``; given the actors of ``config:`` once it is read."""

    # -- unified -------------------------------------------------------------------------------
    def unified(self, root: MappingNode) -> tuple[TrailConfig, list[TrailStep]]:
        found: dict[str, tuple[Node, Node]] = {}
        for key, knode, vnode in self.r.entries(root):
            if key not in TOP_KEYS:
                hint = allowed(TOP_KEYS)
                if key in ("prompts", "tools"):
                    hint += "; v1 trails are a YAML list ('- prompts: ...'), unified trails list steps under 'trail:'"
                elif key in ("step", "verify"):
                    hint += "; steps go in a list under 'trail:' ('trail:\\n  - step: ...')"
                self.r.fail(knode, "unexpected top-level key", key, hint)
            found[key] = (knode, vnode)
        config = TrailConfig()
        if "config" in found:
            config = self.config_reader.config(found["config"][1], unified=True)
        self.actor_reader.actors = config.actors
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
            if is_parallel(item):
                assert isinstance(item, MappingNode)
                steps.extend(self.actor_reader.parallel(item, i, self.step))
            else:
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
        actor: str | None = None
        for key, knode, vnode in r.entries(node):
            if key == "actor" and not v1:
                actor = self.actor_reader.actor(vnode)
            elif key in ("step", "verify"):
                if kind is not None:
                    r.fail(knode, f"a {noun} has either 'step:' or 'verify:', not both (this one already has "
                                  f"'{kind}:')", key)
                kind, kind_node = key, knode
                text = self.nl_text(vnode, key)
            elif key == "recording":
                if not r.is_null(vnode):
                    reading = self.recording_reader
                    recordings, locations = reading.v1_recording(vnode) if v1 else reading.unified_recording(vnode)
            elif key == "recordable":
                recordable = r.boolean(vnode, "'recordable'", key)
                recordable_node = knode
            elif key == "maxRetries":
                max_retries = self.max_retries(vnode)
            else:
                hint = allowed(STEP_KEYS + (ACTOR_KEYS if self.actor_reader.actors and not v1 else ()))
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
        if not v1:
            self.actor_reader.check(node, kind_node, actor, noun)
        return TrailStep(kind=kind, text=text, recordings=recordings, recordable=recordable,  # type: ignore[arg-type]
                         max_retries=max_retries, location=r.loc(kind_node or node), tool_locations=locations,
                         source_path=source_path, actor=actor)

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
        actor: str | None = None
        for key, knode, vnode in r.entries(node):
            if key == "actor":
                actor = self.actor_reader.actor(vnode)
            elif key == "step":
                text, kind_node = self.nl_text(vnode, key), knode
            elif key == "verify":
                r.fail(knode, "a trailhead cannot be a verification; it brings the app to a known start",
                       key, "use 'step:' for the trailhead and put checks in the trail as '- verify: ...'")
            elif key == "recording":
                if not r.is_null(vnode):
                    recordings, locations = self.recording_reader.trailhead_recording(vnode)
            elif key == "recordable":
                recordable, recordable_node = r.boolean(vnode, "'recordable'", key), knode
            elif key == "maxRetries":
                max_retries = self.max_retries(vnode)
            else:
                r.fail(knode, "unexpected trailhead key", key,
                       allowed(TRAILHEAD_KEYS + (ACTOR_KEYS if self.actor_reader.actors else ())))
        if text is None and not recordings:
            r.fail(node, "an empty trailhead: give it 'step:' text and/or a recorded tool", "trailhead")
        if not recordable and recordings and any(recordings.values()):
            r.fail(recordable_node, "'recordable: false' cannot go with a non-empty recording", "recordable")
        self.actor_reader.check(node, kind_node, actor, "trailhead")
        return TrailStep(kind="trailhead", text=text, recordings=recordings, recordable=recordable,
                         max_retries=max_retries, location=r.loc(kind_node or node), tool_locations=locations,
                         source_path=("trailhead",), actor=actor)

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
                config = self.config_reader.config(vnode, unified=False)
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
                calls, locs = self.recording_reader.tool_list(vnode)
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
                hint = allowed(V1_ITEM_KEYS)
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
            call = self.recording_reader.decode(node, {name.strip(): {}})
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
                calls, locs = self.recording_reader.tool_list(vnode)
            elif key == "maxRetries":
                max_retries = self.max_retries(vnode)
            else:
                r.fail(knode, "unexpected trailhead key", key, allowed(V1_TRAILHEAD_KEYS))
        if text is None and not calls:
            r.fail(node, "an empty trailhead: it needs 'step:' text and/or at least one tool in 'tools:'",
                   "trailhead")
        return TrailStep(kind="trailhead", text=text, recordings={"*": calls} if calls else None,
                         max_retries=max_retries, location=r.loc(node), tool_locations={"*": locs} if calls else {},
                         source_path=source_path)

    # -- shared pieces -------------------------------------------------------------------------
    def nl_text(self, node: Node, key: str) -> str:
        text = self.r.text(node, f"'{key}'", key)
        if text is None or not text.strip():
            self.r.fail(node, f"'{key}' needs natural-language text", key,
                        f"e.g. '{key}: Tap the Sign in button'" if key != "verify" else
                        "e.g. 'verify: The inbox is visible'")
        return text

    def max_retries(self, node: Node) -> int | None:
        return self.ctx.count(node, "maxRetries")

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
