"""What ``trailblaze run`` shows while it works: trail, step and tool as they happen.

On a terminal a rich status line follows the current tool; otherwise (CI logs, pipes) plain lines.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from ..results.model import RunResult, StepResult, TrailResult
from ..untrusted import MAX_OUTPUT_CHARS, terminal_text


class Progress:
    def __init__(self, stream: IO[str] | None = None, *, live: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self._status: Any = None
        self._console: Any = None
        self.redact: Callable[[Any], Any] = lambda text: text
        """Every line passes through this before it is shown (the runner sets its ``Redactor``)."""
        if self.live:
            from rich.console import Console

            self._console = Console(file=self.stream, highlight=False)

    def _print(self, text: str) -> None:
        text = fit_stream(terminal_text(self.redact(text), limit=MAX_OUTPUT_CHARS), self.stream)
        if self._console is not None:
            self._console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def note(self, text: str) -> None:
        """A line of its own between the run's progress lines (warnings, "saved ..." notices)."""
        self._print(text)

    def trail_started(self, title: str, path: str, driver: str) -> None:
        self._print(f"▶ {title}  ({path}, {driver})")

    def trail_skipped(self, path: str, reason: str) -> None:
        self._print(f"Skipping {path}: {reason}")

    def step_started(self, number: int, kind: str, text: str | None, actor: str | None = None) -> None:
        if self._console is not None:
            who = f"[{actor}] " if actor else ""
            label = terminal_text(self.redact(f"  {who}step {number}: {_short(text)}"))
            if self._status is None:
                self._status = self._console.status(label)
                self._status.start()
            else:
                self._status.update(label)

    def tool_started(self, number: int, name: str) -> None:
        if self._status is not None:
            self._status.update(f"  step {number}: {name} …")

    def step_finished(self, step: StepResult) -> None:
        self._stop_status()
        mark = "✓" if step.success else "✗"
        label = {"trailhead": "trailhead", "verify": "verify", "tools": "tools"}.get(step.kind, "step")
        extra = model_mark(step)
        number = "" if step.kind == "trailhead" else f" {step.number}"
        who = f"[{step.actor}] " if step.actor else ""
        self._print(f"  {mark} {who}{label}{number}: {_short(step.text)}{extra} ({step.duration_ms} ms)")
        if step.mode == "self-heal" and step.reason:
            self._print(f"      {step.reason.splitlines()[0]}")
        if not step.success and step.message and step.message != step.reason:
            for line in step.message.splitlines()[:12]:
                self._print(f"      {line}")

    def trail_finished(self, result: TrailResult) -> None:
        self._stop_status()
        if result.outcome.value == "Skipped":
            return
        word = "PASSED" if result.passed else result.outcome.value.upper()
        # The failure's first line only: a failed step has just printed the whole message, indented.
        first = result.message.strip().splitlines()[0] if result.message and result.message.strip() else ""
        self._print(f"  → {word}: {result.title}" + (f" — {first}" if first and not result.passed else ""))

    def run_finished(self, run: RunResult) -> None:
        self._stop_status()
        if run.report_path:
            self._print(f"Report: {run.report_path}")
        if run.summary_path:
            self._print(f"Summary: {run.summary_path}")
        if run.markdown_path:
            self._print(f"Markdown: {run.markdown_path}")
        tries = [a for t in run.trails for a in (*t.attempts, t)]
        llm = llm_line(sum(t.llm_call_count for t in tries), sum(t.llm_tokens for t in tries),
                       sum(t.llm_cost_usd for t in tries))
        if llm:
            self._print(llm)
        self._print(run.results_line())

    def _stop_status(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


class QuietProgress(Progress):
    """No output (API use and benchmarks)."""

    def __init__(self) -> None:
        super().__init__(live=False)

    def _print(self, text: str) -> None:
        return None


_ASCII_SYMBOLS = str.maketrans({"▶": ">", "✓": "+", "✗": "x", "→": "->", "↳": "->", "…": "...", "—": "-",
                                "·": "-", "×": "x"})


def fit_stream(text: str, stream: IO[str]) -> str:
    """``text`` as ``stream`` can print it: on a terminal or pipe whose encoding cannot show the
    progress symbols (an ASCII locale, ``PYTHONIOENCODING=ascii``) they become ASCII (``▶`` is ``>``),
    and any other character it cannot encode (a lone surrogate included) is shown as ``\\uXXXX``."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        pass
    text = text.translate(_ASCII_SYMBOLS)
    try:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        return text.encode("ascii", "backslashreplace").decode("ascii")


def _short(text: str | None, width: int = 90) -> str:
    if not text:
        return "(no text)"
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def model_mark(step: StepResult) -> str:
    """`` [agent: no recording for this device · 3 LLM calls, 4,200 tokens]`` after a step the model ran
    (`` [healed: …]`` when it re-solved a failed recording; the failure follows on its own line); nothing
    after a step that replayed."""
    if step.reason is None:
        return ""
    how = "healed" if step.mode == "self-heal" else "agent"
    why = "recording failed" if step.mode == "self-heal" else step.reason
    calls = f"{step.llm_call_count} LLM call{'s' if step.llm_call_count != 1 else ''}, {step.llm_tokens:,} tokens"
    return f" [{how}: {why} · {calls}]"


def llm_line(calls: int, tokens: int, cost_usd: float) -> str | None:
    """``LLM: 3 requests, 12,400 tokens, $0.0210`` after a run that asked the model (None if it did not):
    one line for a run in one process and for ``run -n``'s merged workers."""
    if not calls:
        return None
    return f"LLM: {calls} request{'s' if calls != 1 else ''}, {tokens:,} tokens, ${cost_usd:.4f}"
