"""Details of upstream's web tools matched (issue 25 item 5): ``web_scroll``'s default amount and the
toolset membership of the storage-state and secret primitives (``web_core.yaml`` lists them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def test_storage_and_secret_primitives_are_web_core_members(web_host: Any) -> None:
    from trailblaze.tools.registry import ToolRegistry

    registry = ToolRegistry()
    web_host.register_tools(registry, None)
    for name in ("web_applyCookies", "web_getStorageState", "web_fillSecret"):
        definition = registry.get(name)
        assert definition is not None and "web_core" in definition.toolsets, name
    schema = web_host.codec(registry).describe(registry.get("web_scroll")).input_schema
    assert schema["properties"]["amount"]["default"] == 500


@pytest.mark.browser
def test_web_scroll_scrolls_500_pixels_by_default(tmp_path: Path, web_session: Any) -> None:
    page = tmp_path / "tall.html"
    page.write_text("<!doctype html><body style='height:5000px'><h1>Tall</h1></body>")
    web = web_session()
    web.ok("web_navigate", url=page.as_uri())
    assert "by 500px (now at 0,500)" in (web.ok("web_scroll").message or "")
