"""One question to the session's model about the current screen, answered through a forced tool call.

Upstream's memory tools (``rememberText``, ``rememberWithAi``, ``assertWithAi``…) ask the model through
its ``ElementComparator`` (``TrailblazeElementComparator.kt``): the screen (view hierarchy, and a
screenshot for vision models) plus the prompt, with exactly one answer tool on offer (``booleanAssertion``
with ``result``/``reason``, ``stringEvaluation`` with ``result``/``reason``). This is the same shape over
the session's configured model, so the call is counted, priced and redacted like the agent's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import BadInputError
from ..llm.types import LlmMessage, LlmRequest
from ..session import session_of
from .model_calls import agent_state, capture_screen, complete_with_retries, redacted_request

if TYPE_CHECKING:
    from ..context import ToolContext

_BOOLEAN = {"name": "booleanAssertion", "description": "Answer whether the statement is true of the screen.",
            "parameters": {"type": "object", "properties": {
                "result": {"type": "boolean", "description": "true when the statement holds on this screen"},
                "reason": {"type": "string", "description": "what on the screen decided it"}},
                "required": ["result", "reason"]}}
_STRING = {"name": "stringEvaluation", "description": "Answer the question about the screen.",
           "parameters": {"type": "object", "properties": {
               "result": {"type": "string", "description": "just the specific information asked for"},
               "reason": {"type": "string", "description": "how it was determined"}},
               "required": ["result", "reason"]}}
_ELEMENT = {"name": "elementValue", "description": "The text of the one element the description points at.",
            "parameters": {"type": "object", "properties": {
                "found": {"type": "boolean", "description": "false when no element on the screen fits"},
                "value": {"type": "string",
                          "description": "the element's text exactly as the screen shows it"},
                "reason": {"type": "string"}},
                "required": ["found", "value"]}}

_SYSTEM = {
    "booleanAssertion": "You are a UI testing assistant that evaluates statements about the current "
                        "screen. Use the booleanAssertion tool to answer: is the statement true or false? "
                        "Explain why.",
    "stringEvaluation": "You are a UI testing assistant that answers questions about the current screen. "
                        "Use the stringEvaluation tool; answer briefly with just the specific information "
                        "asked for.",
    "elementValue": "You are a UI testing assistant. Find the one element of the current screen that the "
                    "description points at and answer with the elementValue tool: its text exactly as shown.",
}


@dataclass(frozen=True)
class Answer:
    result: Any
    reason: str
    screen: str
    """The screen text the model was shown (what an answer quoting the screen must be found in)."""


class NoModelError(BadInputError):
    """A tool that asks the model ran in a session with no model configured (exit 3)."""


def ask(ctx: ToolContext, kind: str, prompt: str) -> Answer:
    """Ask ``prompt`` of the model with the answer tool ``kind`` (``booleanAssertion``,
    ``stringEvaluation`` or ``elementValue``). A reply without the answer tool is a negative answer,
    as upstream treats it."""
    session = session_of(ctx)
    state = agent_state(session)
    if state is None:
        raise NoModelError("this tool asks the model about the screen and no model is configured: pass --llm "
                           "provider/model, set TRAILBLAZE_DEFAULT_MODEL, or llm.defaults.model in "
                           "trails/config/trailblaze.yaml")
    tool = {"booleanAssertion": _BOOLEAN, "stringEvaluation": _STRING, "elementValue": _ELEMENT}[kind]
    screen, image = capture_screen(ctx.driver, vision=state.model.vision)
    message = LlmMessage("user", f"{prompt}\n\nThe current screen:\n{screen}",
                         images=[image] if image else [])
    request = LlmRequest(model=state.model.model.id, system=_SYSTEM[kind], messages=[message], tools=[tool],
                         temperature=state.model.model.temperature, max_output_tokens=1024)
    response, duration, cost = complete_with_retries(state, redacted_request(request, session.memory),
                                                     hint=f"tool {ctx.chain[-1] if ctx.chain else kind}")
    session.log.write("LlmQueryLog", {"stepIndex": ctx.step_index, "answerTool": kind, "prompt": prompt,
                                      "durationMs": duration, "costUsd": cost,
                                      "toolCalls": [c.to_json() for c in response.tool_calls]})
    for call in response.tool_calls:
        if call.name == kind and call.arguments is not None:
            args = call.arguments
            reason = str(args.get("reason") or "")
            if kind == "elementValue":
                value = args.get("value")
                return Answer(str(value) if args.get("found") and value is not None else None, reason, screen)
            return Answer(args.get("result"), reason, screen)
    return Answer(None, "the model gave no answer", screen)
