"""Selector text patterns: full match then literal equality, Java syntax, and the two dialects."""

from __future__ import annotations

import pytest
from trailblaze_driver_android.appium.patterns import escape_for_selector, lenient_pattern, matches

# (pattern, text, native dialect, maestro dialect)
CASES = [
    ("Submit", "Submit", True, True),
    ("ok", "book", False, False),  # full match, never substring
    (".*Charge.*", "Charge $5.00", True, True),
    (r"\d+\.\d{2}", "12.50", True, True),
    ("Yes|No", "No", True, True),
    ("submit", "SUBMIT", False, True),  # native is case-sensitive, Maestro is not
    (r"^Charge \$5$", "Charge $5", True, True),
    ("$3.00", "$3.00", True, True),  # valid but unmatchable regex: literal fallback
    ("$3.00", "$4.00", False, False),
    ("$3.00", "Charge $3.00", False, False),
    ("$1,000", "$1,000", True, True),
    ("abc", "ABC", False, True),  # the literal fallback itself is case-sensitive
    ("[unclosed", "[unclosed", True, True),  # invalid regex: literal only (native) / escaped literal (Maestro)
    ("[unclosed", "[UNCLOSED", False, True),
    ("+47 Points", "+47 Points", True, True),
    ("+47 points", "+47 POINTS", False, True),
    ("Poutine, Large, Olives (+$1.00) ($1.00)", "Poutine, Large, Olives (+$1.00) ($1.00)", True, True),
    ("${ticketName}", "${ticketName}", True, True),
    (r"\Q$3.00\E", "$3.00", True, True),  # Java quoting
    (r"\Q$3.00\E", "$4.00", False, False),
    (r"Charge \Q$\E\d+\.\d{2}", "Charge $12.50", True, True),
    (r"\Q$5.00", "$5.00", True, True),  # unterminated \Q quotes to the end
    (r"\\Qa\.b", r"\Qa.b", True, True),  # an escaped backslash does not start a quote
    (r"\Q$3.00\E", r"\Q$3.00\E", True, True),
    ("(?i)submit", "SUBMIT", True, True),
    ("(?s).+", "line1\nline2", True, True),
    ("(?is)a.b", "A\nB", True, True),
    (".+", "line1\nline2", False, True),  # Maestro: DOTALL
    ("", "", True, True),
    ("", "x", False, False),
    ("Café", "Café", True, True),
    ("✓ Done", "✓ Done", True, True),
    ("(?-i)Pizza", "Pizza", True, True),
    ("(?-i)Pizza", "PIZZA", False, False),  # leading (?-i) restores case in the Maestro dialect
    (".*^line2$", "line1\nline2", False, True),  # Maestro: MULTILINE
    ("ok", "book\nok", False, False),
    ("(?m)^ok$", "book\nok", False, False),  # full-input matching stays absolute
    ("(?i:pizza)", "PIZZA", True, True),
    ("(?s-i)a.b", "a\nb", True, True),
    ("(?s-i)a.b", "A\nB", False, False),
    ("(?x)abc", "abc", True, True),
    (r"\p{L}+", "abc", True, True),  # Unicode properties (via the regex package)
    (r"\p{L}+", "123", False, False),
    (r"foo\E", "fooE", False, False),  # a stray \E is a syntax error, not an identity escape
    (r"foo\E", r"foo\E", True, True),
    ("a(?i)b", "aB", True, True),  # mid-pattern flags apply to the rest of the group
    ("a(?i)b", "AB", False, True),
    ("(?<word>x)\\k<word>", "xx", True, True),  # named groups, Java spelling
    (r"end\z", "end", True, True),
    (r"[a-z&&[^aeiou]]+", "bcd", True, True),  # Java class intersection
    (r"[a-z&&[^aeiou]]+", "bad", False, False),
]


@pytest.mark.parametrize(("pattern", "text", "native", "maestro"), CASES)
def test_pattern_semantics(pattern: str, text: str, native: bool, maestro: bool) -> None:
    assert matches(pattern, text) is native
    assert matches(pattern, text, maestro=True) is maestro


def test_escape_for_selector_quotes_only_metacharacters() -> None:
    assert escape_for_selector("Sign in") == "Sign in"
    assert escape_for_selector("$3.00") == r"\Q$3.00\E"
    assert matches(escape_for_selector("a.b (c)"), "a.b (c)")
    assert not matches(escape_for_selector("a.b"), "axb")


def test_lenient_pattern_is_case_insensitive_as_regex_or_literal() -> None:
    assert matches(lenient_pattern("sign IN"), "Sign in")
    assert matches(lenient_pattern("$5.00"), "$5.00")
    assert matches(lenient_pattern(".*debit 1582.*"), "Visa debit 1582 ending")
    assert not matches(lenient_pattern("Sign in"), "Sign in now")
