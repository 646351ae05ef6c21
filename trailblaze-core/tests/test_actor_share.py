"""``ActorShare``: what the actors of one trail share across their threads. The web driver's one browser
per trail is built on it (trailblaze-driver-web/tests/test_web_actors.py proves that end to end)."""

from __future__ import annotations

import threading

import trailblaze
from trailblaze import ActorShare
from trailblaze.session import Session


def test_peers_name_the_actors_on_a_driver_in_trail_order() -> None:
    share = ActorShare({"alice": "playwright-native", "phone": "appium-android", "bob": "playwright-native"})
    assert share.peers("playwright-native") == ["alice", "bob"]
    assert share.peers("appium-android") == ["phone"]
    assert share.peers("host") == []


def test_the_first_caller_makes_the_value_and_every_thread_gets_that_one() -> None:
    share = ActorShare({"a": "d", "b": "d", "c": "d", "e": "d"})
    made: list[object] = []
    got: list[object] = []
    start = threading.Barrier(4)

    def make() -> object:
        value = object()
        made.append(value)
        return value

    def actor() -> None:
        start.wait()
        got.append(share.get("browser", make))

    threads = [threading.Thread(target=actor) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and got == made * 4
    assert share.get("other", lambda: 7) == 7


def test_it_is_public_and_a_session_outside_a_crew_has_none() -> None:
    assert "ActorShare" in trailblaze.__all__
    fields = Session.__dataclass_fields__
    assert fields["actor_share"].default is None and fields["actor"].default is None
