"""Live sessions: a browser or device kept open in a background process, driven by separate CLI calls.

``trailblaze session start`` starts the process (``server``), which hosts the same ``Workbench`` that
``trailblaze mcp`` hosts — so ``snapshot``/``tool``/``step``/``verify --session NAME`` act through the
same dispatcher and ``session save`` writes the trail with the same recording code. ``registry`` knows
where sessions live and which are alive; ``protocol`` is the one request/response exchange.
"""

from __future__ import annotations
