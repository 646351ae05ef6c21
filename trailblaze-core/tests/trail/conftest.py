"""Helpers for the trail-format tests: parse text, expect a located error."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from trailblaze.errors import TrailFormatError
from trailblaze.trail import Trail
from trailblaze.trail.parser import load_trail


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Write dedented text to ``tmp_path/<name>`` and return the path."""

    def _write(text: str, name: str = "t.trail.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def parse(write: Callable[..., Path]) -> Callable[..., Trail]:
    def _parse(text: str, **kwargs: object) -> Trail:
        return load_trail(write(text), **kwargs)  # type: ignore[arg-type]

    return _parse


@pytest.fixture
def fails(write: Callable[..., Path]) -> Callable[..., TrailFormatError]:
    """Parse and return the TrailFormatError; asserts it is one line naming the file."""

    def _fails(text: str, **kwargs: object) -> TrailFormatError:
        path = write(text)
        with pytest.raises(TrailFormatError) as info:
            load_trail(path, **kwargs)  # type: ignore[arg-type]
        message = str(info.value)
        assert "\n" not in message, message
        assert message.startswith(str(path)), message
        assert info.value.exit_code == 3
        return info.value

    return _fails
