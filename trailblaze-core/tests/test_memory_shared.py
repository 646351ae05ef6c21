"""One memory store shared by the actors of a trail (issue 35): writers on several threads while another
reads never lose a value or break a snapshot, and a secret is marked before its value can be read."""

from __future__ import annotations

import threading

from trailblaze.memory import Memory


def test_concurrent_writers_and_a_reader_share_one_store() -> None:
    memory = Memory()
    start = threading.Barrier(5)
    errors: list[BaseException] = []

    def write(actor: str) -> None:
        start.wait()
        for i in range(2000):
            memory.remember(f"{actor}-{i}", i)
            memory.apply_delta({f"{actor}-delta": str(i)})

    def read() -> None:
        start.wait()
        try:
            for _ in range(500):
                snapshot = memory.snapshot()  # iterating while others write must not raise
                assert all(isinstance(v, str) for v in snapshot.values())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(name,)) for name in ("alice", "bob", "carol", "dave")]
    threads.append(threading.Thread(target=read))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    snapshot = memory.snapshot()
    assert len(snapshot) == 4 * 2000 + 4
    assert snapshot["bob-1999"] == "1999" and snapshot["carol-delta"] == "1999"


def test_a_value_one_actor_remembers_is_what_the_other_interpolates() -> None:
    memory = Memory()
    done = threading.Event()

    def alice() -> None:
        memory.remember("code", "XK-7")
        memory.remember("password", "hunter2", sensitive=True)
        done.set()

    threading.Thread(target=alice).start()
    assert done.wait(30)
    assert memory.interpolate({"url": "/join?code={{code}}"}) == {"url": "/join?code=XK-7"}
    assert "password" not in memory.snapshot() and memory.secret_values() == ["hunter2"]
