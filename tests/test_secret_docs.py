"""The docs show secrets passed by name: no agent config, CI recipe or `trailblaze mcp` line in the docs
holds a secret value (teams copy them into committed files)."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
VALUE_ON_THE_COMMAND_LINE = re.compile(r"--secret[= ]+\w+=(?!value\b|V\b|VALUE\b|…)\S")  # placeholders allowed


def test_agent_configs_and_ci_recipes_never_hold_a_secret_value() -> None:
    text = (DOCS / "mcp-server.md").read_text(encoding="utf-8")
    offenders = [line for line in text.splitlines() if VALUE_ON_THE_COMMAND_LINE.search(line)]
    assert offenders == []
    assert "--secret-env password=SHOP_PASSWORD" in text and "--secrets-file" in text
    for doc in ("mcp-server.md", "cli.md", "reliability.md"):
        lines = (DOCS / doc).read_text(encoding="utf-8").splitlines()
        assert [ln for ln in lines if "secret123" in ln and "export SHOP_PASSWORD" not in ln] == [], doc
