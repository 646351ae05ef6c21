"""Initializes, then ignores SIGTERM and stdin EOF: only SIGKILL stops it."""
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)

from mcp.server.mcpserver import MCPServer

app = MCPServer("hang")


@app.tool(name="hang_sleep", description="Sleeps far longer than any test.")
async def sleep_long(seconds: float = 3600) -> str:
    import asyncio

    await asyncio.sleep(seconds)
    return "woke up"


if __name__ == "__main__":
    print("hang: ignoring SIGTERM", file=sys.stderr, flush=True)
    try:
        app.run()
    finally:
        # stdin closed: stay alive anyway (a badly written server), even if nobody reads stderr any more
        try:
            print("hang: stdin closed, staying alive", file=sys.stderr, flush=True)
        except OSError:
            pass
        while True:
            time.sleep(1)
