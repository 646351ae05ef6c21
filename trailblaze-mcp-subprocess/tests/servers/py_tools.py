"""A Python MCP tool server for the tests: every behaviour the plugin must handle, one tool each."""

from __future__ import annotations

import json
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from trailblaze_mcp_subprocess.client import TrailblazeClient, memory_result

PREFIX = os.environ.get("PY_TOOLS_PREFIX", "py")
app = MCPServer("py-tools", version="1.2.3")


def _name(base: str) -> str:
    return f"{PREFIX}_{base}"


@app.tool(name=_name("echo"), description="Echo a text back (a tier-1 handler: arguments only).")
async def echo(text: str) -> str:
    return f"echo: {text}"


@app.tool(name=_name("context"), description="Report the invocation context it received.")
async def context(ctx: Context) -> dict:
    meta = dict(ctx.request_context.meta or {})
    tb = meta.get("trailblaze") or {}
    return {"platform": tb.get("device", {}).get("platform"), "memoryX": tb.get("memory", {}).get("x"),
            "meta": meta}


@app.tool(name=_name("driverOnly"), description="Registered for one driver only.",
          meta={"trailblaze/supportedDrivers": ["android-ondevice-accessibility"]})
async def driver_only() -> str:
    return "driver only"


@app.tool(name=_name("hostOnly"), description="Needs the host agent.", meta={"trailblaze/requiresHost": True})
async def host_only() -> str:
    return "host only"


@app.tool(name=_name("otherToolset"), description="Pushed into another toolset.",
          meta={"trailblaze/toolset": "otherToolset", "trailblaze/surfaceToLlm": False,
                "trailblaze/isRecordable": "yes"})
async def other_toolset() -> str:
    return "other"


@app.tool(name=_name("remember"), description="Write memory through memoryDelta/memoryDeletions.")
async def remember(key: str, value: str, forget: str = "") -> CallToolResult:
    meta = memory_result(f"remembered {key}", delta={key: value}, deletions=[forget] if forget else None)
    meta["trailblaze"]["memoryDelta"]["notAString"] = 5  # type: ignore[index]  # must be skipped
    return CallToolResult(content=[TextContent(type="text", text=f"remembered {key}")], _meta=meta)


@app.tool(name=_name("fail"), description="Fail with isError.")
async def fail(reason: str = "it broke") -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=reason)], is_error=True,
                          structured_content={"dropped": True})


@app.tool(name=_name("failSilently"), description="Fail with isError and no text.")
async def fail_silently() -> CallToolResult:
    return CallToolResult(content=[], is_error=True)


@app.tool(name=_name("structured"), description="Return structured content.")
async def structured(n: int) -> CallToolResult:
    data = {"n": n, "double": n * 2}
    return CallToolResult(content=[TextContent(type="text", text=f"doubled {n}")], structured_content=data)


@app.tool(name=_name("delegate"), description="Delegate to other tools (Trailblaze runs and records them).",
          meta={"trailblaze/isRecordable": False})
async def delegate(key: str, value: str) -> dict:
    return {"success": True, "_trailblaze_delegates": [
        {"tool": "rememberValue", "args": {"variable": key, "value": value}},
        {"tool": _name("echo"), "args": {"text": value}},
    ]}


@app.tool(name=_name("callback"), description="Call Trailblaze back: remember a value, then read memory.")
async def callback(key: str, value: str, ctx: Context) -> dict:
    tb = TrailblazeClient.from_context(ctx)
    await tb.remember(key, value)
    memory = await tb.dump_memory()
    echoed = await tb.call_tool(_name("echo"), {"text": value})
    return {"memory": memory, "echo": echoed.text, "session": tb.session_id}


@app.tool(name=_name("callbackRaw"), description="Call back with a given tool and JSON arguments; report.")
async def callback_raw(tool: str, arguments: str, ctx: Context) -> dict:
    tb = TrailblazeClient.from_context(ctx)
    try:
        result = await tb.call_tool(tool, json.loads(arguments), check=False)
    except Exception as exc:  # noqa: BLE001 - reported to the test
        return {"refused": str(exc), "code": getattr(exc, "code", None)}
    return {"success": result.success, "text": result.text, "error": result.error}


@app.tool(name=_name("look"), description="Take a snapshot through Trailblaze and report it.",
          annotations=ToolAnnotations(readOnlyHint=True))
