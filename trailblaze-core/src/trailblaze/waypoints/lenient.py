"""Unknown keys in a waypoint file: dropped with a note, as upstream reads these files.

Upstream decodes waypoint files with kaml's ``strictMode = false`` (``WaypointLoader.kt``), so a key it
does not know — at any depth, a selector's ``iosMaestro.childOf`` included — is ignored, and its own
``contacts/ios/search-active`` relies on that. We read them the same way but say so: each dropped key is
one entry (its key path) for the caller to report as ``file:line``.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

KeyPath = tuple[str | int, ...]


def _models_in(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The pydantic model an annotation holds, and whether it holds a list of them (``list[M] | None``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    origin = get_origin(annotation)
    if origin in (list, tuple, typing.Sequence):
        model, _ = _models_in(get_args(annotation)[0]) if get_args(annotation) else (None, False)
        return model, model is not None
    if origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            model, many = _models_in(arg)
            if model is not None:
                return model, many
    return None, False


def drop_unknown_keys(value: Any, model: type[BaseModel], path: KeyPath = ()) -> tuple[Any, list[KeyPath]]:
    """``value`` without the keys ``model`` (and the models nested in it) does not declare, and the key
    path of each one dropped. A value of the wrong shape is returned as it is, for validation to refuse."""
    if not isinstance(value, dict):
        return value, []
    names: dict[str, str] = {}
    for name, info in model.model_fields.items():
        names[name] = name
        if info.alias:
            names[info.alias] = name
    kept: dict[Any, Any] = {}
    dropped: list[KeyPath] = []
    for key, item in value.items():
        field = names.get(str(key))
        if field is None:
            dropped.append((*path, str(key)))
            continue
        inner, many = _models_in(model.model_fields[field].annotation)
        if inner is not None and many and isinstance(item, list):
            cleaned = []
            for i, element in enumerate(item):
                element, lost = drop_unknown_keys(element, inner, (*path, str(key), i))
                cleaned.append(element)
                dropped.extend(lost)
            item = cleaned
        elif inner is not None and not many:
            item, lost = drop_unknown_keys(item, inner, (*path, str(key)))
            dropped.extend(lost)
        kept[key] = item
    return kept, dropped


__all__ = ["KeyPath", "drop_unknown_keys"]
