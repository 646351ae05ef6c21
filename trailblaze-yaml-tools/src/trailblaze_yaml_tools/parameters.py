"""``parameters:`` declarations of YAML tools → the core's ``ParameterSchema``.

One schema type for every tool source means a YAML tool's arguments are validated, described to a
model and shown by ``trailblaze tools`` exactly like a class-backed tool's.

Declaration keys (upstream ``TrailblazeToolParameterConfig``): ``name`` (required,
``[a-zA-Z_][a-zA-Z0-9_]*``, unique), ``type`` (``string | integer | number | boolean``, also ``enum``,
``array``, ``object``), ``required`` (default true), ``description``, ``default`` (presence-aware: an
absent default drops the key when the parameter is omitted, ``default: null`` substitutes null), and
``enum`` (allowed values; makes the parameter an enum). Our additions, in JSON Schema spelling, are
described to models and enforced like a class tool's pydantic limits: ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``minLength``, ``maxLength``, ``pattern``, ``minItems``,
``maxItems`` and ``items`` (an array's item type: ``items: integer``). ``sensitive`` (default false): the
parameter takes secrets, so the agent may pass a ``{{secret}}`` token in it (and in no other).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trailblaze import CONSTRAINT_KEYS, ParamType, ParameterDefinition, ParameterSchema, constraints_from_json

from .packing import pack, unpack
from .problems import Problem, suggest

PARAM_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
PARAM_KEYS = ("name", "type", "required", "default", "description", "enum", "items", "sensitive",
              *CONSTRAINT_KEYS)
_PARAM_KEY_SET = frozenset(PARAM_KEYS)


@dataclass(frozen=True)
class DeclaredParameters:
    schema: ParameterSchema
    null_defaults: tuple[str, ...]
    """Parameters declared with ``default: null``: omitted, they substitute null instead of dropping."""

    @property
    def names(self) -> frozenset[str]:
        return frozenset(p.name for p in self.schema)


def parse_parameters(raw: Any, *, scalar_text: ScalarText | None = None) -> DeclaredParameters:
    """Validate a ``parameters:`` list. Problems carry paths relative to ``parameters``."""
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise Problem(f"'parameters' must be a list of parameter declarations, got {type(raw).__name__}",
                      ("parameters",))
    params: list[ParameterDefinition] = []
    seen: dict[str, int] = {}
    null_defaults: list[str] = []
    for i, entry in enumerate(raw):
        where = ("parameters", i)
        if not isinstance(entry, (dict, Mapping)):
            raise Problem("a parameter is a map: '- name: x' with 'type', 'required', 'description'...", where)
        for key in entry:
            if key not in _PARAM_KEY_SET:
                hint = suggest(str(key), PARAM_KEYS)
                raise Problem(f"unknown parameter key '{key}' (known: {', '.join(PARAM_KEYS)})", (*where, key),
                              hint=hint)
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise Problem("a parameter needs a 'name'", (*where, "name") if "name" in entry else where)
        if not PARAM_NAME.match(name):
            raise Problem(f"parameter name '{name}' must match [a-zA-Z_][a-zA-Z0-9_]* (no dots, no dashes, "
                          "not starting with a digit)", (*where, "name"))
        if name in seen:
            raise Problem(f"parameter '{name}' is declared twice (also item {seen[name]})", (*where, "name"))
        seen[name] = i
        if "type" not in entry:
            raise Problem(f"parameter '{name}' needs a 'type' (string, integer, number, boolean)", where)
        try:
            ptype = ParamType.parse(str(entry["type"]))
        except ValueError as exc:
            raise Problem(str(exc), (*where, "type")) from None
        enum_raw = entry.get("enum")
        enum_values: tuple[str, ...] | None = None
        if enum_raw is not None:
            if not isinstance(enum_raw, list) or not enum_raw:
                raise Problem("'enum' must be a non-empty list of values", (*where, "enum"))
            enum_values = tuple(str(v) for v in enum_raw)
            if ptype is ParamType.STRING:
                ptype = ParamType.ENUM
        elif ptype is ParamType.ENUM:
            raise Problem(f"parameter '{name}' has type enum but no 'enum' values", (*where, "type"))
        required = entry.get("required", True)
        if not isinstance(required, bool):
            raise Problem(f"'required' must be true or false, got {required!r}", (*where, "required"))
        description = entry.get("description") or ""
        if not isinstance(description, str):
            raise Problem("'description' must be text", (*where, "description"))
        limits = constraints_from_json(entry)
        for key in CONSTRAINT_KEYS:
            if key in entry and CONSTRAINT_KEYS[key] not in limits:
                wanted = "a regular expression (text)" if key == "pattern" else "a number"
                raise Problem(f"'{key}' must be {wanted}, got {entry[key]!r}", (*where, key))
        if "pattern" in limits:
            try:
                re.compile(limits["pattern"])
            except re.error as exc:
                raise Problem(f"'pattern' is not a valid regular expression: {exc}", (*where, "pattern")) from None
        items: ParameterDefinition | None = None
        if "items" in entry:
            if ptype is not ParamType.ARRAY:
                raise Problem(f"'items' applies to array parameters, and '{name}' is {ptype.value}", (*where, "items"))
            try:
                items = ParameterDefinition(name="items", type=ParamType.parse(str(entry["items"])))
            except ValueError as exc:
                raise Problem(str(exc), (*where, "items")) from None
        sensitive = entry.get("sensitive", False)
        if not isinstance(sensitive, bool):
            raise Problem(f"'sensitive' must be true or false, got {sensitive!r}", (*where, "sensitive"))
        has_default = "default" in entry
        default = entry.get("default")
        if has_default and default is None:
            null_defaults.append(name)
        elif has_default and ptype is ParamType.STRING and not isinstance(default, str) and scalar_text is not None:
            # "00123" unquoted is the integer 123 to YAML; a string parameter keeps what was written.
            default = scalar_text.text((*where, "default"), default)
        param = ParameterDefinition(
            name=name, type=ptype, description=description.strip(), required=required and not has_default,
            default=default, has_default=has_default and default is not None, enum_values=enum_values,
            items=items, sensitive=sensitive, **limits,
        )
        if param.has_default:
            try:
                typed = param.coerce(default, owner=f"parameter '{name}'")
            except ValueError as exc:
                raise Problem(str(exc).replace(f"argument '{name}'", "default"), (*where, "default")) from None
            if typed is not default:  # "5" for an integer: keep the typed value
                param = param.model_copy(update={"default": typed})
        params.append(param)
    return DeclaredParameters(ParameterSchema(params), tuple(null_defaults))


class ScalarText:
    """The source text of scalars, for the rare value whose YAML type loses what was written."""

    def __init__(self, text: str, base: tuple[Any, ...] = ()) -> None:
        self._text = text
        self._base = base
        self._root: Any = None

    def text(self, path: tuple[Any, ...], fallback: Any) -> Any:
        from trailblaze import load_yaml_roundtrip

        try:
            if self._root is None:
                self._root = load_yaml_roundtrip(self._text)
            node = self._root
            full = (*self._base, *path)
            for key in full[:-1]:
                node = node[key]
            line, col = node.lc.value(full[-1])
        except Exception:  # noqa: BLE001 - best effort: keep the loaded value
            return fallback
        raw = self._text.splitlines()[line][col:]
        # Only plain scalars get here (YAML typed them as numbers or booleans): they end at a comment or, in
        # flow style, at the next ',', '}' or ']'.
        raw = re.split(r"\s+#|[,}\]]", raw, maxsplit=1)[0].strip()
        return raw if raw else fallback


class YamlParameterSchema(ParameterSchema):
    """The declared parameters of a YAML tool file, which pickle as their source.

    A catalog read back from the cache (``cache.py``) carries each tool's JSON Schemas, already built —
    all that describing a tool to a model or an MCP client needs — and the raw ``parameters:`` list as
    bytes (``cache.pack``). The parameter objects, needed only to validate a call, are parsed again from
    that list on first use, so loading 10,000 cached tools builds neither 30,000 parameter models nor
    the lists and maps they were declared with.
    """

    def __init__(self, declared: ParameterSchema, origin: tuple[Any, str, tuple[Any, ...]]) -> None:
        super().__init__(declared.parameters, closed=declared.closed)
        self._origin = origin
        """``(raw parameters list, file, key path of the declaration)``."""

    def __reduce__(self) -> tuple[Any, ...]:
        full, llm = self.json_schema(), self.json_schema(for_llm=True)
        packed = self.__dict__.get("_packed") or pack(self._origin)
        return _lazy_schema, (packed, self.closed, full, full if llm == full else llm)

    def __getattr__(self, name: str) -> Any:
        # Only reached on an unpickled schema, whose parameters are parsed on first use.
        if name in ("parameters", "_by_name") and "_packed" in self.__dict__:
            raw, file, base = unpack(self.__dict__["_packed"])
            try:
                text: str | None = Path(file).read_text(encoding="utf-8")
            except OSError:
                text = None
            declared = parse_parameters(raw, scalar_text=ScalarText(text, base) if text else None).schema
            self.__dict__["parameters"] = declared.parameters
            self.__dict__["_by_name"] = {p.name: p for p in declared.parameters}
            return self.__dict__[name]
        raise AttributeError(name)


def _lazy_schema(packed: bytes, closed: bool, schema: dict[str, Any],
                 llm_schema: dict[str, Any]) -> YamlParameterSchema:
    obj = YamlParameterSchema.__new__(YamlParameterSchema)
    obj.__dict__.update(_packed=packed, closed=closed, _schema=schema, _llm_schema=llm_schema)
    return obj
