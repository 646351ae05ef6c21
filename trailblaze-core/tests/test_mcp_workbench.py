"""The state behind ``trailblaze mcp`` (``trailblaze.mcp_server.workbench``), in process on the in-memory
driver: how calls group into steps, how secrets and refs are recorded, how a trail is created or appended
to (comments kept), and that what it writes replays with ``trailblaze run``. The MCP protocol itself is
tested end to end, with real browsers and the real SDK, in ``tests/test_mcp_server.py``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from trailblaze import hookimpl
from trailblaze.context import ToolContext
from trailblaze.errors import BadInputError, UnknownToolError
from trailblaze.mcp_server.acting import DeviceActions
from trailblaze.mcp_server.devices import Devices
from trailblaze.mcp_server.tool_offer import ToolOffer
from trailblaze.mcp_server.trail_recording import TrailRecording, tokenized
from trailblaze.mcp_server.workbench import McpSettings, Workbench
from trailblaze.memory import Memory, Redactor
from trailblaze.plugins import PluginHost
from trailblaze.runner.lifecycle import SessionFactory
from trailblaze.runner.workspace import ToolWorkspace
from trailblaze.testing import MemoryDriver, installed_host, new_host, run_cli
from trailblaze.tools.base import Tool, ToolCall, ToolResult
from trailblaze.tools.registry import ToolRegistry

SECRET = "s3cret-value"


class MemTap(Tool):
    """Tap an element by its ref (e2) or its text."""

    name = "mem_tap"
    target: str = Field(..., description="A ref from the screen or the element's text.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        driver = ctx.driver
        assert isinstance(driver, MemoryDriver)
        text = self.target
        if text.startswith("e") and text[1:].isdigit():
            text = driver.elements[int(text[1:]) - 1]
        driver.act("tap", text=text)
        result = ToolResult.ok(f"tapped {text}")
        if text != self.target:
            result.recorded_args = {"target": text}  # refs do not survive; the text does
        return result


class MemSee(Tool):
    """Check that a text is on the screen."""

    name = "mem_see"
    is_verification = True
    text: str = Field(..., description="The exact text.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        driver = ctx.driver
        assert isinstance(driver, MemoryDriver)
        if self.text in driver.elements:
            return ToolResult.ok(f"{self.text} is visible")
        return ToolResult.fail(f"{self.text} is not visible")


class MemPlugin:
    @hookimpl
    def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
        for cls in (MemTap, MemSee):
            registry.add_tool(cls, drivers=frozenset({"in-memory"}))


@pytest.fixture
def host() -> Iterator[PluginHost]:
    h = new_host()
    h.register(MemPlugin(), name="mem")
    with installed_host(h):
        yield h


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "trails" / "config").mkdir(parents=True)
    (tmp_path / "trails" / "config" / "trailblaze.yaml").write_text(
        "drivers:\n  in-memory:\n    elements: [Sign in, Welcome]\n")
    return tmp_path


@pytest.fixture
def bench(ws: Path, host: PluginHost) -> Iterator[Workbench]:
    wb = Workbench(McpSettings(workspace=ws, secrets={"pw": SECRET}, output_dir=ws / "logs"), host=host)
    try:
        yield wb
    finally:
        wb.close()


def on_device(wb: Workbench, fn: Any, *args: Any, **kwargs: Any) -> Any:
    return wb.submit(fn, *args, **kwargs).result(timeout=60)


def test_calls_under_one_text_are_one_step_and_refs_secrets_are_recorded_replayably(bench: Workbench) -> None:
    info = on_device(bench, bench.connect, driver="in-memory")
    assert info["driver"] == "in-memory" and info["classifier"] == "memory"
    assert {"mem_tap", "mem_see"} <= {d["name"] for d in on_device(bench, bench.descriptors)}
    first = on_device(bench, bench.call_tool, "mem_tap", {"target": "e1"}, step_text="Sign in")
    second = on_device(bench, bench.call_tool, "mem_tap", {"target": f"pw is {SECRET}"}, step_text="Sign in")
    check = on_device(bench, bench.call_tool, "mem_see", {"text": "Welcome"})
    assert first.success and first.recorded[0].args == {"target": "Sign in"}  # the ref became the text
    assert second.success and SECRET not in second.message and "***" in second.message
    assert second.recorded[0].args == {"target": "pw is {{pw}}"}  # a literal secret is saved as its token
    assert [(s.kind, s.text, len(s.calls)) for s in bench.steps] == [
        ("step", "Sign in", 2), ("verify", "Welcome is visible", 1)]
    assert check.step is bench.steps[1]


def test_save_creates_a_trail_that_replays_and_appends_keeping_comments(bench: Workbench, ws: Path,
                                                                      host: PluginHost) -> None:
    on_device(bench, bench.connect, driver="in-memory")
    bench.start_trail("Sign in on memory")
    on_device(bench, bench.run_tools, "Tap sign in", "step", [{"mem_tap": {"target": "e1"}}])
    on_device(bench, bench.run_tools, "The welcome shows", "verify", [{"mem_see": {"text": "Welcome"}}])
    saved = on_device(bench, bench.save_trail, "trails/memory.trail.yaml")
    assert saved["created"] and saved["steps"] == 2 and bench.steps == []
    path = ws / "trails" / "memory.trail.yaml"
    text = path.read_text()
    assert "title: Sign in on memory" in text and "memory: in-memory" in text
    # Hand-edit it, as people do, then record more: the edit survives the append.
    path.write_text(text.replace("trail:\n", "trail:\n  # reviewed by hand\n", 1))
    on_device(bench, bench.call_tool, "mem_tap", {"target": "Welcome"}, step_text="Tap the welcome")
    appended = on_device(bench, bench.save_trail, "trails/memory.trail.yaml")
    assert not appended["created"] and appended["steps"] == 1 and appended["firstStepIndex"] == 2
    text = path.read_text()
    assert "  # reviewed by hand\n" in text
    assert text.index("- step: Tap sign in") < text.index("- verify: The welcome shows") < text.index(
        "- step: Tap the welcome")
    assert "e1" not in text
    bench.close()
    result = run_cli(["run", str(path), "--output-dir", str(ws / "replay"), "--no-report"], host=host, cwd=ws)
    assert result.exit_code == 0, result.output
    assert "1 passed" in result.output


def test_bad_requests_are_told_with_the_fix(bench: Workbench) -> None:
    with pytest.raises(BadInputError, match="no device is connected"):
        on_device(bench, bench.call_tool, "mem_tap", {"target": "e1"})
    on_device(bench, bench.connect, driver="in-memory")
    assert "exec" not in {d["name"] for d in on_device(bench, bench.descriptors)}
    with pytest.raises(UnknownToolError, match="not offered over MCP") as refused:
        on_device(bench, bench.call_tool, "exec", {"argv": [sys.executable, "-V"]})
    assert "--allow-host-tools" in (refused.value.hint or "")
    with pytest.raises(BadInputError, match=r"tools\[0\]"):
        on_device(bench, bench.run_tools, "Tap", "step", ["mem_tap"])
    with pytest.raises(BadInputError, match="no model is configured") as no_model:
        on_device(bench, bench.solve, "Tap the button", "step")
    assert "'tools'" in (no_model.value.hint or "")
    with pytest.raises(BadInputError, match="nothing has been recorded"):
        on_device(bench, bench.save_trail, "trails/x.trail.yaml")
    with pytest.raises(BadInputError, match="not a trail file name"):
        bench.trail_path("notes.txt")
    failed = on_device(bench, bench.call_tool, "mem_see", {"text": "Checkout"})
    assert not failed.success and failed.recorded == [] and bench.steps == []


def test_host_tools_are_offered_with_the_opt_in(ws: Path, host: PluginHost) -> None:
    wb = Workbench(McpSettings(workspace=ws, allow_host_tools=True, output_dir=ws / "logs"), host=host)
    try:
        on_device(wb, wb.connect, platform="host")
        assert "exec" in {d["name"] for d in on_device(wb, wb.descriptors)}
        ran = on_device(wb, wb.call_tool, "exec", {"argv": [sys.executable, "-c", "print('hi')"]})
        assert ran.success and "hi" in ran.message and ran.recorded == []
    finally:
        wb.close()


# -- the workbench's parts, each on its own -----------------------------------------------------------
@pytest.fixture
def parts(ws: Path, host: PluginHost) -> Iterator[tuple[Devices, ToolWorkspace]]:
    settings = McpSettings(workspace=ws, secrets={"pw": SECRET}, output_dir=ws / "logs")
    factory = SessionFactory(settings.run_options(), host=host)
    workspace = factory.workspace_for(ws)
    devices = Devices(factory, workspace, settings, Redactor([SECRET]))
    try:
        yield devices, workspace
    finally:
        devices.disconnect()


def test_devices_connect_describe_look_at_and_end_the_one_device(parts: tuple[Devices, ToolWorkspace]) -> None:
    devices, _ = parts
    with pytest.raises(BadInputError, match="no device is connected"):
        devices.snapshot()
    assert "in-memory" in {d["key"] for d in devices.drivers()}
    first = devices.connect(driver="in-memory")
    info = devices.info()
    assert info is not None and info["driver"] == "in-memory" and info["classifier"] == first.classifier
    text, png = devices.snapshot()
    assert "Sign in" in text and devices.last_snapshot == text and png is None
    second = devices.connect(driver="in-memory")  # one device at a time: the first is ended
    assert second is not first and devices.connected is second and first.lifecycle.outcome is not None
    assert devices.disconnect() == [] and devices.connected is None and devices.document()["connected"] is None


def test_tool_offer_filters_host_tools_and_tells_when_the_list_changes(parts: tuple[Devices, ToolWorkspace]) -> None:
    devices, workspace = parts
    offer = ToolOffer(workspace)
    assert offer.offered_tools(None) == [] and offer.refresh(None) is False
    assert "exec" not in offer.registry_document(None)["tools"]
    session = devices.connect(driver="in-memory").session
    assert offer.refresh(session, force=True) is True
    assert {"mem_tap", "mem_see"} <= {d["name"] for d in offer.tool_descriptors}
    assert offer.refresh(session) is False  # same registry, no descriptor work
    with pytest.raises(UnknownToolError, match="allow-host-tools"):
        offer.offered(session, "exec")
    assert offer.offered(session, "mem_see").is_verification
    assert "exec" in ToolOffer(workspace, allow_host_tools=True).registry_document(session)["tools"]
    offer.clear()
    assert offer.tool_descriptors == []


def test_trail_recording_groups_numbers_tokenizes_and_saves_without_a_device(ws: Path, host: PluginHost) -> None:
    config = SessionFactory(host=host).workspace_for(ws).config
    recording = TrailRecording(config, codec=host.codec, target="shop")
    memory = Memory()
    memory.remember("pw", SECRET, sensitive=True)
    calls = tokenized([ToolCall("mem_tap", {"target": f"pw is {SECRET}"})], memory)
    assert calls[0].args == {"target": "pw is {{pw}}"}
    assert [s.index for s in (recording.with_new_step("step", "a")[-1], recording.with_new_step("step", "b")[-1])] == [0, 1]
    recording.start("Memory")
    first = recording.record("step", "Tap", "in-memory", calls)
    assert recording.record("step", "Tap", "in-memory", [ToolCall("mem_tap", {"target": "e1"})]) is first
    recording.record("verify", "Welcome", "in-memory", [ToolCall("mem_see", {"text": "Welcome"})])
    assert [len(s.calls) for s in recording.steps] == [2, 1]
    with pytest.raises(BadInputError, match="workspace"):
        recording.trail_path("../outside.trail.yaml")
    saved = recording.save(None)
    assert saved["created"] and saved["steps"] == 2 and recording.steps == []
    text = Path(saved["file"]).read_text()
    assert Path(saved["file"]).name == "memory.trail.yaml" and "target: shop" in text and "{{pw}}" in text
    assert SECRET not in text and recording.list_trails()[0]["file"] == "trails/memory.trail.yaml"


def test_device_actions_run_calls_on_the_devices_part_and_record_them(parts: tuple[Devices, ToolWorkspace],
                                                                     host: PluginHost) -> None:
    devices, workspace = parts
    recording = TrailRecording(workspace.config, codec=host.codec)
    actions = DeviceActions(devices, ToolOffer(workspace), recording)
    devices.connect(driver="in-memory")
    tapped = actions.call_tool("mem_tap", {"target": "e1"}, step_text="Sign in")
    checked = actions.run_tools("The welcome shows", "verify", [{"mem_see": {"text": "Welcome"}}])
    assert tapped.success and checked.success and tapped.recorded[0].args == {"target": "Sign in"}
    assert [(s.kind, s.text) for s in recording.steps] == [("step", "Sign in"), ("verify", "The welcome shows")]
