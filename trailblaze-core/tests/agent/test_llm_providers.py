"""The built-in provider types against a loopback server, through the real openai/anthropic clients."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trailblaze.config import WorkspaceConfig
from trailblaze.errors import BadInputError
from trailblaze.llm import LlmMessage, LlmRequest, LlmToolCall, ProviderError, ProviderSpec, resolve_model
from trailblaze.llm.anthropic_provider import AnthropicProvider
from trailblaze.llm.openai_provider import OpenAICompatibleProvider, OpenAIProvider
from trailblaze.llm.registry import LlmProviderRegistry
from trailblaze.llm.types import LlmImage
from trailblaze.testing.llm import Reply, call, calls, http_error

TOOLS = [{"name": "app_tap", "description": "Tap.", "parameters": {
    "type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]}}]


def request(**kw: object) -> LlmRequest:
    history = [
        LlmMessage("user", "Step 1 of 1: sign in"),
        LlmMessage("assistant", "tapping", [LlmToolCall("c1", "app_tap", {"ref": "e2"})]),
        LlmMessage("tool", "tapped 'Sign in'", tool_call_id="c1", tool_name="app_tap"),
        LlmMessage("user", "Current screen:\n[e1] \"Email\"", images=[LlmImage(b"\x89PNGfake")]),
    ]
    return LlmRequest(model="scripted", system="be brief", messages=history, tools=TOOLS, **kw)  # type: ignore[arg-type]


def test_openai_compatible_round_trip_with_the_real_client(llm_server) -> None:
    server = llm_server([calls(("app_tap", {"ref": "e1"}), ("objectiveStatus", {"status": "COMPLETED"}), text="ok")])
    spec = ProviderSpec(type="openai_compatible", base_url=server.openai_base_url, headers={"x-team": "qa"})
    provider = OpenAICompatibleProvider("fake", spec, "sk-test-key")
    try:
        response = provider.complete(request(temperature=0.2))
    finally:
        provider.close()
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("app_tap", {"ref": "e1"}), ("objectiveStatus", {"status": "COMPLETED"})]
    assert response.text == "ok" and response.usage.input_tokens == 1000 and response.usage.output_tokens == 50
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test-key" and sent.headers["x-team"] == "qa"
    body = sent.body
    assert body["tool_choice"] == "required" and body["temperature"] == 0.2 and body["max_tokens"] == 4096
    assert body["tools"] == [{"type": "function", "function": TOOLS[0]}]
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    assert body["messages"][2]["tool_calls"][0]["function"] == {"name": "app_tap", "arguments": '{"ref": "e2"}'}
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "tapped 'Sign in'"}
    image = body["messages"][4]["content"][1]
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith("data:image/png;base64,")
    assert "sk-test-key" not in sent.text


def test_the_scripted_server_answers_after_its_latency_and_refuses_a_negative_one(llm_server) -> None:
    from trailblaze.testing.llm import ScriptedLlmServer

    with pytest.raises(ValueError, match="latency_ms must be 0 or more"):
        ScriptedLlmServer([], latency_ms=-1)
    server = llm_server([call("app_tap", ref="e1")], latency_ms=20)
    provider = OpenAICompatibleProvider("slow", ProviderSpec(type="openai_compatible", base_url=server.openai_base_url),
                                        None)
    try:
        response = provider.complete(request())
    finally:
        provider.close()
    assert server.latency_ms == 20 and len(server.requests) == 1
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("app_tap", {"ref": "e1"})]


def test_openai_custom_chat_completions_path(llm_server) -> None:
    server = llm_server([call("app_tap", ref="e1")])
    spec = ProviderSpec(type="openai_compatible", base_url=server.root_url,
                        chat_completions_path="serving-endpoints/{{model_id}}/invocations")
    provider = OpenAICompatibleProvider("gw", spec, None)
    try:
        provider.complete(request())
    finally:
        provider.close()
    assert server.requests[0].path == "/serving-endpoints/scripted/invocations"


def test_openai_type_uses_max_completion_tokens(llm_server) -> None:
    server = llm_server([call("app_tap", ref="e1")])
    provider = OpenAIProvider("openai", ProviderSpec(base_url=server.openai_base_url), "k")
    try:
        provider.complete(request())
    finally:
        provider.close()
    assert server.requests[0].body["max_completion_tokens"] == 4096 and "max_tokens" not in server.requests[0].body


UNION_TOOLS = [{"name": "api_post", "description": "Post.", "parameters": {
    "type": "object", "properties": {"body": {"anyOf": [{"type": "object"}, {"type": "array", "items": {}}]},
                                     "n": {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": 1}}}}]


@pytest.mark.parametrize("unions", ["anyOf", "describe"])
def test_union_parameters_reach_openai_and_anthropic_as_any_of_or_the_described_fallback(
        llm_server, unions: str) -> None:
    server = llm_server([call("api_post", body=[1]), call("api_post", body={"a": 1})])
    openai = OpenAICompatibleProvider("gw", ProviderSpec(type="openai_compatible", base_url=server.openai_base_url,
                                                         schema_unions=unions), None)
    anthropic = AnthropicProvider("anthropic", ProviderSpec(base_url=server.anthropic_base_url,
                                                            schema_unions=unions), "ant-key")
    try:
        for provider in (openai, anthropic):
            provider.complete(LlmRequest(model="scripted", system="s", messages=[LlmMessage("user", "post")],
                                         tools=UNION_TOOLS))
    finally:
        openai.close()
        anthropic.close()
    sent = [server.requests[0].body["tools"][0]["function"]["parameters"],
            server.requests[1].body["tools"][0]["input_schema"]]
    for schema in sent:
        if unions == "anyOf":
            assert schema == UNION_TOOLS[0]["parameters"]
        else:
            assert "anyOf" not in json.dumps(schema)
            assert schema["properties"]["n"] == {"default": 1, "description": "One of: integer, string."}
    assert "anyOf" in json.dumps(UNION_TOOLS)  # the agent's (cached) descriptors are left as they are


def test_anthropic_round_trip_with_the_real_client(llm_server) -> None:
    reply = calls(("app_tap", {"ref": "e1"}), text="thinking")
    reply.cached_input_tokens = 200
    reply.cache_write_tokens = 300
    server = llm_server([reply])
    provider = AnthropicProvider("anthropic", ProviderSpec(base_url=server.anthropic_base_url), "ant-key")
    try:
        response = provider.complete(request())
    finally:
        provider.close()
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("app_tap", {"ref": "e1"})]
    assert response.text == "thinking"
    # input counts every input token: fresh (500), read from the cache (200) and written to it (300)
    assert (response.usage.input_tokens, response.usage.cached_input_tokens, response.usage.cache_write_tokens) == \
        (1000, 200, 300)
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert "ant-key" in (sent.headers.get("x-api-key"), sent.headers.get("authorization", "").removeprefix("Bearer "))
    body = sent.body
    # The system block closes the static prefix (tools, then system) and is marked for the prompt cache.
    assert body["system"] == [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]
    assert body["tool_choice"] == {"type": "any"}
    assert body["tools"] == [{"name": "app_tap", "description": "Tap.", "input_schema": TOOLS[0]["parameters"]}]
    # Strict alternation: the tool result and the new screen share one user turn.
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][1] == {"type": "tool_use", "id": "c1", "name": "app_tap",
                                                 "input": {"ref": "e2"}}
    kinds = [b["type"] for b in body["messages"][2]["content"]]
    assert kinds == ["tool_result", "text", "image"]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_http_errors_become_provider_errors(llm_server, wire: str) -> None:
    server = llm_server([http_error(429, "slow down", retry_after=0), http_error(401, "bad key"),
                         http_error(503, "overloaded")])
    if wire == "openai":
        provider: object = OpenAICompatibleProvider("p", ProviderSpec(base_url=server.openai_base_url), None)
    else:
        provider = AnthropicProvider("p", ProviderSpec(base_url=server.anthropic_base_url), "k")
    try:
        with pytest.raises(ProviderError) as rate:
            provider.complete(request())  # type: ignore[attr-defined]
        with pytest.raises(ProviderError) as auth:
            provider.complete(request())  # type: ignore[attr-defined]
        with pytest.raises(ProviderError) as down:
            provider.complete(request())  # type: ignore[attr-defined]
    finally:
        provider.close()  # type: ignore[attr-defined]
    assert rate.value.retryable and rate.value.status == 429 and rate.value.retry_after == 0
    assert "slow down" in rate.value.message
    assert not auth.value.retryable and "HTTP 401" in auth.value.message and "bad key" in auth.value.message
    assert down.value.retryable and down.value.status == 503


def test_malformed_arguments_are_reported_not_raised(llm_server) -> None:
    server = llm_server([Reply(tool_calls=[("app_tap", '{"ref": "e1"'), ("app_tap", "[1, 2]")])])
    provider = OpenAICompatibleProvider("p", ProviderSpec(base_url=server.openai_base_url), None)
    try:
        response = provider.complete(request())
    finally:
        provider.close()
    first, second = response.tool_calls
    assert first.arguments is None and "not valid JSON" in (first.parse_error or "")
    assert second.arguments is None and "must be a JSON object" in (second.parse_error or "")


def test_an_answer_that_is_no_chat_completion_is_a_retryable_malformed_response() -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    answers = [(b'{"id": "x", "object": "chat.completion"}', "application/json"),
               (b'["a", "list"]', "application/json"), (b"<html>gateway</html>", "text/html")]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers["content-length"]))
            body, kind = answers.pop(0)
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    provider = OpenAICompatibleProvider("gw", ProviderSpec(base_url=f"http://127.0.0.1:{server.server_port}/v1"), None)
    errors = []
    try:
        for _ in range(3):
            with pytest.raises(ProviderError) as err:
                provider.complete(request())
            errors.append(err.value)
    finally:
        provider.close()
        server.shutdown()
        server.server_close()
    assert all(e.retryable for e in errors)
    assert "answered without choices" in errors[0].message and '"chat.completion"' in errors[0].message
    assert "sent a malformed response" in errors[1].message and "sent a malformed response" in errors[2].message
    assert "gateway" in errors[2].message


def test_unreachable_server_is_retryable() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    provider = OpenAICompatibleProvider("p", ProviderSpec(base_url=f"http://127.0.0.1:{port}/v1", timeout_seconds=5),
                                        None)
    try:
        with pytest.raises(ProviderError) as err:
            provider.complete(request())
    finally:
        provider.close()
    assert err.value.retryable and "unreachable" in err.value.message


def _tls_context(provider: object) -> object:
    """The TLS context of the connection pool behind a provider's SDK client (httpx2's transport)."""
    return provider._client()._client._transport._pool._ssl_context  # type: ignore[attr-defined]


def test_the_providers_share_one_tls_context_per_process_and_still_own_their_clients(
        llm_server, monkeypatch: pytest.MonkeyPatch) -> None:
    from trailblaze.llm.tls import shared_ssl_context

    server = llm_server([call("app_tap", ref="e1"), call("app_tap", ref="e2")])
    openai = OpenAICompatibleProvider("gw", ProviderSpec(base_url=server.openai_base_url), None)
    anthropic = AnthropicProvider("anthropic", ProviderSpec(base_url=server.anthropic_base_url), "ant-key")
    try:
        answers = [provider.complete(request()) for provider in (openai, anthropic)]
        contexts = [_tls_context(openai), _tls_context(anthropic)]
        clients = [openai._client()._client, anthropic._client()._client]
    finally:
        openai.close()
        anthropic.close()
    assert [r.tool_calls[0].arguments for r in answers] == [{"ref": "e1"}, {"ref": "e2"}]
    assert contexts[0] is contexts[1] is shared_ssl_context()  # built once: the CA bundle is not read again
    assert all(client.is_closed for client in clients)  # each provider's HTTP client is its own, closed with it
    # A trust setting read from the environment (as the HTTP library reads it) gets a context of its own.
    import certifi

    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    other = OpenAICompatibleProvider("gw", ProviderSpec(base_url=server.openai_base_url), None)
    try:
        assert _tls_context(other) is shared_ssl_context() is not contexts[0]
    finally:
        other.close()


# -- configuration ------------------------------------------------------------------------------------------
def types() -> LlmProviderRegistry:
    registry = LlmProviderRegistry()
    for cls in (OpenAIProvider, OpenAICompatibleProvider, AnthropicProvider):
        registry.add_provider(cls)
    return registry


def ws_with(tmp_path: Path, text: str) -> WorkspaceConfig:
    from trailblaze.config import load_workspace
    from trailblaze.testing import new_host

    (tmp_path / "trails" / "config").mkdir(parents=True, exist_ok=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text(text)
    return load_workspace(tmp_path, new_host())


@pytest.fixture
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("TRAILBLAZE_HOME", str(home))
    monkeypatch.delenv("TRAILBLAZE_DEFAULT_MODEL", raising=False)
    return home


def test_no_model_is_configured_by_default(tmp_path: Path, no_user_config: Path) -> None:
    assert resolve_model(ws_with(tmp_path, ""), types(), env={}) is None
    assert resolve_model(WorkspaceConfig(root=tmp_path), types(), env={}) is None


def test_model_choice_layers(tmp_path: Path, no_user_config: Path) -> None:
    no_user_config.mkdir(parents=True)
    (no_user_config / "trailblaze.yaml").write_text(
        "llm:\n  providers:\n    corp:\n      type: openai_compatible\n      base_url: http://127.0.0.1:9/v1\n"
        "      auth: {env_var: CORP_KEY}\n      models: [{id: big, context_length: 5000, vision: true}]\n"
        "  defaults: {model: corp/big}\n")
    ws = ws_with(tmp_path, "llm:\n  providers:\n    corp:\n      headers: {x-team: qa}\n"
                           "      models: [{id: big, temperature: 0.1}]\n")
    env = {"CORP_KEY": "k1", "OPENAI_API_KEY": "k2"}
    chosen = resolve_model(ws, types(), env=env)
    assert chosen is not None and chosen.ref == "corp/big" and chosen.api_key == "k1"
    assert chosen.model.context_length == 5000 and chosen.model.temperature == 0.1 and chosen.vision
    assert chosen.provider.headers == {"x-team": "qa"} and chosen.provider.base_url == "http://127.0.0.1:9/v1"
    env_choice = resolve_model(ws, types(), env={**env, "TRAILBLAZE_DEFAULT_MODEL": "openai/gpt-4.1-mini"})
    assert env_choice is not None and env_choice.ref == "openai/gpt-4.1-mini"
    assert env_choice.model.cost is not None and env_choice.model.cost.input_per_million == 0.4  # built-in pricing
    cli = resolve_model(ws, types(), cli_llm="anthropic/claude-haiku-4-5",
                        env={**env, "ANTHROPIC_API_KEY": "k3", "TRAILBLAZE_DEFAULT_MODEL": "openai/gpt-4.1"})
    assert cli is not None and cli.ref == "anthropic/claude-haiku-4-5" and cli.source == "--llm"
    assert resolve_model(ws, types(), cli_llm="none", env=env) is None


def test_workspace_defaults_llm_and_bare_model_ids(tmp_path: Path, no_user_config: Path) -> None:
    ws = ws_with(tmp_path, "defaults: {llm: local-1}\nllm:\n  providers:\n    ollama:\n      type: openai_compatible\n"
                           "      base_url: http://127.0.0.1:11434/v1\n      models: [{id: local-1}]\n")
    chosen = resolve_model(ws, types(), env={})
    assert chosen is not None and chosen.ref == "ollama/local-1" and chosen.api_key is None
    assert chosen.context_length == 131_072 and chosen.max_output_tokens == 8_192


def test_provider_files(tmp_path: Path, no_user_config: Path) -> None:
    (tmp_path / "trails" / "config" / "providers").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "providers" / "gw.yaml").write_text(
        "provider_id: gw\ntype: openai_compatible\nbase_url: http://127.0.0.1:9/v1\ndefault_model: m1\n")
    ws = ws_with(tmp_path, "providers:\n  - ref: /providers/gw.yaml\n  - {provider_id: inline, type: anthropic}\n"
                           "llm: {defaults: {model: gw}}\n")
    chosen = resolve_model(ws, types(), env={})
    assert chosen is not None and chosen.ref == "gw/m1"
    inline = resolve_model(ws, types(), cli_llm="inline/claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": "x"})
    assert inline is not None and inline.provider_cls is AnthropicProvider


@pytest.mark.parametrize(("config", "cli", "env", "message"), [
    ("", "nobody/model", {}, "unknown LLM model 'nobody/model'"),
    ("", "openai/gpt-4.1", {}, "needs an API key in the environment variable OPENAI_API_KEY"),
    ("llm: {providers: {x: {type: openai_compatible}}}\n", "x/m", {}, "needs 'base_url'"),
    ("llm: {providers: {x: {type: martian, base_url: http://h}}}\n", "x/m", {}, "type 'martian', which no installed"),
    ("llm: {providers: {openai: {enabled: false}}}\n", "openai/gpt-4.1", {"OPENAI_API_KEY": "k"}, "is disabled"),
])
def test_configuration_errors_say_what_to_do(tmp_path: Path, no_user_config: Path, config: str, cli: str,
                                             env: dict[str, str], message: str) -> None:
    with pytest.raises(BadInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve_model(ws_with(tmp_path, config), types(), cli_llm=cli, env=env)


def test_llm_section_errors_name_file_line_and_key(tmp_path: Path, no_user_config: Path) -> None:
    from trailblaze.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        ws_with(tmp_path, "llm:\n  providers:\n    x:\n      type: openai_compatible\n      base_urll: http://h\n")
    assert "trailblaze.yaml:5:7" in str(err.value) and "providers.x.base_urll" in str(err.value)


def test_cost_from_pricing() -> None:
    from trailblaze.llm import CostSpec

    cost = CostSpec(input_per_million=2.0, output_per_million=8.0, cached_input_per_million=0.5)
    assert cost.cost(1_000_000, 0) == pytest.approx(2.0)
    assert cost.cost(1_000_000, 1_000_000, cached_input_tokens=500_000) == pytest.approx(1.0 + 0.25 + 8.0)
    # cache writes at their own price (Anthropic: 1.25 x input), else at the input price
    assert cost.cost(1_000_000, 0, cache_write_tokens=1_000_000) == pytest.approx(2.0)
    written = CostSpec(input_per_million=2.0, cache_write_per_million=2.5)
    assert written.cost(1_000_000, 0, cached_input_tokens=0, cache_write_tokens=400_000) == pytest.approx(1.2 + 1.0)
    assert json.dumps(cost.model_dump())  # serialisable for logs
