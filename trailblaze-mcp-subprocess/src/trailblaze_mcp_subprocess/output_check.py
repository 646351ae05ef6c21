"""A quick yes to "does this structured content fit the tool's output schema?", for the schemas servers
commonly declare.

The SDK checks every successful ``tools/call`` result against the tool's ``outputSchema`` with
``jsonschema`` (``ClientSession.validate_tool_result``). That pass costs ~80 µs of a ~2 ms call on
loopback, for a schema as small as the one every ``-> str`` tool of the Python SDK has
(``{"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}``).

``compile_check`` turns a schema written only with ``type``, ``properties``, ``required``,
``additionalProperties``, ``items`` (one schema for every item), boolean schemas and the ``title`` /
``description`` annotations into a plain function that answers the same as ``jsonschema`` for those
keywords (draft 6 and later: ``1.0`` is an integer, ``True`` is not a number). Any other keyword, a
malformed value of one of these (which ``jsonschema`` would reject as an invalid schema), or a
``$schema`` other than drafts 6, 7, 2019-09 and 2020-12 gives ``None``: no quick check, the SDK's own
check runs. A quick check only ever says "valid"; content it does not vouch for goes to the SDK's
check too, so a failure is reported exactly as the SDK reports it.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

_DRAFTS = frozenset({"http://json-schema.org/draft-06/schema", "http://json-schema.org/draft-07/schema",
                     "https://json-schema.org/draft/2019-09/schema",
                     "https://json-schema.org/draft/2020-12/schema"})
_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "title",
                       "description"})


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "integer": _is_integer,
    "number": _is_number,
}


def compile_check(schema: Any) -> Check | None:
    """A function that says whether a value fits ``schema``, or None when ``schema`` uses anything
    beyond the keywords above (the caller then uses a full JSON Schema validator)."""
    if isinstance(schema, Mapping) and "$schema" in schema:
        draft = schema["$schema"]
        if not isinstance(draft, str) or draft.rstrip("#") not in _DRAFTS:
            return None
        schema = {k: v for k, v in schema.items() if k != "$schema"}
    return _compile(schema)


def _accept(value: Any) -> bool:
    return True


def _refuse(value: Any) -> bool:
    return False


def _compile(schema: Any) -> Check | None:
    if schema is True:
        return _accept
    if schema is False:
        return _refuse
    if not isinstance(schema, Mapping) or not _KEYWORDS.issuperset(schema):
        return None
    for note in ("title", "description"):
        if note in schema and not isinstance(schema[note], str):
            return None
    types = _types(schema["type"]) if "type" in schema else ()
    if types is None:
        return None
    properties: dict[str, Check] = {}
    raw_properties = schema.get("properties", {})
    if not isinstance(raw_properties, Mapping):
        return None
    for name, sub in raw_properties.items():
        check = _compile(sub)
        if check is None:
            return None
        properties[name] = check
    required = schema.get("required", [])
    if (not isinstance(required, list) or not all(isinstance(name, str) for name in required)
            or len(set(required)) != len(required)):
        return None
    additional = _compile(schema["additionalProperties"]) if "additionalProperties" in schema else _accept
    items = _compile(schema["items"]) if "items" in schema else _accept
    if additional is None or items is None:
        return None
    return _node(types, properties, tuple(required), additional, items)


def _types(raw: Any) -> tuple[Check, ...] | None:
    names = [raw] if isinstance(raw, str) else raw
    if (not isinstance(names, list) or not names or not all(isinstance(n, str) and n in _TYPES for n in names)
            or len(set(names)) != len(names)):
        return None
    return tuple(_TYPES[name] for name in names)


def _node(types: tuple[Check, ...], properties: dict[str, Check], required: tuple[str, ...],
          additional: Check, items: Check) -> Check:
    def check(value: Any) -> bool:
        if types and not any(fits(value) for fits in types):
            return False
        if isinstance(value, dict):
            for name in required:
                if name not in value:
                    return False
            for name, item in value.items():
                fits = properties.get(name, additional)
                if not fits(item):
                    return False
        elif isinstance(value, list) and items is not _accept:
            for item in value:
                if not items(item):
                    return False
        return True

    return check
