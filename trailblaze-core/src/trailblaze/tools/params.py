"""Parameter schemas: one model for a tool call's arguments and for a plugin's configuration.

Seed 002 asks for one ``ParameterSchema`` that serves both pathways (runtime arguments and
instantiation configuration), one generator to JSON Schema (inline, no ``$ref``) and validation with
messages that name the tool and the key. Class-backed tools, YAML tools and MCP tools all end up here,
so descriptors and validation behave the same whatever the source.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet  # the type of ``allow_extra``: a set or frozenset, not copied
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..contract.argument_messages import format_validation_error, known_arguments_hint


class ParamType(str, enum.Enum):
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ENUM = "enum"
    OBJECT = "object"
    ARRAY = "array"
    ANY = "any"

    @classmethod
    def parse(cls, text: str | None) -> "ParamType":
        """Accept JSON-Schema words and the common aliases authors type (``int``, ``bool``, ``float``)."""
        if text is None:
            return cls.STRING
        word = text.strip().lower()
        try:
            return cls(_TYPE_ALIASES.get(word, word))
        except ValueError:
            raise ValueError(f"unknown parameter type '{text}' (use string, integer, number, boolean, "
                             "enum, object or array)") from None


_TYPE_ALIASES = {"int": "integer", "long": "integer", "float": "number", "double": "number",
                 "bool": "boolean", "str": "string", "list": "array", "map": "object", "dict": "object"}

_MISSING: Any = object()


class ParameterDefinition(BaseModel):
    """One parameter: what an LLM, a recording or a config file may pass under ``name``."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    type: ParamType = ParamType.STRING
    description: str = ""
    required: bool = True
    default: Any = None
    has_default: bool = False
    enum_values: tuple[str, ...] | None = None
    items: "ParameterDefinition | None" = None
    properties: "tuple[ParameterDefinition, ...] | None" = None
    additional_properties: bool = True
    hidden_from_llm: bool = False
    """Selector-typed parameters: valid in recordings, never offered to a model."""
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    exclusive_maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    """A regular expression the string must contain a match of (JSON Schema ``pattern``: add ``^…$``)."""
    min_items: int | None = None
    max_items: int | None = None
    any_of: "tuple[ParameterDefinition, ...] | None" = None
    """A union (``int | str``, ``dict[str, Any] | list[Any] | None``): the value must fit one of these
    (``type`` is ``any``); advertised as JSON Schema ``anyOf``, as pydantic writes it. ``None`` (null) is
    never a variant: an absent or null argument is the parameter's default, as for ``X | None``."""
    sensitive: bool = False
    """The parameter takes secrets (a password): the agent may put a ``{{secret}}`` token here and
    nowhere else. Declared as ``sensitive: true`` in a YAML tool's parameters or an MCP tool's
    ``inputSchema`` property, or ``Field(json_schema_extra={"sensitive": True})`` on a class tool."""
    file_path: bool = False
    """The parameter names files on the machine that runs the trail (a string, or an array of them), read
    relative to the trail file. A call made where there is no trail file (a live session, ``trailblaze
    mcp``, ``trailblaze step``) records them absolute, and the trail writer turns them relative to the
    file it writes (``trail.file_params``), so the trail replays from any directory. Declared as
    ``filePath: true`` in an MCP tool's ``inputSchema`` property, or ``Field(json_schema_extra={"filePath":
    True})`` on a class tool."""

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {}
        t = self.type
        if t is ParamType.ENUM:
            schema["type"] = "string"
            schema["enum"] = list(self.enum_values or ())
        elif t is ParamType.ANY:
            if self.any_of:
                schema["anyOf"] = [v.json_schema() for v in self.any_of]
        else:
            schema["type"] = t.value
            if self.enum_values:
                schema["enum"] = list(self.enum_values)
        if self.description:
            schema["description"] = self.description
        if self.has_default and self.default is not None:
            schema["default"] = self.default
        if t is ParamType.ARRAY:
            schema["items"] = self.items.json_schema() if self.items else {}
        if t is ParamType.OBJECT and self.properties is not None:
            schema["properties"] = {p.name: p.json_schema() for p in self.properties}
            req = [p.name for p in self.properties if p.required and not p.has_default]
            if req:
                schema["required"] = req
            if not self.additional_properties:
                schema["additionalProperties"] = False
        if t in (ParamType.INTEGER, ParamType.NUMBER) and "enum" in schema:
            schema["enum"] = [_number(v) for v in schema["enum"]]
        schema.update(self.constraints())
        return schema

    def coerce(self, value: Any, *, owner: str = "tool") -> Any:
        """``value`` checked and coerced as an argument for this parameter (``ValueError`` if it is not
        one): what ``ParameterSchema.validate`` does for each argument, for a single value."""
        errors: list[str] = []
        out = _coerce(self, value, owner, self.name, errors)
        if errors:
            raise ValueError("; ".join(errors))
        return out

    def constraints(self) -> dict[str, Any]:
        """The JSON Schema limits this parameter carries (``minimum``, ``maxLength``, ``pattern``...)."""
        fields = self.__dict__
        return {key: _number(value) if isinstance(value, float) else value
                for key, attr in CONSTRAINT_KEYS.items() if (value := fields[attr]) is not None}


