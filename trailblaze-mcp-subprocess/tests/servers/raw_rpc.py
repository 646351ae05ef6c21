"""What the hand-written stdio JSON-RPC test servers share (no SDK in between: they can send what an SDK
never would): one message per line, the handshake, the tool list, and an error for any other request."""
import json
import sys
from collections.abc import Callable
from typing import Any


def send(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def serve(name: str, tools: list[dict[str, Any]], on_call: Callable[[dict[str, Any]], None]) -> None:
    """Answer requests from stdin until it closes; ``on_call`` answers each ``tools/call`` itself."""
    for raw in sys.stdin:
        msg = json.loads(raw)
        method = msg.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": tools}})
        elif method == "tools/call":
            on_call(msg)
        elif "id" in msg:
            send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "nope"}})
