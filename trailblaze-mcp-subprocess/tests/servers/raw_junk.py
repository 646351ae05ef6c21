"""A hand-written stdio JSON-RPC server (no SDK to divert its prints) that writes garbage to stdout after
answering its first tools/call: a plain line, (JUNK_MODE=partial) text with no newline before it exits, or
(JUNK_MODE=before) a debug line in place of the answer's first line, as a ``console.log`` in a handler does."""
import json
import os
import sys

mode = os.environ.get("JUNK_MODE", "line")
calls = 0


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for raw in sys.stdin:
    msg = json.loads(raw)
    m = msg.get("method")
    if m == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": msg["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "1"}}})
    elif m == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{"name": "raw_echo", "description": "echo",
              "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}})
    elif m == "tools/call":
        calls += 1
        if mode == "before":
            sys.stdout.write("DEBUG handling tools/call\n")
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "ok"}]}})
        if calls == 1:
            if mode == "line":
                sys.stdout.write("junk after answering\n")
            elif mode == "partial":
                sys.stdout.write("no newline at the end")
            sys.stdout.flush()
    elif "id" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "nope"}})
