"""A hand-written stdio JSON-RPC server whose tools declare output schemas and return whatever structured
content the call asks for (``content``), fitting the schema or not: what an SDK-built server never sends,
because the SDK checks its own results first."""
import json
import sys

SCHEMAS = {
    "shape_simple": {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]},
    # beyond the quick check's keywords: the SDK's jsonschema pass decides
    "shape_ranged": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]},
}


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for raw in sys.stdin:
    msg = json.loads(raw)
    m = msg.get("method")
    if m == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": msg["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "shapes", "version": "1"}}})
    elif m == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [
            {"name": name, "description": "returns the structured content it is given",
             "inputSchema": {"type": "object", "properties": {"content": {"type": "object"}}}, "outputSchema": schema}
            for name, schema in SCHEMAS.items()]}})
    elif m == "tools/call":
        content = msg["params"]["arguments"].get("content")
        result = {"content": [{"type": "text", "text": json.dumps(content)}]}
        if content is not None:
            result["structuredContent"] = content
        send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    elif "id" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "nope"}})
