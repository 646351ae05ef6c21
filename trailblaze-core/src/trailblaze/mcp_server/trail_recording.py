"""The trail being recorded on the workbench: steps gathered from calls (secrets written as tokens),
started, ended, saved through the save-back writer, and the workspace's trails listed."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BadInputError
from ..host_settings import path_outside
from ..recorder import RecordedStepDraft
from ..tools.base import ToolCall
from .bench_state import BenchState, RecordedStep, StepKind

__all__ = ["RecordedStep", "TrailRecording"]  # RecordedStep lives with the state it is part of


class TrailRecording(BenchState):
    """The pending trail's steps and writing them to a workspace trail file."""

    def _tokenized(self, calls: list[ToolCall]) -> list[ToolCall]:
        """Recorded calls with every literal secret value written as its ``{{key}}`` token, so a trail
        never holds a secret even when the client typed one in."""
        c = self._require()
        memory = c.session.memory
        values = memory.snapshot(include_sensitive=True)
        secrets = sorted(((values[k], k) for k in memory.sensitive_keys if values.get(k)),
                         key=lambda kv: len(kv[0]), reverse=True)
        if not secrets:
            return calls
        return [ToolCall(call.name, _tokenize(call.args, secrets)) for call in calls]

    def _auto_text(self, messages: list[str], calls: list[ToolCall]) -> str:
        """A step text for a direct tool call nobody named: what the tool said it did, with remembered
        values (a server's address, an email) written as their tokens so the text reads the same on
        every run."""
        line = next((m.strip().splitlines()[0] for m in messages if m.strip()), calls[0].name)[:200]
        values = self._require().session.memory.snapshot(include_sensitive=True)
        known = sorted(((v, k) for k, v in values.items() if len(v) >= 4), key=lambda kv: len(kv[0]), reverse=True)
        return str(_tokenize(line, known))

    def _record(self, kind: StepKind, text: str, calls: list[ToolCall]) -> RecordedStep:
        classifier = self.classifier()
        last = self.steps[-1] if self.steps else None
        if last is not None and (last.kind, last.text, last.classifier) == (kind, text, classifier):
            last.calls.extend(calls)
            return last
        step = RecordedStep(kind, text, classifier, list(calls))
        self.steps.append(step)
        return step

    def add_recorded(self, drafts: list[RecordedStepDraft]) -> None:
        """Steps recorded elsewhere (a person's actions, ``trailblaze record``) into the pending trail, with
        literal secret values written as their tokens, as the agent's are."""
        for draft in drafts:
            if draft.calls:
                self._record(draft.kind, draft.text, self._tokenized(draft.calls))

    # -- trails -----------------------------------------------------------------------------------
    def start_trail(self, name: str | None) -> str:
        dropped = len(self.steps)
        self.steps = []
        self.trail_name = name
        return f"recording a new trail{f' {name!r}' if name else ''}" + \
            (f" (dropped {dropped} unsaved step{'s' if dropped != 1 else ''})" if dropped else "")

    def end_trail(self) -> str:
        dropped = len(self.steps)
        self.steps = []
        self.trail_name = None
        return f"recording ended; {dropped} unsaved step{'s' if dropped != 1 else ''} dropped"

    def trail_path(self, file: str | None) -> Path:
        """The client's trail file, inside the workspace root (``../``, ``~`` and absolute paths that leave
        it are refused: a client may read and write only the workspace's trails)."""
        root = self.ws.config.root
        if file:
            outside = path_outside(file, root)
            if outside is not None:
                raise BadInputError(f"'{file}' is {outside}: a client's trail files stay in the workspace",
                                    hint="a path relative to the workspace root: trails/my-flow.trail.yaml")
            path = Path(file)
            path = path if path.is_absolute() else root / path
        else:
            slug = re.sub(r"[^A-Za-z0-9_-]+", "-", (self.trail_name or "recorded").strip()).strip("-").lower()
            base = root / "trails" if (root / "trails").is_dir() else root
            path = base / f"{slug or 'recorded'}.trail.yaml"
        from ..runner.discovery import is_trail_file

        if not is_trail_file(path):
            raise BadInputError(f"'{path.name}' is not a trail file name", hint="use NAME.trail.yaml or trail.yaml")
        return path.resolve()

    def save_trail(self, file: str | None) -> dict[str, Any]:
        """Append the recorded steps to ``file`` (created, with a config naming the driver, when missing)
        through the same writer ``trailblaze step --save`` uses: comments and other steps stay."""
        from ..trail.saveback import NewStep, append_steps

        path = self.trail_path(file)
        if not self.steps:
            raise BadInputError("nothing has been recorded yet", hint="act on the device first (a tool call or 'step')")
        path.parent.mkdir(parents=True, exist_ok=True)
        created = not path.exists() or not path.read_text(encoding="utf-8").strip()
        # One write for every step: a full disk saves none of them (the recording is kept for a retry).
        added = append_steps(path, [NewStep(s.text, s.kind, s.classifier, s.calls or None) for s in self.steps],
                             codec=self.host.codec(), header=self._header_yaml())
        first = added[0].index if added else None
        saved = len(self.steps)
        self.steps = []
        return {"file": str(path), "created": created, "steps": saved, "firstStepIndex": first}

    def _header_yaml(self) -> str:
        from ruamel.yaml import YAML

        config: dict[str, Any] = {}
        if self.trail_name:
            config["title"] = self.trail_name
        target = self.settings.target or self.ws.config.defaults.target
        if target:
            config["target"] = target
        classifiers = {s.classifier for s in self.steps}
        c = self.connected
        if c is not None and self.classifier() in classifiers:
            config["devices"] = {c.session.device.classifiers[0] if c.session.device.classifiers else c.driver.key:
                                 c.driver.key}
        yaml = YAML(typ="safe", pure=True)
        yaml.default_flow_style = False
        yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
        buf = io.StringIO()
        buf.write("# Recorded with `trailblaze mcp` or `trailblaze session`; replay it with `trailblaze run`.\n")
        if config:
            yaml.dump({"config": config}, buf)
        return buf.getvalue()

    def list_trails(self) -> list[dict[str, Any]]:
        from ..runner.discovery import expand

        root = self.ws.config.root
        base = root / "trails" if (root / "trails").is_dir() else root
        try:
            files = expand([str(base)])
        except BadInputError:
            return []
        return [{"file": str(p.relative_to(root)) if p.is_relative_to(root) else str(p), "path": str(p.resolve())}
                for p in files]


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
