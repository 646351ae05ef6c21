"""``trailblaze record [URL] --save PATH``: record a trail by demonstration.

A headed browser opens (on URL, relative to the workspace's base URL); what the person does there —
clicks, typing, choices, checks, uploads, navigation — becomes the tool calls the agent would have
recorded, grouped into steps (a pause, a navigation or Enter starts a new one). Selecting text and
pressing Alt+Shift+V (or "Verify visible" in the page's recorder bar) adds a "verify visible" check; the
bar or the terminal names the next step. Closing the window, Ctrl-C, or SIGINT, SIGTERM or SIGHUP to the
process (a closed terminal) writes what was recorded, through the same writer as ``trailblaze mcp`` and
``session save``; ``trailblaze run`` replays it.
The browser side lives in the driver (``Driver.record_actions``): this module imports no browser SDK.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click


def make_command() -> click.Command:
    from .session_options import session_options, session_values
    from .shared import CONTEXT_SETTINGS, handle_errors

    @click.command("record", context_settings=CONTEXT_SETTINGS)
    @click.argument("url", required=False)
    @click.option("--save", "save", required=True, type=click.Path(path_type=Path, dir_okay=False),
                  metavar="PATH",
                  help="The trail to write (NAME.trail.yaml; appended to when it exists).")
    @click.option("--title", metavar="TEXT", help="The trail's title (config.title) when it is created.")
    @session_options("record")
    @click.option("--secret-name", default="password", show_default=True, metavar="NAME",
                  help="What typing into a password field records: value: '{{NAME}}'.")
    @click.option("--pause", "pause_s", type=click.FloatRange(0.5, 600), default=4.0, show_default=True,
                  metavar="SECONDS", help="A pause this long between actions starts a new step.")
    @handle_errors
    def record(url: str | None, save: Path, title: str | None, secret_name: str,
               pause_s: float, **params: Any) -> None:
        """Record a trail by clicking through the app in a browser window.

        \b
        Examples:
          trailblaze record / --save trails/checkout.trail.yaml --secret-env password=SHOP_PASSWORD
          trailblaze record https://example.com --save trails/smoke.trail.yaml
        """
        from ..mcp_server.workbench import McpSettings, Workbench
        from ..recorder import RecordOptions

        values = session_values("record", params)
        headless = values.pop("hide_window")
        driver = values.pop("driver")
        values["driver_options"] = {**values["driver_options"], **({"headless": True} if headless else {})}
        settings = McpSettings(**values, headed=not headless)
        bench = Workbench(settings)
        bench.recording.recorded_with = "`trailblaze record`"
        stop = threading.Event()
        try:
            info = bench.submit(bench.connect, platform=None if driver else "web", driver=driver).result()
            bench.submit(bench.replay_setup).result()
            bench.start_trail(title)
            if url:
                opened = bench.submit(bench.call_tool, "web_navigate", {"url": url},
                                      step_text=f"Open {url}").result()
                if not opened.success:
                    from ..errors import BadInputError

                    raise BadInputError(f"could not open {url}: {opened.message}")
            click.echo(f"Recording on {info['driver']}: use the app in the window. To add a check, "
                       "select text and press Alt+Shift+V (or \"Verify visible\" in the page's recorder "
                       "bar). To name the next step, type its name in the bar, or here and press Enter. "
                       "Close the window (or press Ctrl-C here) to save.", err=True)
            names = _terminal_step_names()
            options = RecordOptions(secret_token=secret_name, pause_s=pause_s, should_stop=stop.is_set,
                                    on_action=lambda line: click.echo(f"  recorded {line}", err=True),
                                    on_warning=lambda line: click.echo(f"trailblaze record: warning: {line}",
                                                                       err=True),
                                    take_step_name=lambda: _next(names))
            with _signals_stop(stop):
                future = bench.submit(lambda: bench.connected.driver.record_actions(options))  # type: ignore[union-attr]
                while True:  # a timed wait, so the signal handlers run at once
                    try:
                        drafts = future.result(timeout=0.2)
                        break
                    except TimeoutError:
                        continue
            bench.add_recorded(drafts)
            saved = bench.submit(bench.save_trail, str(save.expanduser().resolve())).result()
        finally:
            for problem in bench.close():
                click.echo(f"trailblaze record: warning: {problem}", err=True)
        verb = "Created" if saved["created"] else "Appended to"
        steps = f"{saved['steps']} step{'s' if saved['steps'] != 1 else ''}"
        click.echo(f"{verb} {saved['file']} ({steps}); replay it with: trailblaze run {save}")

    return record


@contextlib.contextmanager
def _signals_stop(stop: threading.Event) -> Iterator[None]:
    """SIGINT (Ctrl-C, ``kill -INT``), SIGTERM and SIGHUP (the terminal closed) end the recording the way
    closing the window does: what was recorded is saved. The recorder polls ``stop``; nothing is raised
    into the thread that waits on the browser, so no call is abandoned half way."""
    wanted = [s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.getsignal(s) for s in wanted}
    for s in wanted:
        signal.signal(s, lambda _signum, _frame: stop.set())
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def _terminal_step_names() -> queue.Queue[str]:
    """Lines typed in the terminal while recording, each naming the step the next action starts."""
    names: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            if line.strip():
                names.put(" ".join(line.split()))

    threading.Thread(target=read, name="trailblaze-record-names", daemon=True).start()
    return names


def _next(names: queue.Queue[str]) -> str | None:
    try:
        return names.get_nowait()
    except queue.Empty:
        return None


command = make_command()
