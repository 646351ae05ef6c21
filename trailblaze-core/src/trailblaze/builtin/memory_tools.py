"""Upstream's ``memory`` toolset: remember what the screen shows, compare it later.

Same names, parameters and messages as upstream's ``toolcalls/commands/memory/*TrailblazeTool.kt``:

* ``rememberText {prompt, variable}`` / ``rememberNumber {prompt, variable}``: the model points at one
  element; its text (for ``rememberNumber`` the first number in it) is stored under ``variable``.
  Upstream reads that text back from the view hierarchy, so here the answer must be text the screen
  shows, never something the model made up;
* ``rememberWithAi {prompt, variable}``: the model's short answer is stored;
* ``assertEquals`` / ``assertNotEquals {actual, expected}``: string comparison after memory
  interpolation (``{{x}}``, ``${x}``), which the dispatcher does before any tool runs;
* ``assertMath {expression, expected}``: the expression (``[[prompt]]`` parts first replaced by a number
  read off the screen) must evaluate to ``expected`` within 0.0001;
* ``assertWithAi {prompt}``: the model judges the statement true of the screen.

The AI parts go through :mod:`trailblaze.agent.screen_query` (imported when a tool runs).
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from ..tools.base import Tool, ToolResult

if TYPE_CHECKING:
    from ..context import ToolContext

_VARIABLE = Field(..., description="The memory key to store the value under.")
_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})*(?:\.\d+)?$|^-?\d+(?:\.\d+)?")
"""Upstream's ``NumberUtil.kt`` pattern, alternation and anchors as written."""
_EXTRACTION = re.compile(r"\[\[([^\]]+)\]\]")


def parse_number(text: str) -> str | None:
    """The first number upstream's ``parseNumberString`` finds, without thousands separators."""
    match = _NUMBER.search(text)
    return match.group(0).replace(",", "") if match else None


class _MemoryTool(Tool):
    toolsets = ("memory",)


def _element_text(ctx: ToolContext, prompt: str) -> str:
    from ..agent.screen_query import ask

    answer = ask(ctx, "elementValue", prompt)
    value = answer.result
    if not isinstance(value, str) or not value or not _on_screen(value, answer.screen):
        raise _Failure(f"Failed to find element for prompt: {prompt}")
    return value


def _on_screen(value: str, screen: str) -> bool:
    return value in screen or json.dumps(value, ensure_ascii=False)[1:-1] in screen


class _Failure(Exception):
    """A memory tool's failure message (the tool returns it as a failed result)."""


def _run(fn: Callable[[], ToolResult]) -> ToolResult:
    try:
        return fn()
    except _Failure as exc:
        return ToolResult.fail(str(exc))


class RememberTextTool(_MemoryTool):
    """Find text on the current screen using the natural-language prompt, then save it under the variable
    name for future test operations."""

    name = "rememberText"
    prompt: str = Field(..., description="Which text on the screen to remember.")
    variable: str = _VARIABLE

    def execute(self, ctx: ToolContext) -> ToolResult:
        def go() -> ToolResult:
            value = _element_text(ctx, self.prompt)
            ctx.memory.remember(self.variable, value)
            return ToolResult.ok(f"remembered {self.variable}")
        return _run(go)


class RememberNumberTool(_MemoryTool):
    """Find a number on the current screen using the natural-language prompt, then save it under the
    variable name for future test operations."""

    name = "rememberNumber"
    prompt: str = Field(..., description="Which number on the screen to remember.")
    variable: str = _VARIABLE

    def execute(self, ctx: ToolContext) -> ToolResult:
        def go() -> ToolResult:
            text = _element_text(ctx, self.prompt)
            number = parse_number(text)
            if number is None:
                raise _Failure(f"Failed to parse number for extracted value: {text} "
                               f"from prompt: {self.prompt}")
            ctx.memory.remember(self.variable, number)
            return ToolResult.ok(f"remembered {self.variable}")
        return _run(go)


class RememberWithAiTool(_MemoryTool):
    """Remember some data about the current screen using the natural-language prompt, then save it under
    the variable name for future test operations."""

    name = "rememberWithAi"
    prompt: str = Field(..., description="What to find out about the screen.")
    variable: str = _VARIABLE

    def execute(self, ctx: ToolContext) -> ToolResult:
        from ..agent.screen_query import ask

        answer = ask(ctx, "stringEvaluation", self.prompt)
        ctx.memory.remember(self.variable, "" if answer.result is None else str(answer.result))
        return ToolResult.ok(f"remembered {self.variable} ({answer.reason})" if answer.reason
                             else f"remembered {self.variable}")


