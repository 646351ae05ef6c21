"""Memory and token rules of upstream §1.5 / §10 (``AgentMemoryTest``), against ``trailblaze.memory``."""

from __future__ import annotations

import warnings

import pytest
from trailblaze.memory import MalformedArgsTokenError, Memory, UnknownTokenWarning, escape_literal


def _quiet(mem: Memory) -> list[str]:
    notes: list[str] = []
    mem.on_unknown_token = notes.append
    return notes


def test_both_token_spellings_resolve_from_memory() -> None:
    mem = Memory({"email": "ada@example.com"})
    assert mem.interpolate("{{email}}") == "ada@example.com"
    assert mem.interpolate("${email}") == "ada@example.com"
    assert mem.interpolate("to: {{ email }} / ${email}") == "to: ada@example.com / ada@example.com"


def test_unknown_tokens_stay_literal_with_one_warning_each() -> None:
    mem = Memory()
    notes = _quiet(mem)
    assert mem.interpolate("hi {{nobody}} and ${nobody} and {{ghost}}") == "hi {{nobody}} and ${nobody} and {{ghost}}"
    assert mem.interpolate("{{nobody}}") == "{{nobody}}"
    assert len(notes) == 2 and "nobody" in notes[0] and "ghost" in notes[1]


def test_unknown_token_warning_goes_to_warnings_without_a_sink() -> None:
    mem = Memory()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mem.interpolate("{{missing}}")
    assert [w.category for w in caught] == [UnknownTokenWarning]


def test_blank_unknown_tokens_env_restores_the_old_behaviour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_MEMORY_BLANK_UNKNOWN_TOKENS", "1")
    assert Memory().interpolate("a{{missing}}b") == "ab"


def test_interpolation_is_a_single_pass() -> None:
    mem = Memory({"a": "{{b}}", "b": "deep"})
    assert mem.interpolate("{{a}}") == "{{b}}"  # the value's own token is not re-resolved


def test_memory_prefix_is_equivalent_to_the_bare_key() -> None:
    mem = Memory({"user": "ada"})
    assert mem.interpolate("{{memory.user}}") == "ada"
    assert mem.interpolate("${memory.user}") == "ada"


def test_stripped_key_wins_over_a_literal_memory_dot_key() -> None:
    mem = Memory({"memory.user": "literal", "user": "bare"})
    assert mem.interpolate("{{memory.user}}") == "bare"
    only_literal = Memory({"memory.user": "literal"})
    assert only_literal.interpolate("{{memory.user}}") == "literal"


def test_seeding_precedence_yaml_then_cli_then_secret() -> None:
    mem = Memory.seeded(config_memory={"a": "yaml", "b": "yaml", "c": "yaml"},
                        cli_memory={"b": "cli", "c": "cli"}, secrets={"c": "secret"})
    assert (mem.get("a"), mem.get("b"), mem.get("c")) == ("yaml", "cli", "secret")
    assert mem.is_sensitive("c") and not mem.is_sensitive("b")


def test_secrets_are_excluded_from_the_snapshot_and_redacted() -> None:
    mem = Memory.seeded(config_memory={"user": "ada"}, secrets={"password": "hunter22"})
    assert mem.snapshot() == {"user": "ada"}
    assert mem.snapshot(include_sensitive=True) == {"user": "ada", "password": "hunter22"}
    assert mem.interpolate("{{password}}") == "hunter22"  # tools still get the value
    assert mem.redact({"typed": ["pw=hunter22"]}) == {"typed": ["pw=***"]}


def test_sensitive_marker_survives_delete_and_remember() -> None:
    mem = Memory()
    mem.remember("token", "abc123", sensitive=True)
    mem.forget("token")
    assert mem.get("token") is None and mem.is_sensitive("token")
    mem.remember("token", "xyz789")
    assert mem.is_sensitive("token") and mem.snapshot() == {}
    mem.apply_delta({"token": "again"}, [])
    assert mem.redact("again!") == "***!"


def test_scalars_are_remembered_as_strings() -> None:
    mem = Memory({"n": 5, "flag": True, "off": False, "pi": 3.5})
    assert mem.snapshot() == {"n": "5", "flag": "true", "off": "false", "pi": "3.5"}


def test_a_string_that_is_exactly_one_args_token_keeps_the_native_type() -> None:
    mem = Memory(args={"count": 3, "on": True, "name": "ada"})
    assert mem.interpolate("{{args.count}}") == 3
    assert mem.interpolate("{{args.on}}") is True
    assert mem.interpolate("n={{args.count}}, on={{args.on}}") == "n=3, on=true"
    assert mem.interpolate({"list": ["{{args.name}}"]}) == {"list": ["ada"]}


def test_args_dotted_paths_resolve_but_expressions_are_hard_errors() -> None:
    mem = Memory(args={"user": {"email": "ada@example.com"}})
    assert mem.interpolate("{{args.user.email}}") == "ada@example.com"
    with pytest.raises(MalformedArgsTokenError, match="only dotted names"):
        mem.interpolate("{{args.user + 1}}")


def test_array_and_object_args_are_left_literal_deferred() -> None:
    mem = Memory(args={"items": ["a", "b"], "obj": {"k": "v"}})
    notes = _quiet(mem)
    assert mem.interpolate("{{args.items}}") == "{{args.items}}"
    assert mem.interpolate("x {{args.obj}}") == "x {{args.obj}}"
    assert len(notes) == 2 and "array/object" in notes[0]


def test_memory_delta_merges_sets_applies_deletions_and_skips_non_strings() -> None:
    mem = Memory({"keep": "1", "drop": "2"})
    mem.apply_delta({"new": "3", "bad": 4}, ["drop", 5])  # type: ignore[list-item,dict-item]
    assert mem.snapshot() == {"keep": "1", "new": "3"}


def test_only_strings_are_interpolated() -> None:
    mem = Memory({"x": "1"})
    assert mem.interpolate({"n": 5, "b": False, "none": None, "s": "{{x}}"}) == {"n": 5, "b": False, "none": None,
                                                                                  "s": "1"}


@pytest.mark.parametrize("text", ["{{shopUrl}}", "${password} and {{ password }}", "a \\{{b", "\\\\{{shopUrl}}",
                                  "{{ unclosed", "plain", "{{args.x}}", "price: ${5}"])
def test_escaped_literal_text_interpolates_back_to_itself(text: str) -> None:
    mem = Memory({"shopUrl": "http://127.0.0.1:1", "password": "pw"}, args={"x": 1})
    assert mem.interpolate(escape_literal(text)) == text
    assert mem.interpolate(escape_literal({"ref": [text]})) == {"ref": [text]}


def test_an_escaped_backslash_before_a_token_still_interpolates_it() -> None:
    mem = Memory({"shopUrl": "http://x"})
    assert mem.interpolate("\\\\{{shopUrl}} \\{{shopUrl}}") == "\\http://x {{shopUrl}}"