async def look(ctx: Context) -> str:
    tb = TrailblazeClient.from_context(ctx)
    return f"{tb.platform}: {await tb.snapshot('look')}"


@app.tool(name=_name("callbackNoId"), description="Call back without an invocation id (single-device fallback).")
async def callback_no_id(ctx: Context) -> dict:
    import asyncio
    import urllib.request

    base = (ctx.request_context.meta or {})["trailblaze"]["baseUrl"]
    body = json.dumps({"version": 1, "action": {"type": "call_tool", "tool_name": "dumpMemory",
                                                "arguments_json": "{}"}}).encode()

    def post() -> dict:
        req = urllib.request.Request(base + "/scripting/callback", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    return await asyncio.to_thread(post)


@app.tool(name=_name("block"), description="Publish this call's ids (not its token) to a directory, then wait "
                                            "for a 'release' file there; report what a callback to 'tool' gave.")
async def block(directory: str, tool: str, arguments: str, ctx: Context) -> dict:
    import asyncio
    from pathlib import Path

    tb = (ctx.request_context.meta or {})["trailblaze"]
    where = Path(directory)
    ids = {"baseUrl": tb["baseUrl"], "invocationId": tb["invocationId"], "sessionId": tb["sessionId"]}
    (where / "ids.json.tmp").write_text(json.dumps(ids))
    (where / "ids.json.tmp").rename(where / "ids.json")
    while not (where / "release").exists():
        await asyncio.sleep(0.02)
    try:
        result = await TrailblazeClient.from_context(ctx).call_tool(tool, json.loads(arguments), check=False)
    except Exception as exc:  # noqa: BLE001 - reported to the test
        return {"refused": str(exc)}
    return {"success": result.success, "text": result.text, "error": result.error}


@app.tool(name=_name("recurse"), description="Call itself back until Trailblaze refuses.")
async def recurse(level: int, ctx: Context) -> dict:
    tb = TrailblazeClient.from_context(ctx)
    try:
        result = await tb.call_tool(_name("recurse"), {"level": level + 1})
    except Exception as exc:  # noqa: BLE001
        return {"deepest": level, "error": str(exc)}
    return json.loads(result.text)


@app.tool(name=_name("env"), description="Report environment variables.")
async def env(names: list[str]) -> dict:
    return {n: os.environ.get(n) for n in names} | {"cwd": os.getcwd()}


@app.tool(name=_name("die"), description="Exit in the middle of the call.")
async def die(code: int = 3) -> str:
    print(f"dying with {code} on purpose", file=sys.stderr, flush=True)
    os._exit(code)


@app.tool(name=_name("nested"), description="Delegate to another delegating tool (nested delegation).",
          meta={"trailblaze/isRecordable": False})
async def nested(value: str) -> dict:
    return {"_trailblaze_delegates": [{"tool": _name("delegate"), "args": {"key": "nested", "value": value}},
                                      {"tool": "rememberValue", "args": {"variable": "after", "value": value}}]}


@app.tool(name=_name("grow"), description="Add a tool to this server at run time (for reloadTools).")
async def grow(name: str) -> str:
    app.tool(name=name, description="Added at run time.")(echo)
    return f"added {name}"


@app.tool(name=_name("shrink"), description="Remove a tool from this server at run time (for reloadTools).")
async def shrink(name: str) -> str:
    app.remove_tool(name)
    return f"removed {name}"


if os.environ.get("PY_TOOLS_EXTRA_NAME"):
    app.tool(name=os.environ["PY_TOOLS_EXTRA_NAME"], description="An extra tool named by the test.")(echo)


@app.resource("trailblaze://registry", mime_type="application/json")
def registry() -> str:
    return json.dumps({
        "tools": {
            _name("echo"): {"platforms": [], "groups": ["basics"], "exposedToLlm": True, "isRecordable": True},
            _name("delegate"): {"groups": ["basics"], "isDelegating": True, "isRecordable": True},
            _name("structured"): {"exposedToLlm": False},
        },
        "groups": {"basics": {"description": "Basic tools", "defaultEnabled": True}},
        "serverInfo": {"name": "py-tools", "version": "1.2.3"},
    })


if __name__ == "__main__":
    print("py-tools starting", file=sys.stderr, flush=True)
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), json_response=True)
    else:
        app.run()