class ParameterSchema:
    """An ordered set of parameters with validation and a cached JSON Schema.

    ``closed`` schemas reject unknown keys (every schema we know is closed; an MCP tool without an
    ``inputSchema`` has no ``ParameterSchema`` at all and skips validation, as upstream does).
    """

    def __init__(self, parameters: Iterable[ParameterDefinition] = (), *, closed: bool = True) -> None:
        self.parameters: tuple[ParameterDefinition, ...] = tuple(parameters)
        self.closed = closed
        names = [p.name for p in self.parameters]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"duplicate parameter name(s): {', '.join(sorted(dupes))}")
        self._by_name = {p.name: p for p in self.parameters}

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.parameters)

    def __len__(self) -> int:
        return len(self.parameters)

    def get(self, name: str) -> ParameterDefinition | None:
        return self._by_name.get(name)

    @cached_property
    def _schema(self) -> dict[str, Any]:
        return self._build(include_hidden=True)

    @cached_property
    def _llm_schema(self) -> dict[str, Any]:
        if not any(p.hidden_from_llm for p in self.parameters):
            return self._schema  # the same (read-only) object: most tools hide nothing from the model
        return self._build(include_hidden=False)

    def _build(self, *, include_hidden: bool) -> dict[str, Any]:
        params = [p for p in self.parameters if include_hidden or not p.hidden_from_llm]
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {p.name: p.json_schema() for p in params},
        }
        required = [p.name for p in params if p.required and not p.has_default]
        if required:
            schema["required"] = required
        if self.closed:
            schema["additionalProperties"] = False
        return schema

    def json_schema(self, *, for_llm: bool = False) -> dict[str, Any]:
        """JSON Schema of the arguments (inline, no ``$ref``). Cached; callers must not mutate it."""
        return self._llm_schema if for_llm else self._schema

    @classmethod
    def from_json_schema(cls, schema: Mapping[str, Any] | None) -> "ParameterSchema":
        """Build from a JSON Schema object (MCP ``inputSchema``): ``required`` splits params, a missing
        ``type`` means string, a string ``enum`` becomes enum values."""
        schema = schema or {}
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        params = [_param_from_json(name, spec if isinstance(spec, Mapping) else {}, name in required)
                  for name, spec in props.items()]
        closed = schema.get("additionalProperties") is not True
        return cls(params, closed=closed)

    def validate(self, args: Mapping[str, Any] | None, *, owner: str = "tool",
                 allow_extra: Iterable[str] = ()) -> dict[str, Any]:
        """Check and normalise ``args``; return a new dict with defaults filled in.

        Raises ``ValueError`` with one message per problem joined by ``; `` — callers wrap it in the
        error type of their pathway (tool argument or configuration) and add the location.
        """
        errors: list[str] = []
        extra = allow_extra if isinstance(allow_extra, (set, frozenset)) else set(allow_extra)  # per call: no copy
        # ``args`` is only read (the result is a new dict) and the names are this schema's: no copy, no set per call.
        out = _validate_object(self.parameters, self.closed, args or {}, owner, "", errors, extra, self._by_name)
        if errors:
            raise ValueError("; ".join(errors))
        return out


