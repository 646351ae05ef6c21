"""The one module for outside text — at the boundary, on the terminal, in an output file (see
trailblaze/untrusted.py for why)."""

from __future__ import annotations

import json

from trailblaze.untrusted import (
    MAX_OUTPUT_CHARS,
    capped,
    decode_output,
    output_text,
    output_value,
    terminal_text,
    truncated,
    valid_data,
    valid_text,
)


def test_lone_surrogates_become_the_replacement_character() -> None:
    lone = "Hi \ud83d"
    assert valid_text(lone) == "Hi \ufffd"
    assert valid_text("\ude00 end") == "\ufffd end"
    assert valid_text("\ud83d\ude00") == "😀"  # a pair of surrogate code points is the character it encodes
    valid_text(lone).encode("utf-8")


def test_valid_text_is_the_same_object_when_nothing_is_wrong() -> None:
    text = "plain ✓ text"
    assert valid_text(text) is text
    data = {"a": ["b", {"c": 1}], "d": ("e",)}
    assert valid_data(data) is data


def test_valid_data_walks_keys_values_and_sequences() -> None:
    bad = {"k\ud800": ["x\udfff", ("y\ud83d",)], "n": 1}
    fixed = valid_data(bad)
    assert fixed == {"k\ufffd": ["x\ufffd", ("y\ufffd",)], "n": 1}
    json.dumps(fixed, ensure_ascii=False).encode("utf-8")


def test_bytes_that_are_not_utf8_decode_with_replacement() -> None:
    assert decode_output(b"caf\xe9 \xff ok") == "caf\ufffd \ufffd ok"
    assert decode_output(None) == ""
    assert decode_output("x\ud800") == "x\ufffd"


def test_terminal_text_shows_escape_sequences_instead_of_sending_them() -> None:
    title = "\x1b]0;owned\x07\x1b[2Jreal\ttext\nnext\x9b"
    assert terminal_text(title) == "\\x1b]0;owned\\x07\\x1b[2Jreal\ttext\nnext\\x9b"
    assert terminal_text("clean ▶ line") == "clean ▶ line"


# -- in an output file (JUnit XML, the HTML report, the JSON summary) ----------------------------------
def test_terminal_text_cuts_a_line_quoting_outside_output_as_files_are() -> None:
    assert terminal_text("x" * 10 + "\x1b[2J", limit=4) == "xxxx… [truncated: 10 more characters]"
    assert terminal_text("x" * 10 + "\x1b", limit=10) == "xxxxxxxxxx… [truncated: 1 more characters]"
    big = "y" * (MAX_OUTPUT_CHARS + 5)
    assert terminal_text(big, limit=MAX_OUTPUT_CHARS) == output_text(big), "one cut for the console and files"
    assert terminal_text(big) == big, "output asked for whole (a snapshot) is not cut"


def test_output_text_drops_ansi_styling_and_shows_other_controls_escaped() -> None:
    coloured = "\x1b[31mboom\x1b[0m \x1b]0;title\x07end \x01\x02\x7f\x9b tab\tnew\nline\r\n"
    assert output_text(coloured) == "boom end \\x01\\x02\\x7f\\x9b tab\tnew\nline\r\n"
    assert output_text("x\ufffe\uffffy") == "x\\ufffe\\uffffy"
    assert output_text("clean ▶ line <&> ]]>") == "clean ▶ line <&> ]]>"


def test_output_text_makes_surrogates_and_bytes_valid() -> None:
    assert output_text("Hi \ud83d") == "Hi \ufffd"
    assert output_text(b"caf\xe9 \x1b[1mok") == "caf\ufffd ok"
    assert output_text(bytearray(b"\xff")) == "\ufffd"
    assert output_text("\ud83d\ude00") == "😀"  # the boundary's rule: a pair is the character it encodes
    assert output_text(42) == "42"
    output_text("a\udfff\x00").encode("utf-8")


def test_output_text_cuts_long_strings_with_a_marker() -> None:
    long = "x" * (MAX_OUTPUT_CHARS + 10)
    assert output_text(long) == "x" * MAX_OUTPUT_CHARS + "… [truncated: 10 more characters]"
    assert output_text("abcdef", limit=2) == "ab… [truncated: 4 more characters]"
    assert output_text(long, limit=None) == long
    assert truncated("short", 10) == "short"


def test_output_value_walks_keys_values_and_sequences() -> None:
    value = {"k\x01": ["\x1b[31mred\x1b[0m", ("t\ud800",)], "n": 1, 2: None}
    assert output_value(value) == {"k\\x01": ["red", ("t\ufffd",)], "n": 1, 2: None}
    cut = "… [truncated: 4 more characters]"
    assert output_value({"abcdef": ["ghijkl"]}, limit=2) == {"ab" + cut: ["gh" + cut]}
    json.dumps(output_value(value), ensure_ascii=False).encode("utf-8")


def test_capped_only_shortens_strings_and_keeps_the_rest_as_it_was() -> None:
    entry = {"long" * 3: ["abcdef", {"in": "\x1b[0mxyz"}], "n": 3}
    assert capped(entry, 4) == {"longlonglong": ["abcd… [truncated: 2 more characters]",
                                                 {"in": "\x1b[0m… [truncated: 3 more characters]"}], "n": 3}


def test_a_container_holding_itself_is_left_to_its_encoder() -> None:
    loop: list[object] = ["\x01"]
    loop.append(loop)
    out = output_value(loop)
    assert out[0] == "\\x01"  # nothing recursed without end
