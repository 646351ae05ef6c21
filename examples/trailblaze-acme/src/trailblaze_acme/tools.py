"""Acme's tools. Class-backed tools are pydantic models: fields are the parameters the model sees."""

from __future__ import annotations

from pydantic import Field

from trailblaze import Tool, ToolContext, ToolResult


class GreetTool(Tool):
    """Compose a greeting for a person and remember it as ``greeting`` for later steps."""

    name = "acme_greet"
    toolsets = ("acme",)

    person: str = Field(..., min_length=1, description="Who to greet.")
    punctuation: str = Field("!", max_length=3, description="What ends the greeting.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        greeting = f"Hello, {self.person}{self.punctuation}"
        ctx.memory.remember("greeting", greeting)
        return ToolResult.ok(greeting)


class VerifyGreetingTool(Tool):
    """Check that the remembered greeting is exactly ``expected``."""

    name = "acme_verifyGreeting"
    is_verification = True
    toolsets = ("acme",)

    expected: str = Field(..., description="The greeting that should have been composed.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        actual = ctx.memory.get("greeting")
        if actual != self.expected:
            return ToolResult.fail(f"expected greeting {self.expected!r}, got {actual!r}")
        return ToolResult.ok("greeting matches")
