"""The tool model: class-backed tools and tool definitions (calls and results re-exported).

A *tool call* is what a trail, a model or a server writes: a name and raw arguments. A *tool
definition* is what a source (a plugin class, a YAML file, an MCP server) registered under that name.
Dispatch joins the two at run time, which is why a call can be decoded, kept and re-encoded even on
a process that has never seen its definition.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, PydanticUserError, ValidationError

from ..context import ToolContext
from ..contract.calls import OtherTool, ToolCall, ToolResult
from ..contract.sources import Contributions, ToolSource
from ..errors import PluginToolError
from .params import ParameterSchema, format_validation_error

ANNOTATION_KEYS = frozenset({"reasoning", "reason"})
"""Free-text recording annotations accepted on every tool call and never load-bearing at replay."""


@dataclass(kw_only=True)
class ToolDefinition:
    """A registered tool, whatever its source. Plugins subclass this for new kinds (YAML, scripted).

    ``invoke`` either performs the action (returns a ``ToolResult``) or, for a *delegating* tool,
    returns the list of ``ToolCall`` it expands to; the dispatcher runs those through the same path,
    recursively, with a depth cap.
    """

    kind: ClassVar[str] = "abstract"

    name: str
    description: str = ""
    source: ToolSource = field(default_factory=ToolSource)
    surface_to_llm: bool = True
    is_recordable: bool = True
    requires_host: bool = False
    is_verification: bool = False
    is_read_only: bool = False
    """The tool looks or moves around (a snapshot, a scroll, going back or to a URL) and changes no data of
    the app: ``trailblaze plan`` offers only these (and verifications) unless ``--allow-actions``."""
    is_core: bool = False
    """One of the platform's everyday actions or checks (navigate, click, type, the visibility checks):
    the agent is offered it in full on every request, most other tools by name only until it asks for
    them (``agent/tool_offer.py``; upstream's ``core_interaction`` toolset counts as well)."""
    delegating: bool = False
    records_delegates: bool = False
    """When a call of this tool delegates (``invoke`` returned calls), a recording keeps the delegates, not
    the call itself, whatever ``is_recordable`` says (MCP tools returning ``_trailblaze_delegates``)."""
    platforms: frozenset[str] | None = None
    """Lower-case platforms (``web``, ``android``, ``ios``, ``host``) the tool runs on; None = all."""
    drivers: frozenset[str] | None = None
    """Driver keys the tool runs on; None = all."""
    trailmap: str | None = None
    toolsets: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def parameters(self) -> ParameterSchema | None:
        """The argument schema, or None for a schemaless tool (no validation, as upstream)."""
        return ParameterSchema(())

    def prepare(self, args: dict[str, Any]) -> Any:
        """Validate and normalise arguments; raise ``ValueError`` naming the key. Result goes to invoke."""
        schema = self.parameters()
        if schema is None:
            return {k: v for k, v in args.items() if k != "_trailblazeContext"}
        return schema.validate(args, owner=f"tool '{self.name}'", allow_extra=ANNOTATION_KEYS)

    def invoke(self, prepared: Any, ctx: ToolContext) -> "ToolResult | list[ToolCall]":
        raise NotImplementedError(f"tool '{self.name}' ({self.kind}) cannot be executed here")

    def supports(self, *, driver: str | None, platform: str | None) -> bool:
        if self.drivers is not None and driver is not None and driver not in self.drivers:
            return False
        if self.platforms is not None and platform is not None and platform not in self.platforms:
            return False
        return True

    def describe_source(self) -> str:
        return str(self.source)


class Tool(BaseModel):
    """Base class for class-backed tools: a pydantic model whose fields are the tool's parameters.

    Subclass it, set ``name`` (and optionally the flags), document it in the docstring (that is the
    description the model sees) and implement ``execute``. For a tool that expands into other tool
    calls, subclass ``DelegatingTool`` and implement ``expand`` instead.
    """

    # ``defer_build``: a plugin's tool models are built when first used, not when the plugin loads, so
    # a command that touches few tools (``check`` of one trail) does not build every model of every plugin.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, coerce_numbers_to_str=True,
                              frozen=False, defer_build=True)

    name: ClassVar[str] = ""
    description: ClassVar[str | None] = None
    surface_to_llm: ClassVar[bool] = True
    is_recordable: ClassVar[bool] = True
    requires_host: ClassVar[bool] = False
    is_verification: ClassVar[bool] = False
    is_read_only: ClassVar[bool] = False
    """Looks or navigates only, changing no data of the app (``ToolDefinition.is_read_only``)."""
    is_core: ClassVar[bool] = False
    """One of the platform's everyday actions or checks, offered to the agent in full (``ToolDefinition.is_core``)."""
    platforms: ClassVar[Collection[str] | None] = None
    """Platforms the tool runs on (``("web",)``, ``{"android", "ios"}``; any case); None = all."""
    drivers: ClassVar[Collection[str] | None] = None
    """Driver keys the tool runs on (``("playwright-native",)``); None = all."""
    toolsets: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _drop_class_var_annotations(cls)

    def execute(self, ctx: ToolContext) -> "ToolResult | str | None":
        raise NotImplementedError(f"{type(self).__name__}.execute")

    @classmethod
    def tool_description(cls) -> str:
        """``description``, else the docstring as plain text (reST markup is for humans' renderers)."""
        if cls.description:
            return cls.description
        import inspect

        from .text import plain_text

        return plain_text(inspect.cleandoc(cls.__doc__ or "").strip())

    @classmethod
    def definition(cls, source: ToolSource | None = None) -> "ClassToolDefinition":
        return ClassToolDefinition.of(cls, source)


