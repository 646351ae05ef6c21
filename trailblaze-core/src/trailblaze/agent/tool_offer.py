"""Which tools a step's requests describe in full, which by name only, and how short a descriptor can be.

Descriptors were 95 % of every request (issue 36): 13-42 tools, each with the same ``ref``/``frame``/
``timeoutMs`` paragraphs. What the model can *do* is unchanged — every offered tool stays callable — but
only the tools a step is likely to need are sent in full; the rest are listed by name with a one-line
hint, and ``toolDescriptor`` returns a tool's full descriptor on demand (from then on it is sent in full).

"Likely" is decided once per trail, so the tool list is a byte-stable prefix across the trail's requests
(providers' prompt caches key on it):

* every tool when the session offers few (``SMALL_OFFER``): listing names would save nothing;
* the platform's core action set: tools in upstream's ``core_interaction`` toolset, and tools their
  plugin marks ``is_core`` (the web driver's navigate, click, type, fill a secret, press a key, select,
  scroll, and the two visibility checks);
* tools the trail's step texts name (``tap``, ``web_hover``…);
* tools the trail's recordings call (any device): the trail's own vocabulary.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import prompts

if TYPE_CHECKING:
    from ..session import Session
    from ..tools.base import ToolDefinition
    from ..trail.model import Trail

FETCH_TOOL = "toolDescriptor"
SMALL_OFFER = 12
CORE_TOOLSET = "core_interaction"
SHARED_PARAMETER_MIN = 3
"""A parameter described the same way in this many full descriptors is described once, in the system text."""
HINT_CHARS = 70

FETCH_TOOL_SPEC: dict[str, Any] = {
    "name": FETCH_TOOL,
    "description": "The full descriptor (parameters) of a tool listed by name only; it can then be called.",
    "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
}

DESCRIPTORS_KEY = "trailblaze.agent.tool_descriptors"
"""``session.resources`` key of the compact descriptors made in the session, by tool name and provider
type (with the definition they were made from: a tool registered again is described again)."""

_DROPPED_KEYS = frozenset({"title", "default", "additionalProperties", "examples", "$schema"})


def likely_tools(tools: Iterable["ToolDefinition"], *, trail: "Trail | None") -> set[str]:
    """The names sent in full (see the module docstring for the rule)."""
    tools = list(tools)
    if len(tools) <= SMALL_OFFER:
        return {t.name for t in tools}
    named: set[str] = set()
    recorded: set[str] = set()
    if trail is not None:
        words = set(re.findall(r"[A-Za-z_][\w.]*", " ".join(s.text or "" for s in trail.steps)))
        named = {t.name for t in tools if t.name in words}
        recorded = trail.recorded_tool_names()
    return {t.name for t in tools if t.is_core or CORE_TOOLSET in t.toolsets or t.name in named
            or t.name in recorded}


def compact_schema(schema: Any) -> Any:
    """The JSON Schema without what carries nothing for a model: titles, defaults (the descriptions say
    them where they matter), ``additionalProperties: false`` (arguments are validated anyway) and the
    ``\\S`` pattern pydantic adds to non-blank strings."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key in _DROPPED_KEYS or (key == "pattern" and value == "\\S"):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: compact_schema(prop) for name, prop in value.items()}
            else:
                out[key] = compact_schema(value)
        return out
    if isinstance(schema, list):
        return [compact_schema(v) for v in schema]
    return schema


def compact_description(text: str) -> str:
    return " ".join((text or "").split())


def _hint(description: str) -> str:
    first = re.split(r"(?<=[.;:])\s", compact_description(description), maxsplit=1)[0].rstrip(".;:")
    return first if len(first) <= HINT_CHARS else first[: HINT_CHARS - 1] + "…"


