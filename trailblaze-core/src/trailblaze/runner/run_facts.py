"""Where a session runs, as memory values a trail can read: ``{{run.shard_index}}``,
``{{run.shard_count}}``, ``{{run.worker_id}}`` and ``{{run.endpoint}}``.

So each CI shard or xdist worker can pick its own test account (``user-{{run.shard_index}}@…``) from
the same trail. They are ``Memory.facts``: tokens resolve to them, but they are not remembered values,
so prompts, ``dumpMemory`` and tool servers' context show only what the trail stored.
"""

from __future__ import annotations

from .options import RunOptions

RUN_SHARD_INDEX = "run.shard_index"
RUN_SHARD_COUNT = "run.shard_count"
RUN_WORKER_ID = "run.worker_id"
RUN_ENDPOINT = "run.endpoint"


def run_facts(options: RunOptions) -> dict[str, str]:
    """The shard (``1``/``1`` without ``--shard``) and the xdist worker id (empty outside ``-n``); the
    endpoint is known once the driver is chosen (``SessionFactory.open``)."""
    index, count = "1", "1"
    if options.shard:
        left, _, right = options.shard.partition("/")
        if left.strip().isdigit() and right.strip().isdigit():
            index, count = left.strip(), right.strip()
    return {RUN_SHARD_INDEX: index, RUN_SHARD_COUNT: count, RUN_WORKER_ID: options.worker or "",
            RUN_ENDPOINT: ""}


__all__ = ["RUN_ENDPOINT", "RUN_SHARD_COUNT", "RUN_SHARD_INDEX", "RUN_WORKER_ID", "run_facts"]
