"""The trail parser's parts, each built and tested alone on a composed node: the shared ``ReadContext``
(warnings and counts), the ``ConfigReader`` (``config:``), the ``RecordingReader`` (recorded calls) and the
``ActorReader`` (``actor:`` and the actor rule of a step).

The parser is made of these parts rather than sliced over them, so each part reads only what it was
built with: a config reader needs the file's context, a recording reader a node reader and a codec.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from trailblaze.errors import SourceLocation, TrailFormatError
from trailblaze.tools.codec import CORE_CODEC
from trailblaze.trail.actor_reader import ActorReader
from trailblaze.trail.actors import Actor
from trailblaze.trail.config_reader import ConfigReader
from trailblaze.trail.nodes import MappingNode, Node, NodeReader, compose
from trailblaze.trail.parser import _Parser
from trailblaze.trail.read_context import ReadContext
from trailblaze.trail.recording_reader import RecordingReader


def _value(text: str, key: str, path: Path) -> Node:
    """The node under top-level ``key`` of ``text``, as the parser would hand it to a part."""
    root, _ = compose(textwrap.dedent(text), path)
    assert isinstance(root, MappingNode)
    return next(v for k, v in root.value if k.value == key)


def test_the_parser_has_its_parts_and_no_base() -> None:
    for cls in (_Parser, ActorReader, ConfigReader, RecordingReader, ReadContext):
        assert cls.__mro__ == (cls, object)


def test_context_warns_into_its_list_or_fails_when_strict(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    node = _value("config:\n  retries: -1\n", "config", path)
    lenient = ReadContext(path, NodeReader(path), strict=False)
    lenient.warn(node, "unknown thing, ignored", "thing", "allowed: id")
    assert lenient.warnings == [f"{path}:2:3: 'thing': unknown thing, ignored (allowed: id)"]

    strict = ReadContext(path, NodeReader(path), strict=True)
    with pytest.raises(TrailFormatError, match="unknown thing"):
        strict.warn(node, "unknown thing, ignored", "thing")
    assert strict.warnings == []


def test_context_counts_non_negative_integers(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    context = ReadContext(path, NodeReader(path), strict=False)
    assert context.count(_value("n: 3\n", "n", path), "retries") == 3
    assert context.count(_value("n: null\n", "n", path), "retries") is None
    with pytest.raises(TrailFormatError) as err:
        context.count(_value("n: -2\n", "n", path), "retries")
    assert err.value.render() == f"{path}:1:4: 'retries': 'retries' must be 0 or more, got -2"


def test_config_reader_alone_reads_a_config_and_warns_into_its_context(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    (tmp_path / "setup").mkdir()
    (tmp_path / "setup" / "sign-in.trail.yaml").write_text("trail:\n  - step: Sign in\n", encoding="utf-8")
    node = _value("""\
        config:
          id: shop/checkout
          tags: [smoke]
          retries: 2
          devices: {web: PLAYWRIGHT_NATIVE}
          drivers: {playwright-native: {timeout_ms: 10000}}
          setup: setup/sign-in.trail.yaml
          colour: blue
        """, "config", path)
    context = ReadContext(path, NodeReader(path), strict=False)
    cfg = ConfigReader(context).config(node, unified=True)
    assert (cfg.id, cfg.tags, cfg.retries, cfg.devices) == ("shop/checkout", ["smoke"], 2,
                                                            {"web": "PLAYWRIGHT_NATIVE"})
    assert cfg.drivers == {"playwright-native": {"timeout_ms": 10000}}
    assert cfg.driver_locations["playwright-native.timeout_ms"] == SourceLocation(path, 6, 33)
    assert cfg.setup == [(tmp_path / "setup" / "sign-in.trail.yaml").resolve()]
    assert len(context.warnings) == 1
    assert context.warnings[0].startswith(f"{path}:8:3: 'colour': unknown config key, ignored (allowed: id, ")

    strict = ReadContext(path, NodeReader(path), strict=True)
    with pytest.raises(TrailFormatError, match="'colour': unknown config key"):
        ConfigReader(strict).config(node, unified=True)


def test_recording_reader_alone_decodes_calls_with_their_positions() -> None:
    path = Path("t.trail.yaml")
    reader = RecordingReader(NodeReader(path), CORE_CODEC)
    node = _value("""\
        recording:
          web:
            - web_click: {ref: e12}
            - web_type: {ref: e3, text: hi}
          android: []
        """, "recording", path)
    calls, locations = reader.unified_recording(node)
    assert {cls: [c.name for c in cs] for cls, cs in calls.items()} == {"web": ["web_click", "web_type"],
                                                                        "android": []}
    assert calls["web"][1].args == {"ref": "e3", "text": "hi"}
    assert locations == {"web": [SourceLocation(path, 3, 7), SourceLocation(path, 4, 7)], "android": []}

    bad = _value("recording:\n  web:\n    - web_click: e12\n", "recording", path)
    with pytest.raises(TrailFormatError) as err:
        reader.unified_recording(bad)
    assert err.value.render() == (
        "t.trail.yaml:3:18: 'web_click': tool 'web_click': arguments must be a map, got 'e12' "
        "(\"Expected a map\") (name the parameter: '- web_click: {<param>: 'e12'}', or '- web_click: {}' "
        "for no arguments)")


def test_actor_reader_alone_checks_names_and_platforms_against_its_actors() -> None:
    path = Path("t.trail.yaml")
    reader = ActorReader(NodeReader(path))
    name = _value("actor: alice\n", "actor", path)
    with pytest.raises(TrailFormatError, match="actor 'alice' is not declared"):
        reader.actor(name)
    reader.actors = {"alice": Actor(name="alice", platform="web")}
    assert reader.actor(name) == "alice"
    with pytest.raises(TrailFormatError) as err:
        reader.actor(_value("actor: bob\n", "actor", path))
    assert err.value.render() == "t.trail.yaml:1:8: 'actor': unknown actor 'bob' (declared actors: alice)"

    step = _value("s:\n  step: Tap\n  recording: {android: []}\n", "s", path)
    assert isinstance(step, MappingNode)
    with pytest.raises(TrailFormatError, match="a recording for 'android' on a step of actor 'alice'"):
        reader.check(step, None, "alice", "step")
