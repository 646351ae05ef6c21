"""Compact JSON as UTF-8 bytes: the one encoder the large outputs share (the JSON summary, the merged
report's data, a result bundle's ``results.jsonl``).

Those files hold a line or a row per trail, so at suite scale their encoding is a visible part of a
run's and a merge's time: for 10,000 trails, orjson encodes the summary's rows in about 40 % of the time
pydantic-core's ``to_json`` takes, byte for byte the same text (its floats are the same shortest
round-trip form). orjson is a dependency on CPython; elsewhere, and for the few values orjson refuses
(an integer past 64 bits, a key that is not a string, a lone surrogate), pydantic-core's ``to_json``
encodes them as it did before. Types orjson would write its own way (dates, dataclasses, subclasses of
the built-in types) are passed to pydantic-core's rules too, so the text never depends on which encoder
ran. A value neither can encode raises ``PydanticSerializationError``, as ``to_json`` does.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.functional_serializers import PlainSerializer, WrapSerializer
from pydantic_core import to_json, to_jsonable_python

try:
    import orjson
except ImportError:  # not CPython: pydantic-core alone
    orjson = None  # type: ignore[assignment]

__all__ = ["dumps", "model_json"]

_OPTIONS = 0 if orjson is None else (orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
                                     | orjson.OPT_PASSTHROUGH_SUBCLASS)
"""What orjson writes its own way goes to ``to_jsonable_python`` instead (see the module docstring)."""


def dumps(value: Any) -> bytes:
    """``value`` as compact JSON (no spaces, non-ASCII text as UTF-8), as ``pydantic_core.to_json`` writes
    it, with an infinite or NaN float written ``null`` (``to_json`` writes ``Infinity``, which no JSON
    reader accepts)."""
    if orjson is not None:
        try:
            return orjson.dumps(value, default=to_jsonable_python, option=_OPTIONS)
        except orjson.JSONEncodeError:
            pass  # what orjson refuses: pydantic-core's rules decide (and raise where they refuse too)
    return to_json(value, inf_nan_mode="null")


def model_json(model: BaseModel) -> bytes | None:
    """``model`` as its own serialiser writes it (``model.__pydantic_serializer__.to_json``), encoded from
    its fields by orjson when its class serialises nothing its own way (no alias, exclusion, custom
    serialiser, computed or extra field: ``_plain``), its nested models alike; None when it does, or
    when there is no orjson: the caller's serialiser then writes it. Values are written as the fields
    hold them: a validated model holds its declared types; an ``int`` assigned to a ``float`` field
    without validation is written ``5`` where pydantic writes ``5.0`` (the same JSON number)."""
    if orjson is None or not _plain(type(model)):
        return None
    try:
        return orjson.dumps(model.__dict__, default=_nested, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return None


def _nested(value: Any) -> Any:
    if isinstance(value, BaseModel):
        if not _plain(type(value)):  # orjson stops: the whole model goes to its own serialiser
            raise TypeError(f"{type(value).__name__} serialises some field its own way")
        return value.__dict__
    return to_jsonable_python(value)


_PLAIN: dict[type[BaseModel], bool] = {}


def _plain(cls: type[BaseModel]) -> bool:
    """Whether the fields of ``cls`` as they are (``__dict__``, in declaration order) are what its
    serialiser writes. Worked out once per class."""
    known = _PLAIN.get(cls)
    if known is None:
        config = cls.model_config
        decorators = cls.__pydantic_decorators__
        known = _PLAIN[cls] = (
            not cls.__pydantic_root_model__ and config.get("extra") != "allow"
            and config.get("ser_json_inf_nan", "null") == "null"
            and not config.get("serialize_by_alias") and not config.get("alias_generator")
            and not cls.__pydantic_computed_fields__ and not decorators.field_serializers
            and not decorators.model_serializers
            and all(field.alias is None and field.serialization_alias is None and not field.exclude
                    and field.exclude_if is None
                    and not any(isinstance(m, (PlainSerializer, WrapSerializer)) for m in field.metadata)
                    for field in cls.model_fields.values()))
    return known
