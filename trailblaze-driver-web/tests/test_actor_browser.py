"""The hand-over of one browser between the web actors of a trail, on real threads: who launches, who
waits, and that nobody waits forever when the launching actor failed or already closed."""

from __future__ import annotations

import threading

import pytest
from trailblaze import DriverError

from trailblaze_driver_web.actor_browser import ActorBrowser


def _in_thread(fn: object) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []

    def run() -> None:
        try:
            out.append(fn())  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 - the test reads it
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_the_first_actor_launches_and_the_others_get_its_endpoint() -> None:
    shared = ActorBrowser()
    alice, bob = shared.seat("alice"), shared.seat("bob")
    assert (alice.owner, bob.owner, shared.others) == (True, False, 1)
    thread, out = _in_thread(lambda: shared.wait_endpoint(30))
    shared.publish("http://127.0.0.1:9")
    thread.join()
    assert out == ["http://127.0.0.1:9"]


def test_a_launch_that_failed_is_told_to_the_waiting_actor_naming_the_owner() -> None:
    shared = ActorBrowser()
    shared.seat("alice"), shared.seat("bob")
    thread, out = _in_thread(lambda: shared.wait_endpoint(30))
    shared.publish(None, "no Chromium browser was found")
    thread.join()
    assert isinstance(out[0], DriverError)
    assert str(out[0]).startswith("the Chromium shared with actor 'alice' did not start: no Chromium browser")


def test_the_owner_closes_only_after_the_others_left_and_a_late_actor_is_refused() -> None:
    shared = ActorBrowser()
    alice, bob = shared.seat("alice"), shared.seat("bob")
    shared.publish("http://127.0.0.1:9")
    closing, out = _in_thread(lambda: alice.before_browser_close() or "closed")
    closing.join(timeout=0.2)
    assert closing.is_alive() and out == []  # Bob is still connected: Alice's browser stays open
    bob.after_close()
    bob.after_close()  # a second close of the same seat counts once
    closing.join()
    assert out == ["closed"] and shared.others == 0
    late = shared.seat("carol")
    with pytest.raises(DriverError, match="is closing"):
        shared.wait_endpoint(30)
    late.after_close()


def test_an_owner_that_ends_before_launching_releases_the_actors_waiting_for_it() -> None:
    shared = ActorBrowser()
    alice, bob = shared.seat("alice"), shared.seat("bob")
    waiting, out = _in_thread(lambda: shared.wait_endpoint(60))
    closing, _ = _in_thread(alice.before_browser_close)
    waiting.join()
    assert isinstance(out[0], DriverError)
    bob.after_close()
    closing.join()
    assert not closing.is_alive()
