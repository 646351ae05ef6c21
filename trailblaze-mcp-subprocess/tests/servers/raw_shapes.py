"""A hand-written stdio JSON-RPC server whose tools declare output schemas and return whatever structured
content the call asks for (``content``), fitting the schema or not: what an SDK-built server never sends,
because the SDK checks its own results first."""
import json

from raw_rpc import send, serve

SCHEMAS = {
    "shape_simple": {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]},
    # beyond the quick check's keywords: the SDK's jsonschema pass decides
    "shape_ranged": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}},
                     "required": ["n"]},
}


def on_call(msg):
    content = msg["params"]["arguments"].get("content")
    result = {"content": [{"type": "text", "text": json.dumps(content)}]}
    if content is not None:
        result["structuredContent"] = content
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})


serve("shapes", [{"name": name, "description": "returns the structured content it is given",
                  "inputSchema": {"type": "object", "properties": {"content": {"type": "object"}}},
                  "outputSchema": schema} for name, schema in SCHEMAS.items()], on_call)
