"""The merge's path maker (``report.merge._Paths``) parses each folder once; every path it makes must be
the one pathlib and ``os.path.normpath`` make of the whole string."""

from __future__ import annotations

from os.path import join, normpath
from pathlib import Path

import pytest

from trailblaze.report.merge import _Paths

TRICKY = ["", "x", "a/b/c.trail.yaml", "a//b", "./x", "a/./b", "/abs/x", "a/..", "a/.", "a/", "../b/c",
          "../../up/log", "a/../b", ".", "..", "/", "a/b/", "trails/area-0/t.trail.yaml"]


@pytest.mark.parametrize("out", ["/tmp/merged", "merged", ".", "../out", "/"])
def test_paths_match_pathlib_and_normpath(out: str) -> None:
    paths = _Paths(out)
    for _ in range(2):  # the second time from the folders it keeps
        for text in TRICKY:
            assert paths.plain(text) == Path(text), text
            assert str(paths.plain(text)) == str(Path(text)), text
            assert paths.full(text) == Path(normpath(join(out, text))), text
            assert str(paths.full(text)) == normpath(join(out, text)), text
            assert paths.joined(text) == normpath(join(out, text)), text
    assert paths.full(None) is None
