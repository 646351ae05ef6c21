"""Fixtures for the agent tests: a scripted LLM server, an in-memory "app" with screens, a workspace.

The app is a ``MemoryDriver`` whose screen changes when tools act on it (``ScreensDriver``), with three
tools the model can call: ``app_tap`` (by ref or text), ``app_type`` and ``app_assertVisible``
(verification). Taps by ref record the element's text instead (``ToolResult.recorded_args``), because a
ref does not survive into the next run.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import Field

from trailblaze import hookimpl
from trailblaze.context import ToolContext
from trailblaze.driver import DeviceInfo, DriverRegistry
from trailblaze.plugins import PluginHost
from trailblaze.testing import MemoryDriver, MemoryDriverConfig, installed_host, new_host
from trailblaze.testing.llm import Reply, ScriptedLlmServer
from trailblaze.tools.base import Tool, ToolResult
from trailblaze.tools.registry import ToolRegistry

SCREENS: dict[str, list[str]] = {
    "home": ["Welcome", "Sign in", "Browse"],
    "login": ["Email", "Password", "Log in"],
    "account": ["Hello, ann", "Sign out"],
    "catalog": ["Blue mug", "Red mug", "Cart (0)"],
    "cart": ["Blue mug", "Cart (1)", "Checkout"],
}
TRANSITIONS: dict[tuple[str, str], str] = {
    ("home", "Sign in"): "login",
    ("login", "Log in"): "account",
    ("home", "Browse"): "catalog",
    ("catalog", "Blue mug"): "cart",
}


class ScreensConfig(MemoryDriverConfig):
    start: str = "home"


class ScreensDriver(MemoryDriver):
    """An app in memory: named screens, taps move between them, typing fills fields."""

    key = "screens"
    aliases = ("SCREENS",)
    platform = "memory"
    config_model = ScreensConfig
    default_classifiers = ("memory",)
    instances: ClassVar[list["ScreensDriver"]] = []

    def __init__(self, config: Any = None) -> None:
        super().__init__(config or ScreensConfig())
        self.screen = self.config.start if isinstance(self.config, ScreensConfig) else "home"
        self.elements = list(SCREENS[self.screen])
        self.typed: dict[str, str] = {}
        ScreensDriver.instances.append(self)

    def start(self, session: Any) -> DeviceInfo:
        info = super().start(session)
        return info

    def go(self, screen: str) -> None:
        self.screen = screen
        self.elements = list(SCREENS[screen])

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        """Like a careless app, fields show what was typed into them (secrets included)."""
        lines = []
        for i, text in enumerate(self.elements):
            value = self.typed.get(text)
            lines.append(f'[e{i + 1}] "{text}"' + (f' value="{value}"' if value is not None else ""))
        return "\n".join(lines)

    def screenshot(self) -> bytes | None:
        return b"\x89PNG\r\n\x1a\n" + self.screen.encode()


def _driver(ctx: ToolContext) -> ScreensDriver:
    driver = ctx.driver
    assert isinstance(driver, ScreensDriver)
    return driver


def _element(driver: ScreensDriver, ref: str) -> str | None:
    if ref.startswith("e") and ref[1:].isdigit():
        n = int(ref[1:])
        return driver.elements[n - 1] if 0 < n <= len(driver.elements) else None
    return ref if ref in driver.elements else None


class AppTap(Tool):
    """Tap an element: a ref from the screen (e.g. e2) or the element's exact text."""

    name = "app_tap"
    ref: str = Field(..., description="A ref from the screen (e.g. e2) or the element's exact text.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        driver = _driver(ctx)
        element = _element(driver, self.ref)
        if element is None:
            return ToolResult.fail(f"no element {self.ref!r} on screen '{driver.screen}'")
        driver.act("tap", element=element)
        nxt = TRANSITIONS.get((driver.screen, element))
        if nxt:
            driver.go(nxt)
        result = ToolResult.ok(f"tapped '{element}'")
        if element != self.ref:
            result.recorded_args = {"ref": element}  # refs do not survive into the next run; texts do
        return result


class AppType(Tool):
    """Type text into a field (by its label)."""

    name = "app_type"
    label: str = Field(..., description="The field's label, e.g. Email.")
    value: str = Field(..., description="The text to type; {{name}} inserts a remembered value.",
                       json_schema_extra={"sensitive": True})  # it types passwords too

    def execute(self, ctx: ToolContext) -> ToolResult:
        driver = _driver(ctx)
        if self.label not in driver.elements:
            return ToolResult.fail(f"no field '{self.label}' on screen '{driver.screen}'")
        driver.typed[self.label] = self.value
        driver.act("type", field=self.label, value=self.value)
        return ToolResult.ok(f"typed {len(self.value)} characters into {self.label}")


class AppAssertVisible(Tool):
    """Check that an element with this exact text is on the screen."""

    name = "app_assertVisible"
    is_verification = True
    text: str = Field(..., description="The exact text.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        driver = _driver(ctx)
        if self.text in driver.elements:
            return ToolResult.ok(f"'{self.text}' is visible")
        return ToolResult.fail(f"'{self.text}' is not visible on screen '{driver.screen}'")


class AppPlugin:
    @hookimpl
    def trailblaze_register_drivers(self, registry: DriverRegistry) -> None:
        registry.add_driver(ScreensDriver)

    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        for cls in (AppTap, AppType, AppAssertVisible):
            definition = cls.definition()
            from dataclasses import replace

            registry.add(replace(definition, drivers=frozenset({"screens"})))


@pytest.fixture
def app_host() -> Iterator[PluginHost]:
    """A fresh host (no installed plugins) with the in-memory app, installed process-wide."""
    ScreensDriver.instances.clear()
    host = new_host()
    host.register(AppPlugin(), name="test-app")
    with installed_host(host):
        yield host


@pytest.fixture
def llm_server() -> Iterator[Callable[..., ScriptedLlmServer]]:
    """``llm_server(script)`` starts a scripted server; every one is stopped after the test."""
    servers: list[ScriptedLlmServer] = []

    def start(script: Any, **kwargs: Any) -> ScriptedLlmServer:
        server = ScriptedLlmServer(script, **kwargs).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def llm_config(server: ScriptedLlmServer, *, wire: str = "openai_compatible", extra: str = "") -> str:
    """A ``trailblaze.yaml`` pointing the workspace's model at ``server``."""
    if wire == "anthropic":
        provider = f"""\
    anthropic:
      base_url: {server.anthropic_base_url}
      auth: {{env_var: TEST_ANTHROPIC_KEY, required: false}}
      retry_backoff_seconds: 0
      models:
        - id: scripted
          cost: {{input_per_million: 3.0, output_per_million: 15.0}}"""
        model = "anthropic/scripted"
    elif wire == "openai":
        provider = f"""\
    openai:
      base_url: {server.openai_base_url}
      auth: {{env_var: TEST_OPENAI_KEY, required: false}}
      retry_backoff_seconds: 0
      models:
        - id: scripted
          cost: {{input_per_million: 2.0, output_per_million: 8.0}}"""
        model = "openai/scripted"
    else:
        provider = f"""\
    fake:
      type: openai_compatible
      base_url: {server.openai_base_url}
      auth: {{env_var: TEST_FAKE_KEY, required: false}}
      retry_backoff_seconds: 0
      models:
        - id: scripted
          cost: {{input_per_million: 1.0, output_per_million: 2.0}}"""
        model = "fake/scripted"
    return f"llm:\n  providers:\n{provider}\n  defaults:\n    model: {model}\n{extra}"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """``workspace(config_text, {"a.trail.yaml": text})`` writes a workspace and returns its root.

    ``HOME``/``TRAILBLAZE_HOME`` point into the tmp dir so no user config leaks in."""
    monkeypatch.setenv("TRAILBLAZE_HOME", str(tmp_path / "home" / ".trailblaze"))
    monkeypatch.delenv("TRAILBLAZE_DEFAULT_MODEL", raising=False)
    monkeypatch.delenv("TRAILBLAZE_SELF_HEAL_ENABLED", raising=False)

    def write(config: str = "", trails: dict[str, str] | None = None) -> Path:
        root = tmp_path / "ws"
        (root / "trails" / "config").mkdir(parents=True, exist_ok=True)
        (root / "trails" / "config" / "trailblaze.yaml").write_text(config)
        for name, text in (trails or {}).items():
            (root / "trails" / name).write_text(textwrap.dedent(text))
        return root

    return write


@pytest.fixture
def tb_llm_config() -> Callable[..., str]:
    return llm_config


def reply_usage(reply: Reply, tokens_in: int, tokens_out: int) -> Reply:
    reply.input_tokens, reply.output_tokens = tokens_in, tokens_out
    return reply
