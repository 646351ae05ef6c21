"""The trail being recorded on the workbench: steps gathered from calls (secrets written as tokens),
started, ended, saved through the save-back writer, and the workspace's trails listed."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadInputError
from ..host_settings import path_outside
from ..tools.base import ToolCall
from ..trail.model import TrailStep, number_steps
from .bench_state import Connected, RecordedStep, StepKind

if TYPE_CHECKING:
    from ..config import WorkspaceConfig
    from ..memory import Memory
    from ..recorder import RecordedStepDraft
    from ..tools.codec import ToolCodec

__all__ = ["RecordedStep", "TrailRecording", "auto_text", "tokenized"]  # RecordedStep lives with the shared values


class TrailRecording:
    """The pending trail's steps, its name, the step counter, and writing them to a workspace trail file.
    Knows no device: the caller says which classifier a step is recorded under."""

    def __init__(self, config: WorkspaceConfig, *, codec: Callable[[], ToolCodec], target: str | None = None) -> None:
        self.config = config
        self._codec = codec
        self.target = target
        """The server's ``--target``, written into a new trail's config (else the workspace default)."""
        self.steps: list[RecordedStep] = []
        self.name: str | None = None
        self.setup: list[Path] = []
        """The setup trails replayed before the first step (absolute): a new trail names them in its
        ``config.setup``, relative to itself, so it starts signed in (say) as the session did."""
        self._next_index = 0
        self.recorded_with = "`trailblaze mcp` or `trailblaze session`"
        """What the header of a trail this creates names as its author (``trailblaze record`` sets its own)."""

    def with_new_step(self, kind: StepKind, text: str | None) -> list[TrailStep]:
        """The steps recorded so far and a new one after them, numbered as the saved trail will number
        them; the new step's ``index`` is the session's step counter (the event logs' ``stepIndex``,
        unique per step even for calls that record nothing)."""
        steps = number_steps([*(TrailStep(kind=s.kind, text=s.text) for s in self.steps),
                              TrailStep(kind=kind, text=text)])
        steps[-1].index, self._next_index = self._next_index, self._next_index + 1
        return steps

    def record(self, kind: StepKind, text: str, classifier: str, calls: list[ToolCall]) -> RecordedStep:
        """Calls under the same text, kind and classifier as the last step join it; others start a step."""
        last = self.steps[-1] if self.steps else None
        if last is not None and (last.kind, last.text, last.classifier) == (kind, text, classifier):
            last.calls.extend(calls)
            return last
        step = RecordedStep(kind, text, classifier, list(calls))
        self.steps.append(step)
        return step

    def add_recorded(self, drafts: list[RecordedStepDraft], classifier: str, memory: Memory) -> None:
        """Steps recorded elsewhere (a person's actions, ``trailblaze record``) into the pending trail, with
        literal secret values written as their tokens, as the agent's are."""
        for draft in drafts:
            if draft.calls:
                step = self.record(draft.kind, draft.text, classifier, tokenized(draft.calls, memory))
                step.notes.extend(draft.notes)

    # -- trails -----------------------------------------------------------------------------------
    def start(self, name: str | None) -> str:
        dropped = len(self.steps)
        self.steps = []
        self.name = name
        return f"recording a new trail{f' {name!r}' if name else ''}" + \
            (f" (dropped {dropped} unsaved step{'s' if dropped != 1 else ''})" if dropped else "")

    def end(self) -> str:
        dropped = len(self.steps)
        self.steps = []
        self.name = None
        return f"recording ended; {dropped} unsaved step{'s' if dropped != 1 else ''} dropped"

    def trail_path(self, file: str | None) -> Path:
        """The client's trail file, inside the workspace root (``../``, ``~`` and absolute paths that leave
        it are refused: a client may read and write only the workspace's trails)."""
        root = self.config.root
        if file:
            outside = path_outside(file, root)
            if outside is not None:
                raise BadInputError(f"'{file}' is {outside}: a client's trail files stay in the workspace",
                                    hint="a path relative to the workspace root: trails/my-flow.trail.yaml")
            path = Path(file)
            path = path if path.is_absolute() else root / path
        else:
            slug = re.sub(r"[^A-Za-z0-9_-]+", "-", (self.name or "recorded").strip()).strip("-").lower()
            base = root / "trails" if (root / "trails").is_dir() else root
            path = base / f"{slug or 'recorded'}.trail.yaml"
        from ..runner.discovery import is_trail_file

        if not is_trail_file(path):
            raise BadInputError(f"'{path.name}' is not a trail file name", hint="use NAME.trail.yaml or trail.yaml")
        return path.resolve()

    def save(self, file: str | None, connected: Connected | None = None) -> dict[str, Any]:
        """Append the recorded steps to ``file`` (created, with a config naming ``connected``'s driver and the
        setup trails replayed first, when missing) through the same writer ``trailblaze step --save`` uses:
        comments and other steps stay."""
        from ..trail.saveback import NewStep, append_steps

        path = self.trail_path(file)
        if not self.steps:
            raise BadInputError("nothing has been recorded yet", hint="act on the device first (a tool call or 'step')")
        path.parent.mkdir(parents=True, exist_ok=True)
        created = not path.exists() or not path.read_text(encoding="utf-8").strip()
        codec = connected.session.codec if connected is not None else self._codec()  # knows the device's tools
        # One write for every step: a full disk saves none of them (the recording is kept for a retry).
        added = append_steps(path, [NewStep(s.text, s.kind, s.classifier, s.calls or None, list(s.notes))
                                     for s in self.steps],
                             codec=codec, header=self._header_yaml(connected, path))
        first = added[0].index if added else None
        saved = len(self.steps)
        self.steps = []
        return {"file": str(path), "created": created, "steps": saved, "firstStepIndex": first}

    def _header_yaml(self, c: Connected | None, path: Path) -> str:
        import os

        from ruamel.yaml import YAML

        config: dict[str, Any] = {}
        if self.name:
            config["title"] = self.name
        target = self.target or self.config.defaults.target
        if target:
            config["target"] = target
        classifiers = {s.classifier for s in self.steps}
        if c is not None and c.classifier in classifiers:
            config["devices"] = {c.session.device.classifiers[0] if c.session.device.classifiers else c.driver.key:
                                 c.driver.key}
        if self.setup:  # relative to the trail, as `trailblaze run` reads them
            names = [Path(os.path.relpath(p, path.parent)).as_posix() for p in self.setup]
            config["setup"] = names[0] if len(names) == 1 else names
        yaml = YAML(typ="safe", pure=True)
        yaml.default_flow_style = False
        yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
        buf = io.StringIO()
        buf.write(f"# Recorded with {self.recorded_with}; replay it with `trailblaze run`.\n")
        if config:
            yaml.dump({"config": config}, buf)
        return buf.getvalue()

    def list_trails(self) -> list[dict[str, Any]]:
        from ..runner.discovery import expand

        root = self.config.root
        base = root / "trails" if (root / "trails").is_dir() else root
        try:
            files = expand([str(base)])
        except BadInputError:
            return []
        return [{"file": str(p.relative_to(root)) if p.is_relative_to(root) else str(p), "path": str(p.resolve())}
                for p in files]


def tokenized(calls: list[ToolCall], memory: Memory) -> list[ToolCall]:
    """Recorded calls with every literal secret value written as its ``{{key}}`` token, so a trail never
    holds a secret even when the client typed one in."""
    values = memory.snapshot(include_sensitive=True)
    secrets = sorted(((values[k], k) for k in memory.sensitive_keys if values.get(k)),
                     key=lambda kv: len(kv[0]), reverse=True)
    if not secrets:
        return calls
    return [ToolCall(call.name, _tokenize(call.args, secrets)) for call in calls]


def auto_text(messages: list[str], calls: list[ToolCall], memory: Memory) -> str:
    """A step text for a direct tool call nobody named: what the tool said it did, with remembered values
    (a server's address, an email) written as their tokens so the text reads the same on every run."""
    line = next((m.strip().splitlines()[0] for m in messages if m.strip()), calls[0].name)[:200]
    values = memory.snapshot(include_sensitive=True)
    known = sorted(((v, k) for k, v in values.items() if len(v) >= 4), key=lambda kv: len(kv[0]), reverse=True)
    return str(_tokenize(line, known))


def _tokenize(value: Any, secrets: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for secret, key in secrets:
            value = value.replace(secret, "{{" + key + "}}")
        return value
    if isinstance(value, dict):
        return {k: _tokenize(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_tokenize(v, secrets) for v in value]
    return value
