"""A Selenium Grid pool entry holds as many workers as its ``#slots=N`` says; other entries hold one."""

from __future__ import annotations

import pytest
from trailblaze.errors import BadInputError
from trailblaze.runner.endpoints import check_pool_sizes, expand_slots


def test_a_hub_entry_stands_for_one_entry_per_slot() -> None:
    pool = ["grid+http://hub:4444#slots=3", "ws://browsers-1:3000/", "grid+http://other:4444"]
    assert expand_slots(pool) == ["grid+http://hub:4444"] * 3 + ["ws://browsers-1:3000/", "grid+http://other:4444"]


def test_slots_of_another_kind_or_not_a_count_are_bad_input() -> None:
    with pytest.raises(BadInputError, match=r"endpoint 'http://appium:4723#slots=2': only a Selenium Grid hub"):
        expand_slots(["http://appium:4723#slots=2"])
    with pytest.raises(BadInputError, match="the slot count must be a whole number of at least 1"):
        expand_slots(["grid+http://hub:4444#slots=0"])


def test_workers_count_the_slots_of_the_given_pool() -> None:
    check_pool_sizes(3, ["grid+http://hub:4444#slots=3"], [])
    with pytest.raises(BadInputError, match=r"4 workers need at least 4 endpoints \(--endpoint given 3\)"):
        check_pool_sizes(4, ["grid+http://hub:4444#slots=3"], [])
