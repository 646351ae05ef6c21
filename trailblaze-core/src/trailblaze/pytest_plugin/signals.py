"""Signals in a pytest process that runs trails: a controller's first signal reaches its workers, and a
worker stops with its controller.

SIGINT, SIGTERM and SIGHUP end a pytest run of trails as they end ``trailblaze run``
(``runner/interrupt.py``): the running trail is recorded as CANCELLED with the step it reached, and the
outputs are written. Under xdist the controller hands the signal on to each worker (a signal sent to the
controller alone, as CI sends it, would otherwise leave the workers running their trails under pid 1),
and each worker gets SIGTERM from the kernel when its controller dies, SIGKILL included
(``children.exit_with_parent``): it stops its trail instead of finishing it for nobody.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from typing import Any

import pytest

CONTROLLER_PID = "trailblaze_controller_pid"
"""The ``workerinput`` key that tells a worker its controller's pid."""


class RunSignals:
    """One per pytest process that runs trails (registered as ``trailblaze-signals``)."""

    def __init__(self) -> None:
        self._handlers = ExitStack()
        self._gateways: list[Any] = []

    def install(self, config: pytest.Config) -> None:
        from ..children import exit_with_parent
        from ..runner.interrupt import handle_signals

        workerinput = getattr(config, "workerinput", None)
        parent = workerinput.get(CONTROLLER_PID) if workerinput else None
        if parent is None:
            self._handlers.enter_context(handle_signals(forward=self.forward))
            return
        self._handlers.enter_context(handle_signals(parent=int(parent)))
        exit_with_parent(int(parent))

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist controller: each worker learns whose death ends it."""
        node.workerinput[CONTROLLER_PID] = os.getpid()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_newgateway(self, gateway: Any) -> None:
        self._gateways.append(gateway)

    def forward(self, signum: int) -> None:
        """xdist controller: ``signum`` to every worker still running. execnet keeps the ``Popen`` of a
        local worker as ``gateway._io.popen``: the one handle on its process there is."""
        for gateway in self._gateways:
            popen = getattr(getattr(gateway, "_io", None), "popen", None)
            if popen is not None and popen.returncode is None:
                try:
                    os.kill(popen.pid, signum)
                except OSError:
                    pass  # it ended meanwhile

    def pytest_unconfigure(self) -> None:
        self._handlers.close()
