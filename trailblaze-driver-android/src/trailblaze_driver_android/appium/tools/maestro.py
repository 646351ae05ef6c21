"""``mobile_maestro``: upstream's raw Maestro escape hatch, for the commands that map onto Appium.

Recordings made with upstream's Maestro-backed drivers contain ``mobile_maestro: {commands: [...]}``
blocks, and upstream's own YAML tools (``eraseText``, ``pressBack``, ``openUrl``) compose it. We run
the Maestro commands that have an Appium equivalent: ``tapOn``, ``inputText``, ``eraseText``,
``assertVisible``, ``assertNotVisible``, ``scroll``, ``swipe``, ``back``, ``launchApp``, ``openLink``,
``extendedWaitUntil`` and ``hideKeyboard``. Anything else is rejected when the call is validated, so a
trail using it fails before any step runs, with an error naming the command. Maestro selectors keep
Maestro's matching (case-insensitive, dot matches newlines: the ``*Maestro`` selector dialect).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, field_validator
from trailblaze import NodeSelector, Tool, ToolContext, ToolFailure, ToolResult

from .common import MOBILE_DRIVERS, appium_driver, device_errors, maestro_match, selector
from .gestures import swipe_points
from .taps import parse_relative, tap_node
from .text_input import type_text
from .verification import assert_not_visible, assert_visible

SUPPORTED = ("tapOn", "inputText", "eraseText", "assertVisible", "assertNotVisible", "scroll", "swipe", "back",
             "launchApp", "openLink", "extendedWaitUntil", "hideKeyboard")
_RELATIONS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")
_SELECTOR_KEYS = {"text", "id", "index", "enabled", "checked", "focused", "selected", "clickable",
                  "containsDescendants", *_RELATIONS}
_TAP_KEYS = _SELECTOR_KEYS | {"point", "longPress", "optional", "retryTapIfNoChange", "waitToSettleTimeoutMs",
                              "repeat", "delay", "label"}


def _command(item: Any, position: int) -> tuple[str, Any]:
    if isinstance(item, str):
        return item, None
    if isinstance(item, dict) and len(item) == 1:
        name, value = next(iter(item.items()))
        return str(name), value
    raise ValueError(f"mobile_maestro: command {position} must be a single-key map like '- tapOn: Login', got "
                     f"{item!r}")


def maestro_selector(platform: str, raw: Any, *, owner: str, allowed: set[str] = _SELECTOR_KEYS) -> dict[str, Any]:
    """A Maestro element selector (string = text) as a ``nodeSelector`` dict in the Maestro dialect."""
    if isinstance(raw, (str, int, float)):
        raw = {"text": str(raw)}
    if not isinstance(raw, dict):
        raise ValueError(f"{owner}: expected a text or a selector map, got {raw!r}")  # noqa: TRY004 - a validation error
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ValueError(f"{owner}: unsupported selector key(s) {', '.join(unknown)}")
    out: dict[str, Any] = maestro_match(platform, textRegex=_s(raw.get("text")), resourceIdRegex=_s(raw.get("id")),
                                        enabled=raw.get("enabled"), checked=raw.get("checked"),
                                        focused=raw.get("focused"), selected=raw.get("selected"),
                                        clickable=raw.get("clickable"))
    if not next(iter(out.values())):
        out = {}
    if raw.get("index") is not None:
        out["index"] = int(raw["index"])
    for rel in _RELATIONS:
        if raw.get(rel) is not None:
            out[rel] = maestro_selector(platform, raw[rel], owner=f"{owner}.{rel}")
    if raw.get("containsDescendants") is not None:
        out["containsDescendants"] = [maestro_selector(platform, d, owner=f"{owner}.containsDescendants")
                                      for d in raw["containsDescendants"]]
    return out


def _s(value: Any) -> str | None:
    return None if value is None else str(value)


def validate_commands(commands: list[Any]) -> list[Any]:
    """Reject commands outside the supported subset (and malformed ones) at validation time."""
    for i, item in enumerate(commands):
        name, value = _command(item, i)
        if name not in SUPPORTED:
            raise ValueError(f"mobile_maestro: command '{name}' is not supported on Appium drivers "
                             f"(supported: {', '.join(SUPPORTED)})")
        if name == "tapOn" and isinstance(value, dict):
            maestro_selector("android", {k: v for k, v in value.items() if k in _SELECTOR_KEYS}, owner="tapOn")
            unknown = sorted(set(value) - _TAP_KEYS)
            if unknown:
                raise ValueError(f"mobile_maestro: tapOn: unsupported key(s) {', '.join(unknown)}")
        if name in ("assertVisible", "assertNotVisible") and value is not None:
            maestro_selector("android", value, owner=name)
        if name == "extendedWaitUntil" and not (isinstance(value, dict) and ({"visible", "notVisible"} & set(value))):
            raise ValueError("mobile_maestro: extendedWaitUntil needs 'visible' or 'notVisible'")
    return commands


class MobileMaestroTool(Tool):
    """Run Maestro commands (the subset that maps onto Appium). Escape hatch for recordings."""

    name = "mobile_maestro"
    surface_to_llm = False
    drivers: ClassVar[frozenset[str] | None] = MOBILE_DRIVERS
    commands: list[Any] = Field(..., description="Maestro commands, e.g. [{tapOn: Login}, {inputText: hi}].")

    @field_validator("commands")
    @classmethod
    def check_commands(cls, value: list[Any]) -> list[Any]:
        return validate_commands(value)

    def execute(self, ctx: ToolContext) -> ToolResult:
        messages: list[str] = []
        for i, item in enumerate(self.commands):
            name, value = _command(item, i)
            try:
                with device_errors(ctx, name):
                    result = _run(ctx, name, value)
            except ToolFailure as exc:
                result = ToolResult.fail(exc.message)
            if not result.success:
                return ToolResult.fail(f"mobile_maestro command {i + 1} ({name}): {result.message}")
            messages.append(result.message or name)
        return ToolResult.ok("; ".join(messages))


def _timeout(value: Any, default: int | None = None) -> int | None:
    if value is None:
        return default
    return int(float(value))


def _run(ctx: ToolContext, name: str, value: Any) -> ToolResult:
    drv = appium_driver(ctx)
    assert drv.actions is not None and drv.device is not None
    platform = drv.platform
    w, h = drv.device.width or 0, drv.device.height or 0
    if name == "tapOn":
        raw = value if isinstance(value, dict) else {"text": value}
        long_press = bool(raw.get("longPress"))
        point = raw.get("point")
        sel_raw = maestro_selector(platform, {k: v for k, v in raw.items() if k in _SELECTOR_KEYS}, owner="tapOn")
        if point is not None and not sel_raw:
            x, y = _point(str(point), w, h)
            (drv.actions.long_press if long_press else drv.actions.tap)(x, y)
            drv.note_action()
            return ToolResult.ok(f"tapped ({x}, {y})")
        _tree, result = drv.find(selector(sel_raw))
        node = result.first
        if node is None:
            if raw.get("optional"):
                return ToolResult.ok("optional element not found; skipped")
            return ToolResult.fail(f"no element matches {NodeSelector.model_validate(sel_raw).description()}")
        rel = parse_relative(str(point), "point") if point is not None and "%" in str(point) else None
        return tap_node(ctx, node, long_press=long_press, relative=rel, matches=len(result.nodes))
    if name == "inputText":
        text = value.get("text") if isinstance(value, dict) else value
        return type_text(ctx, str(text), False)
    if name == "eraseText":
        count = value.get("charactersToErase") if isinstance(value, dict) else value
        count = None if count in (None, "", "null") else int(count)
        focused = drv.focused_node() if drv.last is not None else None
        element = drv.actions.focused_element(focused)
        current = element.text
        drv.actions.erase_text(count, focused, current)
        drv.note_action()
        return ToolResult.ok(f"erased {'all' if count is None else count} character(s)")
    if name == "assertVisible":
        return assert_visible(ctx, selector(maestro_selector(platform, value, owner=name)))
    if name == "assertNotVisible":
        return assert_not_visible(ctx, selector(maestro_selector(platform, value, owner=name)))
    if name == "scroll":
        x1, y1, x2, y2 = swipe_points(w, h, "UP")
        drv.actions.drag(x1, y1, x2, y2, 500)
        drv.note_action()
        return ToolResult.ok("scrolled")
    if name == "swipe":
        spec = value if isinstance(value, dict) else {"direction": value}
        duration = int(spec.get("duration", 400))
        if spec.get("start") and spec.get("end"):
            x1, y1 = _point(str(spec["start"]), w, h)
            x2, y2 = _point(str(spec["end"]), w, h)
        else:
            x1, y1, x2, y2 = swipe_points(w, h, str(spec.get("direction", "UP")).upper())
        drv.actions.drag(x1, y1, x2, y2, duration)
        drv.note_action()
        return ToolResult.ok("swiped")
    if name == "back":
        drv.actions.back()
        drv.note_action()
        return ToolResult.ok("back")
    if name == "launchApp":
        spec = value if isinstance(value, dict) else {"appId": value}
        app_id = spec.get("appId") or drv.actions.app_id
        if not app_id:
            return ToolResult.fail("launchApp needs an appId")
        mode = "REINSTALL" if spec.get("clearState") else ("RESUME" if spec.get("stopApp") is False else "FORCE_RESTART")
        message = drv.actions.launch_app(str(app_id), mode)
        drv.note_action()
        return ToolResult.ok(message)
    if name == "openLink":
        link = value.get("link") if isinstance(value, dict) else value
        drv.actions.open_url(str(link))
        drv.note_action()
        return ToolResult.ok(f"opened {link}")
    if name == "extendedWaitUntil":
        timeout = _timeout(value.get("timeout"), 10_000)
        if value.get("visible") is not None:
            return assert_visible(ctx, selector(maestro_selector(platform, value["visible"], owner="visible")),
                                  timeout_ms=timeout)
        return assert_not_visible(ctx, selector(maestro_selector(platform, value["notVisible"], owner="notVisible")),
                                  timeout_ms=timeout)
    if name == "hideKeyboard":
        drv.actions.hide_keyboard()
        return ToolResult.ok("keyboard hidden")
    return ToolResult.fail(f"unsupported command {name}")  # validate_commands prevents this


def _point(text: str, width: int, height: int) -> tuple[int, int]:
    if "%" in text:
        fx, fy = parse_relative(text, "point")
        return int(width * fx), int(height * fy)
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2:
        raise ValueError(f"point: expected 'x,y' or 'x%,y%', got '{text}'")
    return int(float(parts[0])), int(float(parts[1]))


TOOLS: list[type[Tool]] = [MobileMaestroTool]
