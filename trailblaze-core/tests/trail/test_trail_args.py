"""Trail args (§1.5, §10 ``TrailArgConfigParseTest``/``TrailArgBinderTest``): declarations and binding."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from trailblaze.errors import BadInputError, TrailFormatError
from trailblaze.trail import Trail
from trailblaze.trail.args import bind_args, undeclared_references

Parse = Callable[..., Trail]
Fails = Callable[..., TrailFormatError]


def _decl(args: str) -> str:
    body = "\n".join("    " + line for line in args.strip("\n").splitlines())
    return f"config:\n  args:\n{body}\ntrail:\n  - step: x\n"


# -- declarations ------------------------------------------------------------------------------------
def test_compact_form_is_a_required_arg_of_that_type(parse: Parse) -> None:
    args = parse(_decl("recipient: string\ncount: integer")).config.args
    assert args["recipient"].type == "string" and args["recipient"].required and not args["recipient"].has_default
    assert args["count"].type == "integer"


def test_full_form_default_present_means_optional(parse: Parse) -> None:
    args = parse(_decl("""\
subject:
  type: string
  description: Email subject line
retries:
  type: integer
  default: 3
verbose: {type: boolean, default: false}
tags: {type: array, default: [a, b]}
""")).config.args
    assert args["subject"].required and args["subject"].description == "Email subject line"
    assert (args["retries"].required, args["retries"].default) == (False, 3)
    assert args["verbose"].default is False and args["tags"].default == ["a", "b"]


def test_type_defaults_to_string_in_the_full_form(parse: Parse) -> None:
    assert parse(_decl("name: {description: who}")).config.args["name"].type == "string"


def test_string_default_keeps_the_text_as_written(parse: Parse) -> None:
    assert parse(_decl("zip: {type: string, default: 007}")).config.args["zip"].default == "007"


def test_required_false_without_default_is_an_error(fails: Fails) -> None:
    err = fails(_decl("x: {type: string, required: false}"))
    assert err.key == "required" and ":3:23:" in str(err) and "no 'default:'" in str(err)


def test_required_true_with_default_is_an_error(fails: Fails) -> None:
    err = fails(_decl("x: {type: string, required: true, default: a}"))
    assert err.key == "required" and "declares a 'default:'" in str(err)


def test_required_true_without_default_is_fine(parse: Parse) -> None:
    assert parse(_decl("x: {type: string, required: true}")).config.args["x"].required


def test_default_null_is_rejected(fails: Fails) -> None:
    err = fails(_decl("x: {type: string, default: null}"))
    assert err.key == "default" and "default: null" in str(err) and "optional is not nullable" in str(err)


@pytest.mark.parametrize("name, why", [("user.email", "dots"), ("user-email", "dashes"), ("1st", "leading digit")])
def test_arg_names_must_be_identifiers(fails: Fails, name: str, why: str) -> None:
    err = fails(_decl(f"'{name}': string"))
    assert err.key == name and why in str(err) and "[a-zA-Z_][a-zA-Z0-9_]*" in str(err)


@pytest.mark.parametrize("decl", ["x: text", "x: {type: number}"])
def test_invalid_type_is_rejected(fails: Fails, decl: str) -> None:
    err = fails(_decl(decl))
    assert "invalid type" in str(err) and "string, integer, boolean, array, object" in str(err)


def test_default_must_fit_the_type(fails: Fails) -> None:
    err = fails(_decl("n: {type: integer, default: many}"))
    assert err.key == "default" and "expects an integer" in str(err)


def test_unknown_declaration_key(fails: Fails) -> None:
    err = fails(_decl("x: {type: string, secret: true}"))
    assert err.key == "secret" and "allowed: type, description, default, required" in str(err)


# -- binding -----------------------------------------------------------------------------------------
ARGS = _decl("""\
email: string
count: integer
verbose: {type: boolean, default: false}
zip: {type: string, default: '00000'}
items: {type: array, default: []}
opts: {type: object, default: {}}
""")


def test_integer_and_boolean_coerce_from_strings_and_strings_keep_numeric_text(parse: Parse) -> None:
    trail = parse(ARGS)
    bound = bind_args(trail, {"email": "ada@example.com", "count": "12", "verbose": "TRUE", "zip": "0042"})
    assert bound == {"email": "ada@example.com", "count": 12, "verbose": True, "zip": "0042", "items": [], "opts": {}}


def test_missing_required_args_fail_naming_them(parse: Parse) -> None:
    with pytest.raises(BadInputError) as info:
        bind_args(parse(ARGS), {})
    assert "'email', 'count'" in str(info.value) and "--arg <name>=<value>" in str(info.value)
    assert info.value.exit_code == 3


def test_unknown_args_fail_naming_them_and_the_declared_ones(parse: Parse) -> None:
    with pytest.raises(BadInputError) as info:
        bind_args(parse(ARGS), {"email": "a", "count": "1", "colour": "red"})
    assert "'colour'" in str(info.value) and "declared: count, email, items, opts, verbose, zip" in str(info.value)
    with pytest.raises(BadInputError, match="declares no 'config.args'"):
        bind_args(parse("trail:\n  - step: x\n"), {"x": "1"})


@pytest.mark.parametrize("value, message", [("twelve", "expects an integer, got 'twelve'"), ("1.5", "expects an integer")])
def test_bad_integer_fails_naming_the_arg(parse: Parse, value: str, message: str) -> None:
    with pytest.raises(BadInputError) as info:
        bind_args(parse(ARGS), {"email": "a", "count": value})
    assert info.value.key == "count" and message in str(info.value)


def test_bad_boolean_fails(parse: Parse) -> None:
    with pytest.raises(BadInputError, match="expects a boolean"):
        bind_args(parse(ARGS), {"email": "a", "count": "1", "verbose": "yes"})


def test_scalar_for_array_or_object_is_rejected(parse: Parse) -> None:
    with pytest.raises(BadInputError, match="'items' expects an array, got the string 'a,b'"):
        bind_args(parse(ARGS), {"email": "a", "count": "1", "items": "a,b"})
    with pytest.raises(BadInputError, match="'opts' expects an object"):
        bind_args(parse(ARGS), {"email": "a", "count": "1", "opts": "{}"})


def test_args_file_is_applied_before_cli_args(parse: Parse, tmp_path: Path) -> None:
    args_file = tmp_path / "args.yaml"
    args_file.write_text("email: file@example.com\ncount: 3\nzip: 007\nitems: [x, y]\nopts: {k: v}\n")
    bound = bind_args(parse(ARGS), {"email": "cli@example.com"}, args_file)
    assert bound == {"email": "cli@example.com", "count": 3, "verbose": False, "zip": "007", "items": ["x", "y"],
                     "opts": {"k": "v"}}


def test_json_args_file(parse: Parse, tmp_path: Path) -> None:
    args_file = tmp_path / "args.json"
    args_file.write_text('{"email": "j@example.com", "count": "4", "verbose": true}')
    assert bind_args(parse(ARGS), {}, args_file)["count"] == 4


def test_null_value_in_args_file_fails_naming_the_arg_and_its_place(parse: Parse, tmp_path: Path) -> None:
    args_file = tmp_path / "args.yaml"
    args_file.write_text("email: ~\ncount: 1\n")
    with pytest.raises(BadInputError) as info:
        bind_args(parse(ARGS), {}, args_file)
    assert f"{args_file}:1:8: 'email': arg 'email' was given a null value" in str(info.value)


def test_args_file_must_be_a_map(parse: Parse, tmp_path: Path) -> None:
    args_file = tmp_path / "args.yaml"
    args_file.write_text("- a\n")
    with pytest.raises(BadInputError, match="must be a map"):
        bind_args(parse(ARGS), {}, args_file)
    with pytest.raises(BadInputError, match="file not found"):
        bind_args(parse(ARGS), {}, tmp_path / "missing.yaml")


def test_malformed_args_token_in_a_value_fails_at_bind(parse: Parse) -> None:
    with pytest.raises(BadInputError, match="malformed args token"):
        bind_args(parse(ARGS), {"email": "{{args.count + 1}}", "count": "1"})


def test_undeclared_args_references_are_found_with_their_location(parse: Parse) -> None:
    trail = parse("""\
        config:
          args: {person: string}
        trail:
          - step: x
            recording:
              host:
                - acme_greet: {person: "{{args.person}}", title: "{{args.title}}"}
        """)
    ((message, where),) = undeclared_references(trail)
    assert "args.title" in message and (where.line, where.column) == (7, 11)


def test_undeclared_args_in_step_text_are_found_too(parse: Parse) -> None:
    trail = parse("""\
        config:
          args: {person: string}
        trail:
          - step: Greet {{args.person}} as {{args.title}}
          - verify: "{{args.person}} is greeted"
        """)
    ((message, where),) = undeclared_references(trail)
    assert message == ("the step text refers to '{{args.title}}' but the trail declares no arg 'title' under "
                       "config.args")
    assert where.line == 4


def test_check_prints_the_finding_once_and_readably(tmp_path: Path) -> None:
    from trailblaze.testing import run_cli

    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text("{}\n")
    trail = tmp_path / "trails" / "t.trail.yaml"
    trail.write_text("trail:\n  - step: Say {{args.who}}\n    recording:\n      host:\n"
                     "        - wait: {timeToWaitInSeconds: '{{args.delay}}'}\n")
    result = run_cli(["check", str(trail)], cwd=tmp_path)
    assert result.exit_code == 3
    assert "error: [TrailArgs] the step text refers to '{{args.who}}' but the trail declares no arg 'who'" \
        in result.output
    assert "error: [TrailArgs] tool 'wait' refers to '{{args.delay}}' but the trail declares no arg 'delay'" \
        in result.output
    assert "'{{args.tool" not in result.output