class _Comparison(_MemoryTool):
    is_verification = True
    equal: ClassVar[bool]
    actual: str = Field(..., description="The value found (memory tokens like {{total}} allowed).")
    expected: str

    def execute(self, ctx: ToolContext) -> ToolResult:
        expected = self.expected
        if (self.actual == expected) != self.equal:
            if self.equal:
                return ToolResult.fail(f"Assertion failed: Expected '{expected}', but got '{self.actual}'")
            return ToolResult.fail(f"Assertion failed: Expected '{expected}' to NOT equal '{self.actual}'")
        return ToolResult.ok(f"'{self.actual}' {'equals' if self.equal else 'differs from'} '{expected}'")


class AssertEqualsTool(_Comparison):
    """Calculate the actual and expected values from the current screen state and assert they are
    equivalent."""

    name = "assertEquals"
    equal = True
    expected: str = Field(..., description="The value it must equal.")


class AssertNotEqualsTool(_Comparison):
    """Calculate the actual and expected values from the current screen state and assert they are NOT
    equivalent."""

    name = "assertNotEquals"
    equal = False
    expected: str = Field(..., description="The value it must differ from.")


class AssertMathTool(_MemoryTool):
    """Calculate the result of an expression and compare it to the expected output value."""

    name = "assertMath"
    is_verification = True
    expression: str = Field(..., description="Arithmetic (+ - * / ^ %, parentheses, abs/sqrt/...); "
                                             "[[a description]] is replaced by a number read off the screen.")
    expected: str = Field(..., description="The number the expression must evaluate to.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        def go() -> ToolResult:
            expression = self.expression
            for match in _EXTRACTION.finditer(self.expression):
                text = _element_text(ctx, match.group(1))
                number = parse_number(text)
                if number is None:
                    raise _Failure(f"Could not extract a numeric value for prompt: {match.group(1)}")
                expression = expression.replace(match.group(0), number)
            try:
                result = evaluate(expression)
                expected = float(self.expected)
            except (ValueError, ArithmeticError) as exc:
                raise _Failure(f"Math assertion failed: Error evaluating expression - {exc}") from None
            if abs(result - expected) > 0.0001:
                raise _Failure(f"Math assertion failed: Expression '{expression}' evaluated to {result}, "
                               f"expected {expected}")
            return ToolResult.ok(f"{expression} = {result:g}")
        return _run(go)


class AssertWithAiTool(_MemoryTool):
    """Interpolate the natural-language prompt with any included variables, then use the result to verify
    the current state of the screen with AI."""

    name = "assertWithAi"
    is_verification = True
    prompt: str = Field(..., description="A statement that must be true of the current screen.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        from ..agent.screen_query import ask

        answer = ask(ctx, "booleanAssertion", self.prompt)
        if answer.result is not True:
            because = f" ({answer.reason})" if answer.reason else ""
            return ToolResult.fail(f"AI assertion failed: {self.prompt}{because}")
        return ToolResult.ok(answer.reason or "the statement holds")


MEMORY_TOOLS: tuple[type[Tool], ...] = (RememberTextTool, RememberNumberTool, RememberWithAiTool,
                                        AssertEqualsTool, AssertNotEqualsTool, AssertMathTool, AssertWithAiTool)

MEMORY_CLASSES = {f"xyz.block.trailblaze.toolcalls.commands.memory.{cls}": name for cls, name in (
    ("RememberTextTrailblazeTool", "rememberText"), ("RememberNumberTrailblazeTool", "rememberNumber"),
    ("RememberWithAiTrailblazeTool", "rememberWithAi"), ("AssertEqualsTrailblazeTool", "assertEquals"),
    ("AssertNotEqualsTrailblazeTool", "assertNotEquals"), ("AssertMathTrailblazeTool", "assertMath"),
    ("AssertWithAiTrailblazeTool", "assertWithAi"))}
"""Upstream's class names of these tools (its ``*.tool.yaml`` files name them)."""


# -- arithmetic ---------------------------------------------------------------------------------------
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "abs": abs, "sqrt": math.sqrt, "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x), "floor": math.floor,
    "ceil": math.ceil, "exp": math.exp, "log": math.log, "log10": math.log10, "log2": math.log2,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan,
    "signum": lambda x: float((x > 0) - (x < 0))}


def evaluate(expression: str) -> float:
    """Arithmetic as upstream's exp4j reads it (``^`` is a power), nothing else: no names, no calls but
    the math functions. Raises ``ValueError`` for anything else."""
    try:
        tree = ast.parse(expression.replace("^", "**"), mode="eval")
    except SyntaxError:
        raise ValueError(f"'{expression}' is not an arithmetic expression") from None
    return float(_eval(tree.body))


def _eval(node: ast.AST) -> float:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left), _eval(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
            and not node.keywords):
        return float(_FUNCTIONS[node.func.id](*(_eval(a) for a in node.args)))
    if isinstance(node, ast.Name) and node.id in ("pi", "e"):
        return math.pi if node.id == "pi" else math.e
    raise ValueError(f"unsupported element in the expression: {ast.unparse(node)}")
