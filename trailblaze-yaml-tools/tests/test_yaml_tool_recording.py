"""Serialization and recording of YAML tool calls (seed 000 polymorphic serialization; upstream §8).

* A call to a YAML tool is written ``- name: {args}`` / ``{"toolName", "raw"}``; a process that does not
  have the YAML decodes it as an ``OtherTool`` that keeps its raw arguments and resolves at dispatch.
* What a recording keeps: a recordable YAML tool by its own name with the caller's authored arguments;
  one with ``is_recordable: false`` by its expansion (its recordable children).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from trailblaze.logs import read_log
from trailblaze.session import ExecutedCall
from trailblaze.tools.base import OtherTool, ToolCall
from trailblaze.tools.registry import ToolRegistry
from trailblaze.tools.codec import ToolCodec
from trailblaze.tools.serialization import encode_json
from trailblaze.yamlio import dump_plain, load_fast

NOTE = """
id: demo_note
description: Remember a note, then pause.
parameters:
  - {name: text, type: string}
  - {name: seconds, type: number, required: false, default: 0}
tools:
  - rememberValue: {variable: note, value: "{{params.text}} for {{memory.user}}"}
  - wait: {timeToWaitInSeconds: "{{params.seconds}}"}
"""


def recorded(executed: list[ExecutedCall]) -> list[ToolCall]:
    """The recording rule the runner applies (upstream §8 as the issue settles it): top-level recordable
    calls as authored; a non-recordable delegating call contributes its recordable children instead."""
    # ``executed`` is in completion order (children before their parent); rebuild the call tree.
    nodes: list[tuple[ExecutedCall, list]] = []  # type: ignore[type-arg]
    pending: dict[int, list] = {}  # type: ignore[type-arg]
    for call in executed:
        children = pending.pop(call.depth + 1, [])
        pending.setdefault(call.depth, []).append((call, children))
    nodes = pending.get(0, [])

    def walk(node) -> list[ToolCall]:  # type: ignore[no-untyped-def]
        call, children = node
        if call.is_recordable:
            return [call.authored]
        if call.delegating:
            return [c for child in children for c in walk(child)]
        return []

    return [c for node in nodes for c in walk(node)]


def test_recordable_yaml_tool_is_recorded_by_its_own_name_with_authored_args(write, load, tool) -> None:
    ws = load(write(tool("demo_note", NOTE)))
    session = ws.session(memory={"user": "ann", "greeting": "hi"})
    authored = ToolCall("demo_note", {"text": "{{greeting}}", "seconds": 0})
    assert session.dispatcher.call(authored, session.context()).success
    assert session.memory.get("note") == "hi for ann"
    assert recorded(session.executed) == [ToolCall("demo_note", {"text": "{{greeting}}", "seconds": 0})]
    top = session.executed[-1]
    assert (top.depth, top.delegating, top.is_recordable) == (0, True, True)
    session.log.close()
    logs = {e["toolName"]: e for e in session.log.entries if "toolName" in e}
    parent = logs["demo_note"]
    assert parent["class"].endswith("DelegatingTrailblazeToolLog")
    assert parent["isTopLevelToolCall"] is True and parent["isRecordable"] is True
    assert parent["rawTrailblazeTool"] == {"toolName": "demo_note", "raw": {"text": "{{greeting}}", "seconds": 0}}
    assert parent["trailblazeTool"] == {"toolName": "demo_note", "raw": {"text": "hi", "seconds": 0}}
    assert logs["wait"]["isTopLevelToolCall"] is False


def test_non_recordable_yaml_tool_records_its_expansion(write, load, tool) -> None:
    ws = load(write(tool("demo_note", NOTE.replace("parameters:", "is_recordable: false\nparameters:"))))
    session = ws.session(memory={"user": "ann"})
    assert session.dispatcher.call(ToolCall("demo_note", {"text": "milk"}), session.context()).success
    # rememberValue and wait are recordable; the memory token of the body is kept as authored
    assert recorded(session.executed) == [
        ToolCall("rememberValue", {"variable": "note", "value": "milk for {{memory.user}}"}),
        ToolCall("wait", {"timeToWaitInSeconds": 0}),
    ]


def test_non_recordable_children_of_a_non_recordable_tool_are_not_recorded(write, load, tool) -> None:
    root = write({
        **tool("demo_inner", "id: demo_inner\ndescription: d\nparameters: []\nis_recordable: false\n"
                             "tools: [{wait: {timeToWaitInSeconds: 0}}, {exec: {argv: [\"true\"]}}]\n"),
        **tool("demo_outer", "id: demo_outer\ndescription: d\nparameters: []\nis_recordable: false\n"
                             "tools: [{demo_inner: {}}, {dumpMemory: {}}]\n"),
    })
    ws = load(root)
    session = ws.session()
    assert session.dispatcher.call(ToolCall("demo_outer", {}), session.context()).success
    # exec is not recordable (host-only), the two YAML wrappers are not: what remains is their expansion
    assert recorded(session.executed) == [ToolCall("wait", {"timeToWaitInSeconds": 0}), ToolCall("dumpMemory", {})]


def test_yaml_and_json_round_trip_with_the_yaml_present(write, load, tool) -> None:
    ws = load(write(tool("demo_note", NOTE)))
    call = ws.codec.decode_yaml_item(load_fast("demo_note: {text: '00123', seconds: 1.5}"))
    assert type(call) is ToolCall and call.args == {"text": "00123", "seconds": 1.5}
    encoded = dump_plain([ws.codec.encode_yaml(call)])
    assert load_fast(encoded) == [{"demo_note": {"text": "00123", "seconds": 1.5}}]
    wire = json.dumps(encode_json(call))
    assert json.loads(wire) == {"toolName": "demo_note", "raw": {"text": "00123", "seconds": 1.5}}
    again = ws.codec.decode_json(json.loads(wire))
    assert again == call and type(again) is ToolCall
    prepared = ws.registry.get("demo_note").prepare(again.args)
    assert prepared == {"text": "00123", "seconds": 1.5}


def test_without_the_yaml_a_call_decodes_to_other_tool_and_resolves_at_dispatch(write, load, tool) -> None:
    raw = {"text": "eggs", "seconds": 0, "reasoning": "why not"}
    # A process that never saw the YAML: an empty registry (no plugin registered the tool).
    plain = ToolCodec(registry=ToolRegistry())
    other = plain.decode_yaml_item({"demo_note": raw})
    assert isinstance(other, OtherTool) and other.name == "demo_note" and other.args == raw
    assert plain.encode_yaml(other) == {"demo_note": raw}
    assert plain.decode_json(encode_json(other)).args == raw
    # The same call, handed to a session that has the YAML, resolves by name and runs.
    ws = load(write(tool("demo_note", NOTE)))
    session = ws.session(memory={"user": "bo"})
    assert session.dispatcher.call(other, session.context()).success
    assert session.memory.get("note") == "eggs for bo"


def test_a_log_written_with_the_yaml_decodes_in_a_process_without_it(write, load, tool, tmp_path: Path) -> None:
    ws = load(write(tool("demo_note", NOTE)))
    session = ws.session(memory={"user": "cy"})
    session.dispatcher.call(ToolCall("demo_note", {"text": "tea"}), session.context())
    session.log.close()
    [entry] = [e for e in read_log(session.log_dir) if e["class"].endswith(".DelegatingTrailblazeToolLog")]
    log_file = tmp_path / "entry.json"
    log_file.write_text(json.dumps(entry))
    script = (
        "import json, sys\n"
        "from trailblaze.tools.serialization import encode_json\n"
        "from trailblaze.plugins import get_host\n"
        "from trailblaze.tools.registry import ToolRegistry\n"
        "entry = json.load(open(sys.argv[1]))\n"
        "host = get_host(); registry = ToolRegistry(); host.register_tools(registry, None)\n"
        "call = host.codec(registry).decode_json(entry['trailblazeTool'])\n"
        "print(json.dumps({'type': type(call).__name__, 'known': 'demo_note' in registry,\n"
        "                  'plugins': [p.name for p in host.plugins() if p.status == 'ok'], 'encoded': encode_json(call)}))\n")
    env = {**os.environ, "TRAILBLAZE_LOAD_PLUGINS": ""}  # no installed plugin: this process has no YAML tools
    proc = subprocess.run([sys.executable, "-c", script, str(log_file)], capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out == {"type": "OtherTool", "known": False, "plugins": [],
                   "encoded": {"toolName": "demo_note", "raw": {"text": "tea"}}}
