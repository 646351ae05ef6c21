"""The one encoder of the large JSON outputs (``trailblaze.json_encode``): orjson where it is installed,
the same bytes pydantic-core writes in every case, and pydantic-core alone where orjson is missing."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
import random
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import (BaseModel, ConfigDict, Field, PlainSerializer, RootModel, computed_field,
                      field_serializer)
from pydantic_core import PydanticSerializationError, to_json

from trailblaze import json_encode
from trailblaze.json_encode import dumps, model_json
from trailblaze.report.bundle import ActorRecord, HealCheckRecord, StepRecord, TrailRecord
from trailblaze.report.json_lines import model_line
from trailblaze.untrusted import output_json

orjson = pytest.importorskip("orjson")  # a dependency on CPython: the fast path is what runs here


class Colour(enum.Enum):
    RED = "red"


class Kind(enum.StrEnum):
    STEP = "step"


@dataclasses.dataclass
class Point:
    x: int
    y: float


def _values() -> list[Any]:
    rng = random.Random(7)
    floats = [0.0, -0.0, 1.0, 1e16, 1e17, 1.5e-7, 1e-5, 1790000002.85, 0.1 + 0.2, 5e-324,
              1.7976931348623157e308, 1e21, 1e22, 2850.0, 9.999999999999999e15]
    floats += [rng.uniform(-1e20, 1e20) for _ in range(2000)]
    floats += [rng.random() * 10 ** rng.randint(-30, 30) for _ in range(2000)]
    return [
        None, True, False, 0, -1, 2**63 - 1, -(2**63), 2**64 - 1, "", "plain", "é ü 中文 😀", "\u2028\u2029",
        "\x00\x01\x1f\x7f\x9f", 'quote " backslash \\ slash /', "<script>&", floats,
        {"nested": {"list": [1, [2, [3, {"deep": None}]]], "tuple": (1, "a")}},
        Path("/tmp/a b/c.png"), dt.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=dt.UTC),
        dt.datetime(2026, 1, 2, 3, 4, 5), dt.date(2026, 1, 2), dt.timedelta(seconds=90), Colour.RED,
        Kind.STEP,
        Point(1, 2.5), {"k": Kind.STEP, "p": [Point(3, 4.0)]}, b"bytes", {3}, frozenset({"x"}),
    ]


@pytest.mark.parametrize("value", _values(), ids=lambda v: type(v).__name__)
def test_dumps_writes_the_bytes_pydantic_core_writes(value: Any) -> None:
    assert dumps(value) == to_json(value)


def test_dumps_hands_what_orjson_refuses_to_pydantic_core() -> None:
    # An integer past 64 bits and a key that is not a string: orjson refuses, pydantic-core writes them.
    for value in (2**64, -(2**70), {1: "one", 2.5: "x"}, {"rows": [{"n": 2**80}]}):
        with pytest.raises(orjson.JSONEncodeError):
            orjson.dumps(value)
        assert dumps(value) == to_json(value)
    # Neither encodes a lone surrogate: the error is pydantic-core's, as the writers expect.
    with pytest.raises(PydanticSerializationError):
        dumps({"text": "half \ud83d"})
    with pytest.raises(PydanticSerializationError):
        dumps({"thing": object()})


def test_non_finite_floats_are_written_as_null_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    value = {"cost": math.inf, "low": -math.inf, "nan": math.nan}
    assert dumps(value) == b'{"cost":null,"low":null,"nan":null}'
    monkeypatch.setattr(json_encode, "orjson", None)
    assert dumps(value) == b'{"cost":null,"low":null,"nan":null}'
    assert json.loads(output_json(value)) == {"cost": None, "low": None, "nan": None}


def test_without_orjson_the_same_bytes_come_from_pydantic_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not CPython (no orjson wheel): every output is written, the same, by pydantic-core alone."""
    values = [v for v in _values() if not isinstance(v, list)]
    fast = [dumps(v) for v in values]
    record = _record()
    line = model_line(record)
    monkeypatch.setattr(json_encode, "orjson", None)
    assert [dumps(v) for v in values] == fast
    assert model_json(record) is None
    assert model_line(record) == line