def _number(value: Any) -> Any:
    """``1.0`` → ``1`` (JSON Schema limits read back as written); other values unchanged."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


CONSTRAINT_KEYS = {"minimum": "minimum", "maximum": "maximum", "exclusiveMinimum": "exclusive_minimum",
                   "exclusiveMaximum": "exclusive_maximum", "minLength": "min_length", "maxLength": "max_length",
                   "pattern": "pattern", "minItems": "min_items", "maxItems": "max_items"}
"""JSON Schema keyword → ``ParameterDefinition`` field, for every limit we describe and enforce."""


def constraints_from_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The limits of a JSON Schema property as ``ParameterDefinition`` fields (wrong types are dropped)."""
    out: dict[str, Any] = {}
    if CONSTRAINT_KEYS.keys().isdisjoint(spec):
        return out
    for key, attr in CONSTRAINT_KEYS.items():
        value = spec.get(key)
        if key == "pattern":
            if isinstance(value, str):
                out[attr] = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[attr] = int(value) if attr.endswith(("_length", "_items")) else value
    return out


def _param_from_json(name: str, spec: Mapping[str, Any], required: bool) -> ParameterDefinition:
    union = spec.get("anyOf", spec.get("oneOf")) if "type" not in spec else None
    if isinstance(union, list):
        variants = [v for v in union if isinstance(v, Mapping) and v.get("type") != "null"]
        rest = {k: v for k, v in spec.items() if k not in ("anyOf", "oneOf")}
        if len(variants) == 1:  # ``X | None`` written by hand (pydantic's is inlined by ``inline_refs``)
            return _param_from_json(name, {**variants[0], **rest}, required)
        if variants:
            return _param_from_json(name, rest, required).model_copy(update={
                "type": ParamType.ANY, "any_of": tuple(_variant(name, v) for v in variants)})
    raw_type = spec.get("type")
    if isinstance(raw_type, list):  # ["string", "null"]
        raw_type = next((t for t in raw_type if t != "null"), "string")
    enum_values = spec.get("enum")
    try:
        ptype = ParamType.parse(raw_type) if raw_type else ParamType.STRING
    except ValueError:
        ptype = ParamType.ANY
    items = None
    if ptype is ParamType.ARRAY and isinstance(spec.get("items"), Mapping):
        item_spec = spec["items"]  # ``items: {}`` (``list[Any]``) takes anything
        items = _variant("items", item_spec)
    properties = None
    if ptype is ParamType.OBJECT and isinstance(spec.get("properties"), Mapping):
        req = set(spec.get("required") or [])
        properties = tuple(_param_from_json(k, v if isinstance(v, Mapping) else {}, k in req)
                           for k, v in spec["properties"].items())
    has_default = "default" in spec
    return ParameterDefinition(
        name=name, type=ptype, description=str(spec.get("description") or ""),
        required=required and not has_default, default=spec.get("default"), has_default=has_default,
        enum_values=tuple(str(v) for v in enum_values) if isinstance(enum_values, list) and enum_values else None,
        items=items, properties=properties,
        additional_properties=spec.get("additionalProperties") is not False,
        **constraints_from_json(spec),
        sensitive=spec.get("sensitive") is True,
        file_path=spec.get("filePath") is True,
    )


