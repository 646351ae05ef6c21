"""What hearing every request of a trail costs, by the way it is heard: the plain Playwright script of
``bench_web_replay.py`` (the checkout trail, ~58 requests) run with no network listener, and with the web
driver's network capture (``PageEvents``: method, URL, body, status, failures, the evidence entries)
fed three ways:

- ``playwright, sync API``: ``context.on("response" | "requestfailed", ...)`` on the sync API objects
  (what the driver does): Playwright builds a Request and a Response per request and wraps each event
  for the sync API;
- ``playwright, implementation object``: the same subscription on the object behind the sync API
  (Playwright's internals): no per-event wrapping;
- ``cdp``: Chromium's own Network domain through a CDP session per page (``Network.enable``;
  ``requestWillBeSent``, ``responseReceived``, ``loadingFailed`` as plain dicts, heard on the session's
  implementation object so that Playwright does not map every dict for the sync API): no Playwright
  objects, but two events a request, each carrying headers, timings and initiators.

Each mode gets a fresh context in one browser; rounds are interleaved (every mode once per round, the
first round discarded as warm-up). Printed per mode: the median of this process's CPU (our Python: what
the listeners cost) and of the whole CPU (this process, Playwright's driver and Chromium, from /proc),
and both over the run without a listener, per trail and per request.

    uv run python benchmarks/bench_web_network_capture.py [--rounds 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_web_replay as replay  # noqa: E402 - the plain script, the shop and the CPU measure


def capture() -> Any:
    from trailblaze_driver_web.evidence import WebEvidence
    from trailblaze_driver_web.page_events import PageEvents

    return PageEvents(dialogs="accept", log=lambda kind, payload: None, evidence=WebEvidence())


def no_listener(context: Any, page: Any) -> Callable[[], int]:
    return lambda: 0


def playwright_sync(context: Any, page: Any) -> Callable[[], int]:
    from trailblaze_driver_web.page_events import listener

    events = capture()
    context.on("response", listener(events._on_response))
    context.on("requestfailed", listener(events._on_request_failed))
    return lambda: len(events.requests)


def playwright_impl(context: Any, page: Any) -> Callable[[], int]:
    """The same listeners on the object behind the sync API (Playwright's internals): they get its
    implementation objects, which have the same properties, and skip the sync API's per-event wrapping."""
    events = capture()
    impl = context._impl_obj
    impl.on("response", events._on_response)
    impl.on("requestfailed", events._on_request_failed)
    return lambda: len(events.requests)


def cdp(context: Any, page: Any) -> Callable[[], int]:
    """The same entries from Chromium's Network domain (one session: the trail never opens a second page)."""
    from trailblaze_driver_web.page_events import SentRequest

    events = capture()
    sent: dict[str, tuple[str, str, str]] = {}
    session = context.new_cdp_session(page)
    impl = getattr(session, "_impl_obj", session)

    def will_be_sent(params: dict[str, Any]) -> None:
        request = params["request"]
        sent[params["requestId"]] = (request["method"], request["url"], request.get("postData", ""))

    def response(params: dict[str, Any]) -> None:
        method, url, body = sent.get(params["requestId"], ("GET", params["response"]["url"], ""))
        events.requests.append(SentRequest(method, url, body))
        status = params["response"]["status"]
        if status >= 400:
            events.failed_requests.append({"url": url, "method": method, "status": status})

    def failed(params: dict[str, Any]) -> None:
        method, url, body = sent.pop(params["requestId"], ("GET", "", ""))
        events.requests.append(SentRequest(method, url, body))
        events.failed_requests.append({"url": url, "method": method, "failure": params.get("errorText")})

    impl.on("Network.requestWillBeSent", will_be_sent)
    impl.on("Network.responseReceived", response)
    impl.on("Network.loadingFailed", failed)
    session.send("Network.enable", {"maxPostDataSize": 64 * 1024})
    return lambda: len(events.requests)


MODES: dict[str, Callable[[Any, Any], Callable[[], int]]] = {
    "no listener": no_listener,
    "playwright, sync API": playwright_sync,
    "playwright, implementation object": playwright_impl,
    "cdp Network domain": cdp,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8, help="interleaved rounds after one warm-up round")
    rounds = parser.parse_args().rounds
    from playwright.sync_api import sync_playwright

    server, base, launch = replay.shop_and_chromium()
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in MODES}
    heard: dict[str, int] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**launch)
            procs = replay.own_children()
            for n in range(rounds + 1):
                for name, mode in MODES.items():
                    context = browser.new_context(viewport={"width": 1280, "height": 800})
                    context.set_default_timeout(5000)
                    page = context.new_page()
                    count = mode(context, page)
                    with replay.Measured(procs) as took:
                        replay.baseline_script(page, base)
                    context.close()
                    heard[name] = count()
                    if n:
                        runs[name].append((took.python, took.cpu))
            browser.close()
    finally:
        server.stop()
    python0 = statistics.median(r[0] for r in runs["no listener"])
    cpu0 = statistics.median(r[1] for r in runs["no listener"])
    requests = max(heard.values()) or 1
    print(f"the plain checkout script, {rounds} interleaved rounds, ~{requests} requests a run; medians:")
    for name, times in runs.items():
        python, cpu = statistics.median(r[0] for r in times), statistics.median(r[1] for r in times)
        print(f"  {name + ':':36s} Python CPU {python * 1000:5.0f} ms ({(python - python0) * 1000:+4.0f} ms, "
              f"{(python - python0) * 1e6 / requests:+5.0f} µs a request); all CPU {cpu * 1000:5.0f} ms "
              f"({(cpu - cpu0) * 1000:+4.0f} ms); requests heard {heard[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
