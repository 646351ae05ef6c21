"""A parameter that names files (``file_path``) is read relative to the trail file; a call recorded
without one holds absolute files, and the trail writer turns them relative to the trail it writes, so
the trail replays from any working directory."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import Field

from trailblaze.tools.base import Tool, ToolCall
from trailblaze.tools.codec import ToolCodec
from trailblaze.tools.params import ParameterSchema
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.file_params import relative_file_paths
from trailblaze.trail.parser import load_trail
from trailblaze.trail.saveback import NewStep, append_steps


class Attach(Tool):
    """Attach files."""

    name: ClassVar[str] = "attach"
    label: str = Field(..., description="Where.")
    paths: list[str] = Field(..., description="Files.", json_schema_extra={"filePath": True})
    cover: str | None = Field(None, description="One more file.", json_schema_extra={"filePath": True})


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.add_tool(Attach)
    return reg


def test_class_and_mcp_declarations_mark_a_file_parameter() -> None:
    schema = Attach.definition().parameters()
    assert schema is not None and [p.name for p in schema if p.file_path] == ["paths", "cover"]
    assert "filePath" not in str(schema.json_schema(for_llm=True))
    mcp = ParameterSchema.from_json_schema({"type": "object", "properties": {
        "file": {"type": "string", "filePath": True}, "name": {"type": "string"}}})
    assert [p.name for p in mcp if p.file_path] == ["file"]


def test_absolute_files_become_relative_to_the_trail_and_the_rest_stays(tmp_path: Path) -> None:
    trails = tmp_path / "ws" / "trails" / "flows"
    fixture = tmp_path / "ws" / "fixtures" / "receipt.pdf"
    calls = [ToolCall("attach", {"label": str(fixture), "paths": [str(fixture), "already/relative.txt"],
                                 "cover": str(fixture)}),
             ToolCall("unknownTool", {"paths": [str(fixture)]})]
    out = relative_file_paths(calls, registry(), trails)
    assert out[0].args == {"label": str(fixture), "paths": ["../../fixtures/receipt.pdf", "already/relative.txt"],
                           "cover": "../../fixtures/receipt.pdf"}
    assert out[1] is calls[1], "a tool this registry does not know is written as it ran"
    assert relative_file_paths(calls, None, trails) is calls


def test_the_trail_writer_saves_them_relative_to_the_file(tmp_path: Path) -> None:
    fixture = tmp_path / "fixtures" / "receipt.pdf"
    fixture.parent.mkdir()
    fixture.write_text("receipt")
    trail = tmp_path / "trails" / "attach.trail.yaml"
    trail.parent.mkdir()
    codec = ToolCodec(registry=registry())
    append_steps(trail, [NewStep("Attach the receipt", "step", "web",
                                 [ToolCall("attach", {"label": "Receipt", "paths": [str(fixture)]})])], codec=codec)
    assert "../fixtures/receipt.pdf" in trail.read_text() and str(tmp_path) not in trail.read_text()
    step = load_trail(trail, codec=codec).steps[0]
    found = step.recording_for(["web"])
    assert found is not None
    written = found[1][0].args["paths"][0]
    assert (trail.parent / written).resolve() == fixture.resolve()