def _variant(name: str, spec: Mapping[str, Any]) -> ParameterDefinition:
    """One member of a union: a member without a type (``Any``) takes anything, unlike a property
    without one (which means string, as upstream reads MCP schemas)."""
    if not (spec.get("type") or spec.get("enum") or spec.get("properties") or spec.get("anyOf")
            or spec.get("oneOf")):
        return ParameterDefinition(name=name, type=ParamType.ANY, description=str(spec.get("description") or ""))
    return _param_from_json(name, spec, True)


def _validate_object(params: tuple[ParameterDefinition, ...], closed: bool, args: Mapping[str, Any], owner: str,
                     prefix: str, errors: list[str], allow_extra: AbstractSet[str],
                     known: Collection[str] | None = None) -> dict[str, Any]:
    if known is None:
        known = {p.name for p in params}
    out: dict[str, Any] = {}
    if closed:
        for key in args:
            if key not in known and key not in allow_extra:
                errors.append(f"{owner}: unknown argument '{prefix}{key}'{known_arguments_hint(known)}")
    for key, value in args.items():
        if key not in known:
            out[key] = value
    for p in params:
        path = f"{prefix}{p.name}"
        value = args.get(p.name, _MISSING)
        if value is _MISSING or value is None:
            if p.has_default:
                if p.default is not None:
                    out[p.name] = p.default
                continue
            if p.required and value is _MISSING:
                errors.append(f"{owner}: missing required argument '{path}'")
                continue
            if p.required and value is None:
                errors.append(f"{owner}: argument '{path}' must not be null")
                continue
            continue
        out[p.name] = _coerce(p, value, owner, path, errors)
    return out


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _coerce(p: ParameterDefinition, value: Any, owner: str, path: str, errors: list[str]) -> Any:
    """Coerce only where no information is lost: "5"→5, "true"→True, 5→5.0, 5→"5"."""
    t = p.type

    def bad() -> Any:
        wanted = "one of " + ", ".join(p.enum_values or ()) if t is ParamType.ENUM else _article(t.value)
        errors.append(f"{owner}: argument '{path}' must be {wanted}, got {_type_name(value)} {value!r}")
        return value

    if t is ParamType.ANY:
        return value if p.any_of is None else _coerce_union(p, p.any_of, value, owner, path, errors)
    if t is ParamType.STRING:
        if isinstance(value, str):
            result = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            result = str(value)
        elif isinstance(value, bool):
            result = "true" if value else "false"
        else:
            return bad()
        if p.enum_values and result not in p.enum_values:
            return _enum_error(p, result, owner, path, errors)
        _text_limits(p, result, owner, path, errors)
        return result
    if t is ParamType.ENUM:
        text = str(value) if not isinstance(value, (list, dict)) else None
        if text is None:
            return bad()
        if p.enum_values and text not in p.enum_values:
            upper = {v.upper(): v for v in p.enum_values}
            if text.upper() in upper:
                return upper[text.upper()]
            return _enum_error(p, text, owner, path, errors)
        return text
    if t is ParamType.INTEGER:
        if isinstance(value, bool):
            return bad()
        if isinstance(value, int):
            result_i = value
        elif isinstance(value, float) and value.is_integer():
            result_i = int(value)
        elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            result_i = int(value.strip())
        else:
            return bad()
        _bounds(p, result_i, owner, path, errors)
        return result_i
    if t is ParamType.NUMBER:
        if isinstance(value, bool):
            return bad()
        if isinstance(value, (int, float)):
            result_f: int | float = value
        elif isinstance(value, str):
            try:
                result_f = float(value)
            except ValueError:
                return bad()
            if math.isnan(result_f):
                return bad()
            if result_f.is_integer() and value.strip().lstrip("+-").isdigit():
                result_f = int(result_f)
        else:
            return bad()
        _bounds(p, result_f, owner, path, errors)
        return result_f
    if t is ParamType.BOOLEAN:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return bad()
    if t is ParamType.ARRAY:
        if not isinstance(value, list):
            return bad()
        _count_limits(p, len(value), owner, path, errors)
        if p.items is None:
            return list(value)
        return [_coerce(p.items, v, owner, f"{path}[{i}]", errors) for i, v in enumerate(value)]
    if t is ParamType.OBJECT:
        if not isinstance(value, Mapping):
            return bad()
        if p.properties is None:
            return dict(value)
        return _validate_object(p.properties, not p.additional_properties, dict(value), owner, f"{path}.",
                                errors, set())
    return value