class ToolOffer:
    """The tool part of one step's requests: full descriptors, names, shared parameters, fetches."""

    def __init__(self, session: "Session", tools: list["ToolDefinition"], provider: str | None, *,
                 trail: "Trail | None", extra_specs: Iterable[dict[str, Any]] = ()) -> None:
        self.session = session
        self.provider = provider
        self.tools = {t.name: t for t in tools}
        likely = likely_tools(tools, trail=trail)
        full = [self._describe(t) for t in tools if t.name in likely]
        self.deferred = {t.name: t for t in tools if t.name not in likely}
        self.shared = _shared_parameters(full)
        self.specs: list[dict[str, Any]] = [_without_shared(s, self.shared) for s in full]
        if self.deferred:
            self.specs.append(dict(FETCH_TOOL_SPEC))
        self.specs.extend(dict(s) for s in extra_specs)
        self.specs.append(dict(prompts.OBJECTIVE_STATUS_TOOL))
        self._system_text: str | None = None
        self._system_text_made = False

    def _describe(self, tool: "ToolDefinition") -> dict[str, Any]:
        """The tool's compact descriptor, made once per session: every step makes a new offer, and
        asking the plugins and compacting the schemas again was most of a later step's offer (a few ms
        per step on the web). Read-only once made: the offer only builds new dicts around it."""
        made: dict[tuple[str, str | None], tuple[ToolDefinition, dict[str, Any]]] = \
            self.session.resources.setdefault(DESCRIPTORS_KEY, {})
        found = made.get((tool.name, self.provider))
        if found is not None and found[0] is tool:
            return found[1]
        d = self.session.codec.describe(tool, self.provider)
        spec = {"name": d.name, "description": compact_description(d.description),
                "parameters": compact_schema(d.llm_input_schema)}
        made[(tool.name, self.provider)] = (tool, spec)
        return spec

    def system_text(self) -> str | None:
        """What the system prompt says about tools: shared parameters once, and the tools by name (made
        once per offer and again only when a fetch takes a tool off the list: every request asks)."""
        if not self._system_text_made:
            self._system_text, self._system_text_made = self._make_system_text(), True
        return self._system_text

    def _make_system_text(self) -> str | None:
        parts = []
        if self.shared:
            parts.append("Parameters several tools share:\n" + "\n".join(
                f"- {name}: {desc}" for (name, desc) in sorted(self.shared)))
        if self.deferred:
            parts.append(f"More tools, by name (call {FETCH_TOOL} with a name to see its parameters, then call it):\n"
                         + "\n".join(f"- {name}: {_hint(t.description)}" for name, t in self.deferred.items()))
        return "\n\n".join(parts) or None

    def add(self, spec: dict[str, Any]) -> None:
        """Describe one of the agent's own tools from now on (once; appended, keeping the prefix)."""
        if not any(s["name"] == spec["name"] for s in self.specs):
            self.specs.append(dict(spec))

    def fetch(self, args: dict[str, Any]) -> tuple[str, bool]:
        """``toolDescriptor``'s answer; the tool is described in full in the step's later requests (appended,
        so the earlier part of the list stays a stable prefix)."""
        name = str(args.get("name") or "").strip()
        if name not in self.tools:
            return f"no tool named '{name}'; the tools listed by name are: {', '.join(self.deferred)}", True
        spec = self._describe(self.tools[name])
        if name in self.deferred:
            del self.deferred[name]
            self._system_text_made = False
            self.specs.append(spec)
        return json.dumps(spec, ensure_ascii=False), False


def _shared_parameters(specs: list[dict[str, Any]]) -> set[tuple[str, str]]:
    seen: Counter[tuple[str, str]] = Counter()
    for spec in specs:
        for name, prop in (spec["parameters"].get("properties") or {}).items():
            if isinstance(prop, dict) and prop.get("description"):
                seen[(name, prop["description"])] += 1
    return {key for key, n in seen.items() if n >= SHARED_PARAMETER_MIN}


def _without_shared(spec: dict[str, Any], shared: set[tuple[str, str]]) -> dict[str, Any]:
    props = spec["parameters"].get("properties")
    if not shared or not props:
        return spec
    trimmed = {name: ({k: v for k, v in prop.items() if k != "description"}
                      if isinstance(prop, dict) and (name, prop.get("description")) in shared else prop)
               for name, prop in props.items()}
    return {**spec, "parameters": {**spec["parameters"], "properties": trimmed}}


__all__ = ["CORE_TOOLSET", "FETCH_TOOL", "SMALL_OFFER", "ToolOffer", "compact_description",
           "compact_schema", "likely_tools"]