def _drop_class_var_annotations(cls: type[BaseModel]) -> None:
    """Pydantic evaluates the string annotations of every base again for each new subclass, fields
    excepted: with every plugin's tool classes loaded, re-evaluating ``Tool``'s nine ``ClassVar``
    declarations was 765 of the 1,374 annotation evaluations of ``trailblaze check`` (about 10 ms of its
    start-up). Once a class exists, pydantic has recorded its ClassVars in ``__class_vars__`` (inherited
    by subclasses, guarded by ``__setattr__``), so the annotations are not needed at run time any more;
    type checkers read them from the source."""
    own = cls.__dict__.get("__annotations__")
    if own:
        cls.__annotations__ = {key: value for key, value in own.items() if key not in cls.__class_vars__}


_drop_class_var_annotations(Tool)


def _unbuildable_field(tool_class: type[Tool], exc: PydanticUserError) -> str:
    """Which field of ``tool_class`` pydantic cannot build, and the type it stops at: pydantic's own
    message names neither the field nor the tool, and its advice (``arbitrary_types_allowed=True``)
    would make the model accept any object, which a tool's arguments (JSON from a trail or a model)
    never are. Runs only on the error path, one field at a time."""
    import re

    from pydantic import TypeAdapter

    for name, info in tool_class.model_fields.items():
        if info.annotation is None:
            continue
        try:
            TypeAdapter(info.annotation)
        except PydanticUserError as field_exc:
            declared = getattr(info.annotation, "__qualname__", None) or repr(info.annotation)
            found = re.search(r"schema for <class '([^']+)'>", str(field_exc))
            stops = found.group(1) if found else declared
            return (f"field '{name}' has type {declared}, and pydantic cannot validate {stops} (not a builtin, "
                    "pydantic model, dataclass, Enum or TypedDict); type the field with one of those")
        except Exception:  # noqa: BLE001 - only the field pydantic refuses is of interest here
            continue
    return str(exc).splitlines()[0]


class DelegatingTool(Tool):
    """A class-backed tool that expands into other tool calls at run time (``tap(ref)`` → selector)."""

    def expand(self, ctx: ToolContext) -> list[ToolCall]:
        raise NotImplementedError(f"{type(self).__name__}.expand")


