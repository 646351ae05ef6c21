"""Between the two formats: lowering a unified trail to v1 for one device, and lifting v1 to unified.

Upstream's runtime consumes v1 items; a unified document is *lowered* for the device under test
(closest classifier wins, §1.2): one ``config`` item, the ``trailhead`` if any, then one ``prompts``
item. Our runner reads ``Trail`` directly (``TrailStep.recording_for`` does the same resolution), so
lowering exists for interchange: emitting what an upstream v1 consumer expects, and checking that
v1 → unified → v1 is lossless (``UnifiedTrailAdapterTest``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import BadInputError
from ..tools.base import ToolCall
from . import classifiers as _classifiers
from .model import Trail, TrailArg, TrailConfig
from .parser import require_classifiers

__all__ = ["lower_to_v1", "to_unified"]


def _calls(calls: list[ToolCall]) -> list[dict[str, Any]]:
    return [call.to_yaml() for call in calls]


def _arg(arg: TrailArg) -> Any:
    if not arg.has_default and arg.description is None:
        return arg.type  # the compact spelling
    out: dict[str, Any] = {"type": arg.type}
    if arg.description is not None:
        out["description"] = arg.description
    if arg.has_default:
        out["default"] = arg.default
    return out


def _common_config(cfg: TrailConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("id", "title", "description", "priority", "target"):
        value = getattr(cfg, key)
        if value is not None:
            out[key] = value
    if cfg.tags:
        out["tags"] = list(cfg.tags)
    if cfg.context is not None:
        out["context"] = cfg.context
    if cfg.memory:
        out["memory"] = dict(cfg.memory)
    if cfg.args:
        out["args"] = {name: _arg(a) for name, a in cfg.args.items()}
    if cfg.retries is not None:
        out["retries"] = cfg.retries
    if cfg.drivers:
        out["drivers"] = {name: dict(settings) for name, settings in cfg.drivers.items()}
    return out


def lower_to_v1(trail: Trail, classifiers: Sequence[str]) -> list[dict[str, Any]]:
    """v1 items for the device with ``classifiers`` (broad-first, e.g. ``["android", "phone"]``)."""
    chain = list(classifiers)
    require_classifiers(trail, chain)
    cfg = trail.config
    config = _common_config(cfg)
    driver = cfg.driver_for(chain)
    if driver is not None:
        config["driver"] = driver
    if cfg.platform is not None:
        config["platform"] = cfg.platform
    reason = cfg.skip.get("*") if "*" in cfg.skip else (
        (_classifiers.resolve(cfg.skip, chain) or (None, None))[1] if chain else None)
    if reason is not None:
        config["skip"] = reason
    metadata = dict(cfg.metadata)
    source: dict[str, Any] = {}
    if "source" in metadata:
        source["type"] = metadata.pop("source")
    if "sourceReason" in metadata:
        source["reason"] = metadata.pop("sourceReason")
    if metadata:
        config["metadata"] = metadata
    if source:
        config["source"] = source
    items: list[dict[str, Any]] = [{"config": config}]
    prompts: list[dict[str, Any]] = []
    for step in trail.steps:
        found = step.recording_for(chain)
        if step.kind == "trailhead":
            head: dict[str, Any] = {}
            if step.text is not None:
                head["step"] = step.text
            if found is not None and found[1]:
                head["tools"] = _calls(found[1])
            if step.max_retries is not None:
                head["maxRetries"] = step.max_retries
            items.append({"trailhead": head})
            continue
        if step.kind == "tools":
            if prompts:
                items.append({"prompts": prompts})
                prompts = []
            items.append({"tools": _calls(found[1] if found else [])})
            continue
        prompt: dict[str, Any] = {step.kind: step.text}
        if found is not None:
            prompt["recording"] = {"tools": _calls(found[1])}
        if not step.recordable:
            prompt["recordable"] = False
        if step.max_retries is not None:
            prompt["maxRetries"] = step.max_retries
        prompts.append(prompt)
    if prompts or not any("tools" in item for item in items):
        items.append({"prompts": prompts})
    return items


def to_unified(trail: Trail, classifier: str | None = None) -> dict[str, Any]:
    """The unified document of a v1 trail whose recordings were made on ``classifier``.

    ``classifier`` defaults to the v1 ``platform`` hint. v1 ``tools:`` blocks and trailheads with
    more than one tool have no unified spelling and are refused.
    """
    if trail.format == "unified":
        raise BadInputError(f"{trail.path} is already a unified trail")
    cls = classifier or trail.config.platform
    cfg = trail.config
    config = _common_config(cfg)
    has_recordings = any(s.recordings for s in trail.steps)
    if cls is None and (has_recordings or cfg.driver or cfg.skip):
        raise BadInputError(f"{trail.path}: say which device classifier the v1 recordings belong to "
                            "(e.g. android-phone, ios-iphone, web)")
    if cfg.driver is not None:
        config["devices"] = {cls: cfg.driver}
    if "*" in cfg.skip:
        config["skip"] = {cls: cfg.skip["*"]}
    if cfg.metadata:
        config["metadata"] = dict(cfg.metadata)
    doc: dict[str, Any] = {"config": config}
    steps: list[dict[str, Any]] = []
    for step in trail.steps:
        calls = (step.recordings or {}).get("*")
        if step.kind == "tools":
            raise BadInputError(f"{step.location}: a v1 'tools:' block has no unified spelling; make it a step "
                                "with text and a recording")
        if step.kind == "trailhead":
            head: dict[str, Any] = {}
            if step.text is not None:
                head["step"] = step.text
            if calls:
                if len(calls) > 1:
                    raise BadInputError(f"{step.location}: a unified trailhead runs one tool per device; this v1 "
                                        f"trailhead has {len(calls)}")
                head["recording"] = {cls: calls[0].to_yaml()}
            if step.max_retries is not None:
                head["maxRetries"] = step.max_retries
            doc["trailhead"] = head
            continue
        item: dict[str, Any] = {step.kind: step.text}
        if calls is not None:
            item["recording"] = {cls: _calls(calls)}
        if not step.recordable:
            item["recordable"] = False
        if step.max_retries is not None:
            item["maxRetries"] = step.max_retries
        steps.append(item)
    doc["trail"] = steps
    return doc
