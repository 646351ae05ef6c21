"""What the model reads: the system prompt (base + platform + target + trail context) and the turn text.

Kept short on purpose: every character here is paid for on every call of every step, and the
benchmark (``benchmarks/bench_prompt_size.py``) holds the whole request to a fraction of the page's
raw accessibility snapshot plus every tool's descriptor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

OBJECTIVE_STATUS = "objectiveStatus"

BASE_SYSTEM_PROMPT = """\
You are Trailblaze, a UI test agent. You work on one test step at a time by calling tools.
Each turn shows the current screen as text, one element per line led by its ref (e.g. [e12]), \
and the tool calls you already made for this step with their results.
- Call tools to carry out the step exactly as written; do nothing beyond it.
- Use refs from the latest screen only: refs from earlier screens may no longer exist.
- In tool arguments, {{name}} inserts a remembered value (secrets are only available this way, and only in a \
parameter that takes secrets, such as a password field's value).
- When the step is done, call objectiveStatus with status COMPLETED. If it cannot be done, call \
objectiveStatus with status FAILED and say why. Never claim COMPLETED without checking the screen."""

VERIFY_PROMPT = """\
This step is a verification: check the statement with the verification tools and change nothing. \
A passing verification completes the step; a failing one fails it."""

PLATFORM_PROMPTS: dict[str, str] = {
    "web": "The app is a web page in a browser. Lines are accessibility nodes: role, name, state.",
    "android": "The app runs on an Android device. Lines are on-screen views: class, text, id, state.",
    "ios": "The app runs on an iOS device. Lines are on-screen elements: type, label, id, state.",
    "host": "There is no screen: only host tools (processes, services) are available.",
}

OBJECTIVE_STATUS_TOOL: dict[str, Any] = {
    "name": OBJECTIVE_STATUS,
    "description": "Report the current step's status: COMPLETED when it is done, FAILED when it cannot "
                   "be done, IN_PROGRESS to note progress and continue.",
    "parameters": {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["COMPLETED", "FAILED", "IN_PROGRESS"]},
            "explanation": {"type": "string", "description": "One sentence: what you saw or did."},
        },
        "required": ["status", "explanation"],
    },
}


def system_prompt(*, platform: str, verify: bool, target_prompts: Sequence[str] = (), context: str | None = None,
                  tools_text: str | None = None) -> str:
    """The static part of every request of a trail (with the tool list, the prefix providers cache): the
    agent passes ``verify=False`` and says "verify" in the step's own text, so the prefix holds across
    steps. ``tools_text`` is what the tool offer says once (shared parameters, tools by name)."""
    parts = [BASE_SYSTEM_PROMPT]
    platform_text = PLATFORM_PROMPTS.get(platform)
    if platform_text:
        parts.append(platform_text)
    if verify:
        parts.append(VERIFY_PROMPT)
    if tools_text:
        parts.append(tools_text)
    parts.extend(p.strip() for p in target_prompts if p and p.strip())
    if context and context.strip():
        parts.append("About this test:\n" + context.strip())
    return "\n\n".join(parts)


HEAL_WHOLE_STEP = ("What you do now becomes this step's whole recording, replayed next time from where the step "
                   "starts (right after the earlier steps), not from this screen: do everything the step says, "
                   "including what the failed recording may already have done.")
"""Self-heal: the step is re-solved whole, never spliced onto the broken recording's first calls (whose
effects the screen may show); the heal check (``runner/heal_check.py``) proves it from the step's start."""


def objective_text(*, step_text: str, verify: bool, number: int, total: int, earlier: Sequence[str],
                   memory: dict[str, str], secret_keys: Sequence[str], previous_failure: str | None = None,
                   heal: bool = False, actor: str | None = None) -> str:
    """The first user message of every request: the step, what came before, what is remembered (``heal``:
    the step's recording failed and the agent re-solves it whole; ``actor``: in a trail with several
    devices, whose device this is — said here, not in the system text, which stays the same for every
    step of the trail so providers can cache it)."""
    lines = [f"{'Verify' if verify else 'Step'} {number} of {total}: {step_text.strip()}"]
    if actor:
        lines.append(f"You are acting as {actor}: the screen is {actor}'s device only. Steps of other actors "
                     "run on their own devices.")
    if verify:
        lines.append(VERIFY_PROMPT)
    if earlier:
        lines.append("Already done (earlier steps):")
        lines.extend(f"- {text}" for text in earlier)
    if memory or secret_keys:
        lines.append("Remembered values (use as {{name}}):")
        lines.extend(f"- {k} = {_one_line(v)}" for k, v in sorted(memory.items()))
        lines.extend(f"- {k} (secret: only usable as {{{{{k}}}}})" for k in sorted(secret_keys))
    if previous_failure:
        lines.append(f"A previous attempt at this step failed: {previous_failure}. The screen may have changed "
                     "since; start again from what you see now.")
    if heal:
        lines.append(HEAL_WHOLE_STEP)
    return "\n".join(lines)


def screen_text(*, snapshot: str, hints: Sequence[str], platform: str, truncated: bool, diff: bool = False) -> str:
    parts = []
    if hints:
        parts.append("Notes:\n" + "\n".join(f"- {h}" for h in hints))
    if diff:
        parts.append("Screen changes since the last screen above (- gone, + new, unmarked: the line above them; "
                     "every other line and ref is unchanged; fullSnapshot shows the whole screen):\n"
                     + (snapshot or "(no change)"))
        return "\n\n".join(parts)
    label = "Current screen" + (" (truncated)" if truncated else "")
    parts.append(f"{label}:\n{snapshot}")
    return "\n\n".join(parts)


def _one_line(value: str, limit: int = 200) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"