@dataclass(kw_only=True)
class ClassToolDefinition(ToolDefinition):
    kind: ClassVar[str] = "class"
    tool_class: type[Tool]

    @classmethod
    def of(cls, tool_class: type[Tool], source: ToolSource | None = None) -> "ClassToolDefinition":
        if not tool_class.name:
            raise TypeError(f"{tool_class.__qualname__} has no 'name' class attribute")
        return cls(
            name=tool_class.name, description=tool_class.tool_description(), source=source or ToolSource(),
            surface_to_llm=tool_class.surface_to_llm, is_recordable=tool_class.is_recordable,
            requires_host=tool_class.requires_host, is_verification=tool_class.is_verification,
            is_read_only=tool_class.is_read_only, is_core=tool_class.is_core, delegating=issubclass(tool_class, DelegatingTool),
            platforms=_names(tool_class, "platforms", lower=True), drivers=_names(tool_class, "drivers"),
            toolsets=tuple(tool_class.toolsets), tool_class=tool_class,
        )

    @cached_property
    def _schema(self) -> ParameterSchema:
        try:
            return class_schema(self.tool_class)
        except PydanticUserError as exc:
            raise self._unbuildable(exc) from None

    def parameters(self) -> ParameterSchema:
        return self._schema

    def build(self) -> None:
        """Build the tool's model now, as its first call would, so a class pydantic cannot build is reported
        before a run reaches it. A fraction of the cost of its JSON Schema (``parameters``), which listing
        every plugin (``trailblaze plugins``) does not need."""
        try:
            self.tool_class.model_rebuild()
        except PydanticUserError as exc:
            raise self._unbuildable(exc) from None

    def _unbuildable(self, exc: PydanticUserError) -> PluginToolError:
        """Tool models are built on first use (``defer_build``): a class pydantic cannot build fails
        there, named as the plugin's tool, not as a pydantic traceback in the middle of a run. (A plain
        ``except`` at each use, not a context manager: ``prepare`` runs twice per dispatched call.)"""
        return PluginToolError(
            f"tool '{self.name}' ({self.tool_class.__module__}.{self.tool_class.__qualname__}, from "
            f"{self.source}) cannot be built: {_unbuildable_field(self.tool_class, exc)}")

    def prepare(self, args: dict[str, Any]) -> Tool:
        fields = self.tool_class.model_fields
        if any(k in ANNOTATION_KEYS and k not in fields for k in args):
            args = {k: v for k, v in args.items() if k not in ANNOTATION_KEYS or k in fields}
        try:
            return self.tool_class.model_validate(args)
        except PydanticUserError as exc:
            raise self._unbuildable(exc) from None
        except ValidationError as exc:
            raise ValueError(format_validation_error(exc, owner=f"tool '{self.name}'",
                                                     known=[p.name for p in self._schema])) from None

    def invoke(self, prepared: Any, ctx: ToolContext) -> "ToolResult | list[ToolCall]":
        if self.delegating:
            return list(prepared.expand(ctx))
        result = prepared.execute(ctx)
        if result is None:
            return ToolResult(True)
        if isinstance(result, str):
            return ToolResult(True, result)
        if not isinstance(result, ToolResult):
            raise TypeError(f"tool '{self.name}' returned {type(result).__name__}; return a ToolResult, a str or None")
        return result


_class_schemas: "weakref.WeakKeyDictionary[type[Tool], ParameterSchema]" = weakref.WeakKeyDictionary()
_class_schemas_lock = threading.Lock()


def class_schema(tool_class: type[Tool]) -> ParameterSchema:
    """``tool_class``'s parameters, derived once per process: the schema is the class's alone, while its
    definitions are made again by every registry (each run's, each session's), and walking pydantic's
    JSON Schema costs ~2-3 ms per tool, ~50 ms on a web session's first model request. The
    ``ParameterSchema`` is read-only, so the definitions share it. Held weakly: a class made at run time
    (a test's) is not kept alive by it. A class pydantic cannot build raises each time, cached never."""
    with _class_schemas_lock:
        found = _class_schemas.get(tool_class)
    if found is None:
        from .model_schema import schema_from_model  # local: keeps pydantic schema walking off import

        found = schema_from_model(tool_class)
        with _class_schemas_lock:
            found = _class_schemas.setdefault(tool_class, found)
    return found


def _names(tool_class: type[Tool], flag: str, *, lower: bool = False) -> frozenset[str] | None:
    """A class flag as the definition keeps it: any collection of names an author writes (a tuple, a list,
    a set) becomes a frozenset. A bare string is refused: ``drivers = "web"`` would read as its letters."""
    value: Collection[str] | None = getattr(tool_class, flag)
    if value is None:
        return None
    if isinstance(value, str) or not all(isinstance(name, str) for name in value):
        raise TypeError(f"{tool_class.__qualname__}.{flag} must be a collection of names such as "
                        f"('{'web' if lower else 'playwright-native'}',), got {value!r}")
    return frozenset(name.lower() for name in value) if lower else frozenset(value)


__all__ = [
    "ANNOTATION_KEYS", "ClassToolDefinition", "Contributions", "DelegatingTool", "OtherTool", "Tool",
    "ToolCall", "ToolDefinition", "ToolResult", "ToolSource",
]
