"""The one helper every boundary uses for outside text (see trailblaze/untrusted.py for why)."""

from __future__ import annotations

import json

from trailblaze.untrusted import decode_output, terminal_text, valid_data, valid_text


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
