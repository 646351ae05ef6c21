"""A hand-written stdio JSON-RPC server (no SDK to divert its prints) that writes garbage to stdout after
answering its first tools/call: a plain line, (JUNK_MODE=partial) text with no newline before it exits, or
(JUNK_MODE=before) a debug line in place of the answer's first line, as a ``console.log`` in a handler does."""
import os
import sys

from raw_rpc import send, serve

mode = os.environ.get("JUNK_MODE", "line")
calls = 0


def on_call(msg):
    global calls
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


serve("raw", [{"name": "raw_echo", "description": "echo",
               "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}], on_call)
