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


def test_kept_values_outlive_the_trail_when_the_run_keeps_them_and_a_broken_one_is_renewed_once() -> None:
    run = ActorShare({})
    first, second = ActorShare({"a": "d"}, run=run), ActorShare({"a": "d"}, run=run)
    kept = first.kept("browser", object)
    assert second.kept("browser", object) is kept  # the next trail gets the run's value
    assert first.get("browser", object) is not kept  # a trail's own values stay the trail's
    renewed = second.renew("browser", kept, object)
    assert renewed is not kept and first.renew("browser", kept, object) is renewed  # renewed by one thread only
    alone = ActorShare({"a": "d"})
    assert alone.kept("x", lambda: 1) == 1 and alone.get("x", lambda: 2) == 1  # no run: the trail's


def test_a_runs_actor_threads_are_lent_again_keep_their_scope_and_close_it_on_their_thread() -> None:
    from trailblaze.reuse import current_scope
    from trailblaze.runner.crew import ActorThreads

    pool = ActorThreads()
    closed_on: list[str] = []
    alice, bob = pool.lease(["alice", "bob"])
    scope = alice.submit(current_scope).result()
    assert scope is alice.scope and bob.submit(current_scope).result() is bob.scope
    assert alice.submit(lambda: threading.current_thread().name).result() == "trailblaze-actor-alice"
    alice.scope.get("thing", lambda: ("held", lambda: closed_on.append(threading.current_thread().name)))
    alice.release()
    bob.release()
    again = pool.lease(["carol", "dave", "erin"])  # the two idle ones first, then a new one
    assert again[:2] == [alice, bob] and again[2] not in (alice, bob)
    assert again[0].submit(lambda: current_scope().get("thing", lambda: ("new", lambda: None))).result() == "held"
    assert current_scope() is None  # the calling thread's own is untouched
    pool.close()
    assert closed_on == ["trailblaze-actor-carol"]  # closed on the thread that opened it
    assert not [t for t in threading.enumerate() if t.name.startswith("trailblaze-actor")]
