"""Turn a pydantic model into parameter definitions, with every ``$ref`` inlined.

LLM providers and MCP clients handle ``$ref``/``$defs`` unevenly (ecosystem §6.7), so descriptors are
always inline. Kept apart from ``params`` because walking pydantic's schema is only needed when a
class-backed tool is described, not on every import.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from .params import ParameterDefinition, ParameterSchema
from .text import plain_text

_MAX_DEPTH = 12


def inline_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``schema`` with ``$ref`` pointers into ``$defs`` replaced by the definitions."""
    defs = dict(schema.get("$defs") or {})

    def walk(node: Any, depth: int, names: bool = False) -> Any:
        """``names``: ``node`` maps property names to schemas (a parameter may be called ``title``)."""
        if isinstance(node, Mapping):
            if names:
                return {k: walk(v, depth) for k, v in node.items()}
            if "$ref" in node and isinstance(node["$ref"], str) and depth < _MAX_DEPTH:
                name = node["$ref"].rsplit("/", 1)[-1]
                target = dict(defs.get(name, {}))
                merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
                return walk(merged, depth + 1)
            out = {k: walk(v, depth, names=k == "properties") for k, v in node.items() if k not in ("$defs", "title")}
            # Optional[X] is rendered by pydantic as anyOf [X, null]: keep X.
            any_of = out.get("anyOf")
            if isinstance(any_of, list):
                non_null = [s for s in any_of if not (isinstance(s, Mapping) and s.get("type") == "null")]
                if len(non_null) == 1 and isinstance(non_null[0], Mapping):
                    rest = {k: v for k, v in out.items() if k != "anyOf"}
                    out = {**non_null[0], **rest}
            return out
        if isinstance(node, list):
            return [walk(v, depth) for v in node]
        return node

    result = walk(schema, 0)
    assert isinstance(result, dict)
    return result


def parameters_from_model(model: type[BaseModel], *, exclude: set[str]) -> list[ParameterDefinition]:
    schema = inline_refs(model.model_json_schema())
    built = ParameterSchema.from_json_schema(schema)
    hidden = {name for name, field in model.model_fields.items()
              if isinstance(field.json_schema_extra, Mapping) and field.json_schema_extra.get("hidden_from_llm")}
    sensitive = {name for name, field in model.model_fields.items()
                 if isinstance(field.json_schema_extra, Mapping) and field.json_schema_extra.get("sensitive")}
    aliases = {field.alias or name: name for name, field in model.model_fields.items()}
    params: list[ParameterDefinition] = []
    for p in built.parameters:
        field_name = aliases.get(p.name, p.name)
        if field_name in exclude or p.name in exclude:
            continue
        update: dict[str, Any] = {}
        if p.description:
            description = plain_text(p.description)
            if description != p.description:
                update["description"] = description
        if field_name in hidden:
            update["hidden_from_llm"] = True
        if field_name in sensitive:
            update["sensitive"] = True
        params.append(p.model_copy(update=update) if update else p)
    return params


def schema_from_model(model: type[BaseModel], *, exclude: Iterable[str] = ()) -> ParameterSchema:
    """Derive a ``ParameterSchema`` from a pydantic model's fields (class-backed tools, configs).

    Field descriptions become parameter descriptions; ``Literal``/``Enum`` become enums; a field whose
    ``json_schema_extra`` has ``{"hidden_from_llm": True}`` (selectors) is kept out of LLM descriptors.
    """
    return ParameterSchema(parameters_from_model(model, exclude=set(exclude)))
