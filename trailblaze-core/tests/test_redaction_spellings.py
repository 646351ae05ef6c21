"""A secret the app spells differently (upper-cased, base64 in a Basic header, URL- or HTML-escaped) is
redacted in every output of a real run: JUnit, ``results.jsonl``, the event log and the console."""

from __future__ import annotations

import base64
import html
import sys
from pathlib import Path
from urllib.parse import quote

from trailblaze.memory import DERIVED_MIN_LENGTH, Redactor
from trailblaze.testing import run_cli

SECRET = "lowerSecret99"
ODD = "Tb&pa ss<9>/x"
"""A secret whose URL and HTML spellings differ from it."""

SPELLINGS = {
    "upper-cased": SECRET.upper(),
    "lower-cased": SECRET.lower(),
    "basic auth": base64.b64encode(f"user:{SECRET}".encode()).decode(),
    "base64 url-safe, no padding": base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("="),
    "base64 of the odd one": base64.b64encode(ODD.encode()).decode(),
    "url-encoded upper-cased": quote(ODD.upper(), safe=""),
    "html-escaped": html.escape(ODD),
}

APP = "\n".join(["import base64, html, sys", "from urllib.parse import quote",
                 "s, odd = sys.argv[1], sys.argv[2]",
                 "print('echo', s.upper(), s.lower())",
                 "print('Authorization: Basic', base64.b64encode(('user:' + s).encode()).decode())",
                 "print('token', base64.urlsafe_b64encode(s.encode()).decode().rstrip('='))",
                 "print('odd', base64.b64encode(odd.encode()).decode(), quote(odd.upper(), safe=''), html.escape(odd))",
                 "sys.exit(3)"])


def test_derived_spellings_are_redacted_in_every_output_of_a_run(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "t.trail.yaml").write_text(
        "config: {id: secrets/spellings}\ntrail:\n  - step: The app echoes the secret its own ways\n"
        "    recording:\n      host:\n"
        f"        - exec: {{argv: [{sys.executable}, app.py, '{{{{password}}}}', '{{{{odd}}}}']}}\n")
    result = run_cli(["run", "t.trail.yaml", "--output-dir", "out", "--junit-xml", "junit.xml",
                      "--secret", f"password={SECRET}", "--secret", f"odd={ODD}"], cwd=tmp_path)
    assert result.exit_code == 1, result.output
    outputs = {"console": result.output, "junit": (tmp_path / "junit.xml").read_text()}
    # The app ran and its output was masked on the way out ("user:" stays: its base64 is its own).
    assert "Authorization: Basic dXNlcjp***" in outputs["junit"] and "echo *** ***" in outputs["junit"]
    assert "exec: " in result.output
    outputs.update({str(p.relative_to(tmp_path)): p.read_text() for p in (tmp_path / "out").rglob("*")
                    if p.is_file() and p.suffix in (".jsonl", ".ndjson", ".json", ".yaml", ".html")})
    assert any(name.endswith("results.jsonl") for name in outputs), sorted(outputs)
    assert any(name.endswith(".ndjson") for name in outputs), sorted(outputs)
    leaks = [(kind, name) for kind, spelling in SPELLINGS.items() for name, text in outputs.items()
             if spelling in text]
    assert leaks == []


def test_short_secrets_are_matched_as_written_only() -> None:
    """Below ``DERIVED_MIN_LENGTH`` a case-blind or base64 match would hide ordinary words ("pin1" in
    "PIN1 is required"), so a short secret is matched as written and in its exact encodings only."""
    short = "Pin1"
    assert len(short) < DERIVED_MIN_LENGTH <= len(SECRET)
    redactor = Redactor([short, SECRET])
    assert redactor(f"{short} PIN1 {base64.b64encode(short.encode()).decode()}") == "*** PIN1 UGluMQ=="
    assert redactor(f"a {SECRET.swapcase()} b") == "a *** b"
    text = f"x={base64.b64encode(('ab' + SECRET).encode()).decode()}"  # at offset 2 of the encoded bytes
    assert SECRET not in redactor(text) and "***" in redactor(text)