def _record() -> TrailRecord:
    steps = [StepRecord(number=i, kind="step", text=f"step {i} — «tap» 😀", mode="ai" if i == 2 else "replay",
                        success=i != 3, message="boom\nline 2" if i == 3 else None, duration_ms=950 + i,
                        llm_call_count=i, llm_cost_usd=0.000123 * i, llm_tokens=100 * i,
                        tool_calls=[{"name": "tap",
                                     "args": {"selector": {"text": "OK", "index": i}, "xs": [1.5, None]}}],
                        actor="alice" if i == 1 else None, block=0 if i == 1 else None,
                        screenshot=f"step_{i}.png")
             for i in range(1, 4)]
    return TrailRecord(
        key="trails/a.trail.yaml", title="Login «ü»", trail_source="trails/a.trail.yaml", trail_id="login",
        device="web", endpoint="http://127.0.0.1:4444", driver="playwright-native", platform="web",
        classifier="web", tags=["smoke", "ünï"], attempt=2, outcome="Failed", exit_code=1,
        message="step 3: boom",
        failure_kind="ToolFailure", failed_tool="tap", session_id="s1", started_at=1790000000.25,
        completed_at=1790000002.85, duration_ms=2600, llm_call_count=3, llm_cost_usd=0.000738, llm_tokens=600,
        log_dir="logs/s1", artifacts={"screenshot": "logs/s1/step_3.png"}, steps=steps, shard="1/2",
        worker="gw0",
        bundle="../b1", last=False, workspace="/work/ws", workspace_path="trails/a.trail.yaml", run_id="r1",
        actors=[ActorRecord(name="alice", platform="web", driver="playwright-native", device="chromium",
                            session_id="s1a", log_dir="logs/s1/alice")],
        heal_check=HealCheckRecord(status="not_proven", message="replay failed", step=2, tool="tap"))


def test_a_bundle_record_is_written_as_its_pydantic_serialiser_writes_it() -> None:
    record = _record()
    expected = record.__pydantic_serializer__.to_json(record)
    assert model_json(record) == expected
    assert model_line(record) == expected + b"\n"
    read = TrailRecord.model_validate_json(expected)
    assert model_json(read) == expected
    # A record as a merge leaves it: read back, then its paths and shard changed in place.
    read.bundle, read.log_dir, read.shard = "../b2", "../b2/logs/s1", None
    assert model_json(read) == read.__pydantic_serializer__.to_json(read)
    minimal = TrailRecord(key="k", title="t", trail_source="k", outcome="Succeeded", exit_code=0,
                          started_at=1.0, completed_at=2.0, duration_ms=1000)
    assert model_json(minimal) == minimal.__pydantic_serializer__.to_json(minimal)


class _Aliased(BaseModel):
    name: str = Field(serialization_alias="Name")


class _Excluded(BaseModel):
    name: str
    secret: str = Field(exclude=True)


class _Custom(BaseModel):
    when: float

    @field_serializer("when")
    def _iso(self, value: float) -> str:
        return str(value)


class _Annotated(BaseModel):
    when: Annotated[float, PlainSerializer(lambda v: f"{v}s")]


class _Computed(BaseModel):
    a: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def b(self) -> int:
        return self.a * 2


class _Extra(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


class _Constants(BaseModel):
    model_config = ConfigDict(ser_json_inf_nan="constants")
    a: float


class _Holder(BaseModel):
    inner: list[_Aliased]


@pytest.mark.parametrize("model", [
    _Aliased(name="x"), _Excluded(name="x", secret="s"), _Custom(when=1.5), _Annotated(when=2.0),
    _Computed(a=2), _Extra(a=1, b=2), _Constants(a=math.inf), RootModel[list[int]]([1, 2]),
    _Holder(inner=[_Aliased(name="x")]),
], ids=lambda m: type(m).__name__)
def test_a_model_that_serialises_its_own_way_goes_to_its_serialiser(model: BaseModel) -> None:
    assert model_json(model) is None
    assert model_line(model) == model.__pydantic_serializer__.to_json(model) + b"\n"


def test_the_large_outputs_go_through_the_one_encoder() -> None:
    rows = {"metadata": {"devices": ["web"]}, "results": [{"title": "é", "steps": [{"n": 1, "cost": 0.1}]}]}
    assert output_json(rows) == dumps(rows).decode("utf-8") == json.dumps(rows, ensure_ascii=False,
                                                                          separators=(",", ":"))
