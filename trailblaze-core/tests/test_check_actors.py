"""``trailblaze check`` on trails with several devices (issue 35): each actor mistake is one
``file:line:column: 'key'`` line and exit 3; the editor schema knows ``actors``, ``actor`` and ``parallel``."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from trailblaze.schemas import TOOL_CALL_REF, tool_call_schema, trail_schema
from trailblaze.testing import run_cli
from trailblaze.yamlio import load_fast

GOOD = """\
config:
  actors:
    alice: host
    bob: {platform: host, options: {}}
trail:
  - step: Alice waits
    actor: alice
    recording:
      host:
        - wait: {timeToWaitInSeconds: 0}
  - parallel:
      - step: Alice waits again
        actor: alice
        recording: {host: [{wait: {timeToWaitInSeconds: 0}}]}
      - - step: Bob waits
          actor: bob
          recording: {host: [{wait: {timeToWaitInSeconds: 0}}]}
        - verify: Bob waited
          actor: bob
          recording: {host: []}
"""

MISTAKES = {
    "unknown.trail.yaml": (GOOD.replace("actor: bob\n          recording", "actor: carol\n          recording", 1),
                           ":16:18: 'actor': unknown actor 'carol'"),
    "missing.trail.yaml": (GOOD.replace("    actor: alice\n    recording:\n      host:", "    recording:\n      host:"),
                           ":6:5: 'actor': a step of a trail with actors needs 'actor:'"),
    "twice.trail.yaml": (GOOD.replace("actor: bob", "actor: alice"),
                         ":16:18: 'actor': two children of one 'parallel' are for actor 'alice'"),
    "platform.trail.yaml": (GOOD.replace("{host: [{wait: {timeToWaitInSeconds: 0}}]}\n      - -",
                                         "{web: [{wait: {timeToWaitInSeconds: 0}}]}\n      - -"),
                            ":14:21: 'web': a recording for 'web' on a step of actor 'alice', "
                            "whose platform is 'host'"),
    "nested.trail.yaml": (GOOD.replace("      - - step: Bob waits", "      - parallel:\n        - step: Bob waits"),
                          ":15:9: 'parallel': a 'parallel' block cannot hold another 'parallel'"),
    "nodriver.trail.yaml": (GOOD.replace("options: {}", "driver: nope"),
                            ":4:5: error: [NoDriver] actor 'bob' wants driver 'nope', which no installed plugin"),
}


def test_a_clean_multi_actor_trail_checks_clean(tmp_path: Path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "good.trail.yaml").write_text(GOOD)
    result = run_cli(["check", str(tmp_path / "good.trail.yaml")], host=plugin_host)
    assert result.exit_code == 0, result.output + result.stderr
    assert "0 error(s)" in result.output


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_each_actor_mistake_is_one_located_line_and_exit_3(tmp_path: Path, plugin_host, name: str) -> None:  # type: ignore[no-untyped-def]
    text, expected = MISTAKES[name]
    path = tmp_path / name
    path.write_text(text)
    result = run_cli(["check", str(path)], host=plugin_host)
    assert result.exit_code == 3, result.output + result.stderr
    lines = {line for line in (result.stderr + result.output).splitlines() if "error:" in line}
    assert len(lines) == 1, lines
    assert str(path) + expected in lines.pop()


def _schema() -> dict[str, object]:
    schema = trail_schema({"$ref": TOOL_CALL_REF})
    schema["$defs"] = {"toolCall": tool_call_schema([], closed=False)}
    return schema


def test_the_editor_schema_knows_actors_actor_and_parallel() -> None:
    validator = jsonschema.Draft7Validator(_schema())
    assert list(validator.iter_errors(load_fast(GOOD))) == []
    wrong = load_fast(GOOD.replace("  - parallel:\n", "  - actor: alice\n    parallel:\n"))
    assert list(validator.iter_errors(wrong)), "a parallel item with another key must not validate"
    long_form = load_fast(GOOD.replace("{platform: host, options: {}}", "{platform: host, colour: red}"))
    assert list(validator.iter_errors(long_form)), "an actor with an unknown key must not validate"
