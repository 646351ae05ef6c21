"""Several devices in one trail (our extension): ``config.actors``, ``actor:`` and ``parallel:`` read into
the model, written back in place, and every mistake one located line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from trailblaze.errors import TrailFormatError
from trailblaze.tools.base import ToolCall
from trailblaze.trail import Trail
from trailblaze.trail.actors import Actor
from trailblaze.trail.model import actors_of, step_groups
from trailblaze.trail.parser import load_trail
from trailblaze.trail.saveback import save_recording

Parse = Callable[..., Trail]
Fails = Callable[..., TrailFormatError]

CHAT = """\
config:
  title: Alice invites Bob
  actors:
    alice: web                 # short form
    bob:                       # long form
      platform: web
      driver: playwright-native
      options: {headless: true}
trail:
  - step: Alice creates an invitation
    actor: alice
    recording:
      web:
        - web_evaluate: {script: "'42'", variable: code}
  - parallel:
      - step: Alice opens the room
        actor: alice
        recording: {web: [{web_wait: {ms: 10}}]}
      - - step: Bob enters {{code}}
          actor: bob
        - verify: Bob is in the room
          actor: bob
  - step: Alice says hi
    actor: alice
"""


def test_actors_steps_and_blocks_are_read(parse: Parse) -> None:
    trail = parse(CHAT)
    assert trail.config.actors == {
        "alice": Actor(name="alice", platform="web"),
        "bob": Actor(name="bob", platform="web", driver="playwright-native", options={"headless": True}),
    }
    assert trail.config.actor_locations["bob"].line == 5
    assert [(s.number, s.actor, s.block) for s in trail.steps] == [
        (1, "alice", None), (2, "alice", 1), (3, "bob", 1), (4, "bob", 1), (5, "alice", None)]
    assert [s.source_path for s in trail.steps[1:4]] == [
        ("trail", 1, "parallel", 0), ("trail", 1, "parallel", 1, 0), ("trail", 1, "parallel", 1, 1)]
    assert [[s.number for s in group] for group in step_groups(trail.steps)] == [[1], [2, 3, 4], [5]]
    assert trail.steps[2].location.line == 19
    assert actors_of(trail) == list(trail.config.actors.values())


def test_a_single_device_trail_is_one_implicit_actor(parse: Parse) -> None:
    trail = parse("trail:\n  - step: Open the app\n  - step: Tap Go\n")
    assert actors_of(trail) == [None]
    assert [s.actor for s in trail.steps] == [None, None]
    assert [[s.number for s in g] for g in step_groups(trail.steps)] == [[1], [2]]


def test_saveback_into_parallel_children_changes_only_their_slots(write: Callable[..., Path]) -> None:
    path = write(CHAT)
    save_recording(path, 2, "web", [ToolCall(name="web_click", args={"ref": "e1"})])
    save_recording(path, 1, "web", [ToolCall(name="web_wait", args={"ms": 5})])
    after = path.read_text()
    before = CHAT.replace("recording: {web: [{web_wait: {ms: 10}}]}", "recording: {web: [web_wait: {ms: 5}]}")
    assert after.replace("          recording:\n            web:\n              - web_click:\n"
                         "                  ref: e1\n", "") == before
    reread = load_trail(path)
    assert reread.steps[2].recordings == {"web": [ToolCall(name="web_click", args={"ref": "e1"})]}


@pytest.mark.parametrize(("text", "line", "key", "words"), [
    ("config:\n  actors: {alice: web}\ntrail:\n  - step: Go\n    actor: carol\n", 5, "actor",
     "unknown actor 'carol'"),
    ("config:\n  actors: {alice: web, bob: web}\ntrail:\n  - step: Go\n", 4, "actor", "needs 'actor:'"),
    ("config:\n  actors: {alice: web, bob: web}\ntrail:\n  - parallel:\n      - step: A\n        actor: alice\n"
     "      - step: B\n        actor: alice\n", 8, "actor", "two children of one 'parallel' are for actor 'alice'"),
    ("config:\n  actors: {alice: web, bob: android}\ntrail:\n  - step: Go\n    actor: bob\n    recording:\n"
     "      web: []\n", 7, "web", "platform is 'android'"),
    ("config:\n  actors: {alice: web, bob: web}\ntrail:\n  - parallel:\n      - step: A\n        actor: alice\n"
     "      - parallel:\n          - step: B\n            actor: bob\n", 7, "parallel", "cannot hold another"),
    ("config:\n  actors: {alice: web, bob: web}\ntrail:\n  - parallel:\n      - - step: A\n          actor: alice\n"
     "        - step: B\n          actor: bob\n", 8, "actor", "steps of one actor"),
    ("trail:\n  - parallel:\n      - step: A\n", 2, "parallel", "needs actors"),
    ("trail:\n  - step: A\n    actor: alice\n", 3, "actor", "has no 'config.actors'"),
    ("config:\n  actors: {alice: {driver: x}}\ntrail:\n  - step: A\n", 2, "alice", "needs a 'platform'"),
    ("config:\n  actors: {alice: Web Browser}\ntrail:\n  - step: A\n", 2, "alice", "not a platform word"),
    ("config:\n  actors: {alice: {platform: web, colour: red}}\ntrail:\n  - step: A\n", 2, "colour",
     "unexpected key of actor"),
])
def test_each_actor_mistake_is_one_located_line(fails: Fails, text: str, line: int, key: str, words: str) -> None:
    error = fails(text)
    assert error.location is not None and error.location.line == line, str(error)
    assert error.key == key, str(error)
    assert words in str(error)


def test_upstream_v1_prompts_do_not_take_actor(fails: Fails) -> None:
    error = fails("- prompts:\n    - step: Go\n      actor: alice\n")
    assert error.key == "actor"
    assert "unexpected prompt key" in str(error)