def _coerce_union(p: ParameterDefinition, variants: tuple[ParameterDefinition, ...], value: Any, owner: str,
                  path: str, errors: list[str]) -> Any:
    """The first member the value already is (``"5"`` stays a string for ``int | str``), else the first
    it coerces to without loss, as pydantic's smart unions choose."""
    exact = [v for v in variants if _is_exactly(v.type, value)]
    for variant in [*exact, *(v for v in variants if v not in exact)]:
        attempt: list[str] = []
        out = _coerce(variant, value, owner, path, attempt)
        if not attempt:
            return out
    wanted = " or ".join(dict.fromkeys(_article(v.type.value) for v in variants))
    errors.append(f"{owner}: argument '{path}' must be {wanted}, got {_type_name(value)} {value!r}")
    return value


def _is_exactly(t: ParamType, value: Any) -> bool:
    name = _type_name(value)
    return (t is ParamType.ANY or t.value == name or (t is ParamType.NUMBER and name == "integer")
            or (t is ParamType.ENUM and name == "string"))


def _enum_error(p: ParameterDefinition, value: str, owner: str, path: str, errors: list[str]) -> str:
    errors.append(f"{owner}: argument '{path}' must be one of {', '.join(p.enum_values or ())}, got {value!r}")
    return value


def _bounds(p: ParameterDefinition, value: float, owner: str, path: str, errors: list[str]) -> None:
    checks = ((p.minimum, ">=", value >= p.minimum if p.minimum is not None else True),
              (p.maximum, "<=", value <= p.maximum if p.maximum is not None else True),
              (p.exclusive_minimum, ">", value > p.exclusive_minimum if p.exclusive_minimum is not None else True),
              (p.exclusive_maximum, "<", value < p.exclusive_maximum if p.exclusive_maximum is not None else True))
    for limit, word, ok in checks:
        if limit is not None and not ok:
            errors.append(f"{owner}: argument '{path}' must be {word} {limit:g}, got {value}")


def _text_limits(p: ParameterDefinition, value: str, owner: str, path: str, errors: list[str]) -> None:
    if p.min_length is None and p.max_length is None and p.pattern is None:
        return  # the common case, on every string argument of every call
    import re

    if p.min_length is not None and len(value) < p.min_length:
        errors.append(f"{owner}: argument '{path}' must be at least {p.min_length} character(s) long, got {value!r}")
    if p.max_length is not None and len(value) > p.max_length:
        errors.append(f"{owner}: argument '{path}' must be at most {p.max_length} character(s) long, got {value!r}")
    if p.pattern is not None:
        try:
            matched = re.search(p.pattern, value) is not None
        except re.error:
            return  # a pattern Python cannot compile (ECMA-only syntax): described, not enforced here
        if not matched:
            errors.append(f"{owner}: argument '{path}' must match the pattern {p.pattern!r}, got {value!r}")


def _count_limits(p: ParameterDefinition, count: int, owner: str, path: str, errors: list[str]) -> None:
    if p.min_items is not None and count < p.min_items:
        errors.append(f"{owner}: argument '{path}' must have at least {p.min_items} item(s), got {count}")
    if p.max_items is not None and count > p.max_items:
        errors.append(f"{owner}: argument '{path}' must have at most {p.max_items} item(s), got {count}")


Field = Field  # re-export for tool authors: ``from trailblaze.tools.params import Field``

__all__ = [
    "CONSTRAINT_KEYS", "ParamType", "ParameterDefinition", "ParameterSchema", "constraints_from_json",
    "format_validation_error",
]
