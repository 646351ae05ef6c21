"""A parameter declared sensitive (it takes secrets) is recognised from every tool source's declaration,
and the run's one redaction point covers every encoded form of a secret."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from trailblaze.memory import Memory, Redactor
from trailblaze.tools.base import Tool
from trailblaze.tools.params import ParameterSchema


class TypePassword(Tool):
    """Type a password."""

    name: ClassVar[str] = "typePassword"
    field: str = Field(..., description="The field.")
    value: str = Field(..., description="The password.", json_schema_extra={"sensitive": True})


def test_class_and_mcp_declarations_mark_a_parameter_sensitive() -> None:
    schema = TypePassword.definition().parameters()
    assert schema is not None
    assert [p.name for p in schema if p.sensitive] == ["value"]
    # The flag is Trailblaze's own: descriptors sent to a model or an MCP client do not carry it.
    assert "sensitive" not in str(schema.json_schema(for_llm=True))

    mcp = ParameterSchema.from_json_schema({"type": "object", "properties": {
        "user": {"type": "string"}, "password": {"type": "string", "sensitive": True}}})
    assert [p.name for p in mcp if p.sensitive] == ["password"]


def test_memory_names_the_secret_tokens_in_arguments() -> None:
    memory = Memory.seeded(cli_memory={"email": "a@b.c"}, secrets={"password": "pw"})
    args = {"url": "https://x/?p={{password}}", "nested": [{"v": "${memory.password}"}], "e": "{{email}}"}
    assert memory.secret_tokens(args) == ["{{password}}", "${memory.password}"]


def test_the_redactor_covers_every_session_and_every_encoding() -> None:
    secret = 'p&ss"wörd <x>'
    redactor = Redactor(["cli-secret"])
    memory = Memory()
    redactor.watch(memory)
    memory.remember("later", secret, sensitive=True)  # registered mid-run (web_fillSecret does this)
    import html
    import json
    from urllib.parse import quote, quote_plus

    for form in (secret, html.escape(secret), json.dumps(secret)[1:-1], quote(secret, safe=""), quote_plus(secret)):
        assert redactor(f"before {form} after") == "before *** after"
    assert redactor({"a": ["x cli-secret y"], "b": ("cli-secret",)}) == {"a": ["x *** y"], "b": ("***",)}
    assert Redactor()("nothing to hide") == "nothing to hide"


def test_a_plugins_unexpected_error_is_redacted_too(tmp_path, plugin_host) -> None:  # type: ignore[no-untyped-def]
    from trailblaze import hookimpl
    from trailblaze.testing import register_plugin, run_cli

    class Careless:
        @hookimpl
        def trailblaze_register_tools(self, registry) -> None:  # type: ignore[no-untyped-def]
            raise RuntimeError("the token pw-771-secret was rejected")

    (tmp_path / "a.trail.yaml").write_text("trail:\n  - step: wait\n    recording:\n      host:\n        - wait: {}\n")
    with register_plugin(plugin_host, Careless()):
        result = run_cli(["run", str(tmp_path), "--output-dir", str(tmp_path / "out"), "--secret", "t=pw-771-secret"],
                         host=plugin_host)
    assert result.exit_code == 2, result.output
    # A plugin's own exception is reported as that plugin's failure, through the run's redaction point.
    assert "plugin 'Careless' failed in trailblaze_register_tools: RuntimeError: the token *** was rejected" \
        in result.output
    assert "pw-771-secret" not in result.output
