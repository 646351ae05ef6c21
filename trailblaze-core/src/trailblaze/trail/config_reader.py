"""Reading a trail's ``config:`` map (unified and v1 keys): text fields, devices, driver settings,
skip, tags, memory, metadata, args, retries, source and setup trails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import args as _args
from .actors import PLATFORM_WORD, Actor
from .model import TrailConfig
from .nodes import MappingNode, Node, ScalarNode, SequenceNode
from .read_context import ReadContext, allowed

__all__ = ["UNIFIED_CONFIG_KEYS", "V1_CONFIG_KEYS", "ConfigReader"]

_TEXT_CONFIG = ("id", "title", "description", "priority", "target", "context")
UNIFIED_CONFIG_KEYS = (*_TEXT_CONFIG, "devices", "drivers", "skip", "tags", "memory", "metadata", "args", "retries",
                       "setup", "actors")
V1_CONFIG_KEYS = (*_TEXT_CONFIG, "platform", "driver", "drivers", "skip", "tags", "memory", "metadata", "args",
                  "retries", "source", "electron", "setup")


class ConfigReader:
    """The ``config:`` map; unknown keys are warnings (errors when strict), as upstream is lenient.

    Built with the file's ``ReadContext``: it warns into the parser's list and resolves ``setup``
    trails against the context's path."""

    __slots__ = ("ctx", "r")

    def __init__(self, context: ReadContext) -> None:
        self.ctx = context
        self.r = context.r

    def config(self, node: Node, *, unified: bool) -> TrailConfig:
        r = self.r
        cfg = TrailConfig()
        if r.is_null(node):
            return cfg
        if not isinstance(node, MappingNode):
            r.fail(node, f"'config' must be a map, got {r.describe(node)}", "config")
        keys = UNIFIED_CONFIG_KEYS if unified else V1_CONFIG_KEYS
        written = r.plain(node)
        cfg.written = dict(written) if isinstance(written, dict) else {}
        for key, knode, vnode in r.entries(node):
            if key not in keys:
                hint = allowed(keys)
                if unified and key in ("driver", "platform"):
                    hint = "the unified format pins drivers per classifier: 'devices: {android: ANDROID_ONDEVICE_" \
                           "ACCESSIBILITY, web: PLAYWRIGHT_NATIVE}'"
                elif not unified and key == "devices":
                    hint = "v1 pins one driver: 'driver: PLAYWRIGHT_NATIVE'"
                self.ctx.warn(knode, "unknown config key, ignored", key, hint)
                continue
            if key in _TEXT_CONFIG or key in ("platform", "driver"):
                setattr(cfg, key, r.text(vnode, f"'{key}'", key))
            elif key == "devices":
                cfg.devices = self.text_map(vnode, key, allow_null=False)
            elif key == "drivers":
                self.driver_settings(vnode, cfg)
            elif key == "skip":
                cfg.skip = self.skip(vnode, unified=unified)
            elif key == "tags":
                cfg.tags = self.tags(vnode)
            elif key == "memory":
                cfg.memory = self.text_map(vnode, key, allow_null=False,
                                           null_hint="write '{name}: \"\"' for an empty value")
            elif key == "metadata":
                cfg.metadata = dict(self.text_map(vnode, key, allow_null=False))
            elif key == "args":
                cfg.args = _args.parse_declarations(vnode, r)
            elif key == "retries":
                cfg.retries = self.ctx.count(vnode, "retries")
            elif key == "source":
                self.source(vnode, cfg)
            elif key == "setup":
                cfg.setup = self.setup(vnode)
            elif key == "actors":
                self.actors(vnode, cfg)
            elif key == "electron":
                self.ctx.warn(knode, "Electron apps are not supported by this runner; 'electron' is ignored", key)
        return cfg

    def driver_settings(self, node: Node, cfg: TrailConfig) -> None:
        """``drivers: {<driver>: {<setting>: value}}``: the shape is checked here, the settings by the
        driver's config model when the run builds the driver (it names this file, line and key)."""
        r = self.r
        if r.is_null(node):
            return
        if not isinstance(node, MappingNode):
            r.fail(node, f"'drivers' must map driver names to their settings, got {r.describe(node)}", "drivers",
                   "e.g. 'drivers: {playwright-native: {timeout_ms: 10000}}'")
        for name, knode, vnode in r.entries(node):
            cfg.driver_locations[name] = r.loc(knode)
            if r.is_null(vnode):
                cfg.drivers[name] = {}
                continue
            if not isinstance(vnode, MappingNode):
                r.fail(vnode, f"'drivers.{name}' must be a map of settings, got {r.describe(vnode)}", name)
            settings: dict[str, Any] = {}
            for setting, snode, value in r.entries(vnode):
                cfg.driver_locations[f"{name}.{setting}"] = r.loc(snode)
                settings[setting] = r.plain(value)
            cfg.drivers[name] = settings

    def actors(self, node: Node, cfg: TrailConfig) -> None:
        """``actors: {alice: web, bob: {platform: web, driver: ..., options: {...}}}`` (our extension)."""
        r = self.r
        if r.is_null(node):
            return
        if not isinstance(node, MappingNode) or not node.value:
            r.fail(node, f"'actors' must map actor names to a platform, got {r.describe(node)}", "actors",
                   "e.g. 'actors: {alice: web, bob: web}'")
        for name, knode, vnode in r.entries(node):
            if not name.strip():
                r.fail(knode, "an actor needs a name", "actors")
            cfg.actor_locations[name] = r.loc(knode)
            driver: str | None = None
            options: dict[str, Any] = {}
            if isinstance(vnode, ScalarNode) and not r.is_null(vnode):
                platform = r.text(vnode, f"'actors.{name}'", name) or ""
                pnode: Node = vnode
            elif isinstance(vnode, MappingNode):
                platform, pnode = "", vnode
                for key, k2, v2 in r.entries(vnode):
                    if key == "platform":
                        platform, pnode = r.text(v2, f"'actors.{name}.platform'", key) or "", v2
                    elif key == "driver":
                        driver = r.text(v2, f"'actors.{name}.driver'", key) or None
                    elif key == "options":
                        if r.is_null(v2):
                            continue
                        if not isinstance(v2, MappingNode):
                            r.fail(v2, f"'actors.{name}.options' must be a map of driver settings, got "
                                       f"{r.describe(v2)}", key, "e.g. 'options: {headless: true}'")
                        options = {k: r.plain(v) for k, _, v in r.entries(v2)}
                    else:
                        r.fail(k2, f"unexpected key of actor '{name}'", key, "allowed: platform, driver, options")
                if not platform:
                    r.fail(vnode, f"actor '{name}' needs a 'platform'", name, "e.g. 'platform: web'")
            else:
                r.fail(vnode if not r.is_null(vnode) else knode,
                       f"actor '{name}' needs a platform ('{name}: web') or a map with 'platform'", name)
            if not PLATFORM_WORD.match(platform):
                r.fail(pnode, f"actor '{name}': '{platform}' is not a platform word (web, android, ios, ...)", name)
            cfg.actors[name] = Actor(name=name, platform=platform, driver=driver, options=options)

    def text_map(self, node: Node, key: str, *, allow_null: bool, null_hint: str | None = None) -> dict[str, str]:
        r = self.r
        if r.is_null(node):
            return {}
        if not isinstance(node, MappingNode):
            r.fail(node, f"'{key}' must be a map of names to values, got {r.describe(node)}", key)
        out: dict[str, str] = {}
        for name, knode, vnode in r.entries(node):
            if isinstance(vnode, ScalarNode) and not r.is_null(vnode):
                out[name] = r.text(vnode, f"'{key}.{name}'", name) or ""
            elif r.is_null(vnode):
                if allow_null:
                    out[name] = ""
                else:
                    r.fail(knode, f"'{key}.{name}' has no value", name,
                           (null_hint or "give it a value").replace("{name}", name))
            else:
                r.fail(vnode, f"'{key}.{name}' must be a single value (text, number or true/false), got "
                              f"{r.describe(vnode)}", name)
        return out

    def skip(self, node: Node, *, unified: bool) -> dict[str, str]:
        r = self.r
        if r.is_null(node):
            return {}
        if isinstance(node, MappingNode):
            return self.text_map(node, "skip", allow_null=True)
        if unified:
            r.fail(node, "'skip' maps device classifiers to a reason in the unified format", "skip",
                   f"e.g. 'skip: {{ios: \"{r.text(node, 'skip') or 'reason'}\"}}'")
        reason = r.text(node, "'skip'", "skip")
        return {"*": reason or ""}

    def tags(self, node: Node) -> list[str]:
        r = self.r
        if r.is_null(node):
            return []
        if not isinstance(node, SequenceNode):
            r.fail(node, f"'tags' must be a list, got {r.describe(node)}", "tags", "e.g. 'tags: [smoke, login]'")
        out = []
        for item in node.value:
            text = r.text(item, "a tag", "tags")
            if text is None or not text.strip():
                r.fail(item, "a tag cannot be empty", "tags")
            out.append(text)
        return out

    def setup(self, node: Node) -> list[Path]:
        """``setup: TRAIL`` or a list: trails replayed before this one (relative to this file), each
        checked to exist here so the error names this file's line."""
        r = self.r
        if r.is_null(node):
            return []
        items = [node] if isinstance(node, ScalarNode) else \
            node.value if isinstance(node, SequenceNode) else None
        if items is None:
            r.fail(node, f"'setup' names a trail or a list of trails, got {r.describe(node)}", "setup",
                   "e.g. 'setup: setup/sign-in.trail.yaml'")
        base = self.ctx.path.resolve().parent if self.ctx.path else Path.cwd()
        out: list[Path] = []
        for item in items:
            text = r.text(item, "a setup trail", "setup")
            if not text or not text.strip():
                r.fail(item, "a setup trail cannot be empty", "setup")
            path = (base / text).resolve()
            if not path.is_file():
                r.fail(item, f"setup trail '{text}' does not exist (looked for {path})", "setup",
                       "paths in 'setup' are relative to this trail's file")
            if self.ctx.path is not None and path == self.ctx.path.resolve():
                r.fail(item, "a trail cannot be its own setup", "setup")
            out.append(path)
        return out

    def source(self, node: Node, cfg: TrailConfig) -> None:
        r = self.r
        if r.is_null(node):
            return
        if not isinstance(node, MappingNode):
            r.fail(node, f"'source' must be a map like '{{type: HANDWRITTEN, reason: ...}}', got {r.describe(node)}",
                   "source")
        for key, knode, vnode in r.entries(node):
            value = r.text(vnode, f"'source.{key}'", key)
            if key == "type" and value is not None:
                cfg.metadata.setdefault("source", value)
            elif key == "reason" and value is not None:
                cfg.metadata.setdefault("sourceReason", value)
            elif key not in ("type", "reason"):
                self.ctx.warn(knode, "unknown source key, ignored", key, "allowed: type, reason")

