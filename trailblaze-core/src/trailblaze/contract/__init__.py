"""The contract types at the bottom of the core: what tools, drivers and sessions hand each other.

Nothing here imports anything above it (no session, no tool registry, no plugin host), and this
``__init__`` imports nothing, so importing one of these modules never runs a layer above: ``calls``
(tool calls and results), ``sources`` (who contributed an entry to a registry), ``device`` (what a
driver reports, the step it is told about, and the driver protocol a session holds) and ``recording``
(what a driver that records a person hands back). The public names stay where plugin authors import
them today (``trailblaze.tools``, ``trailblaze.driver``, ``trailblaze.recorder``), which re-export them. See
docs/architecture.md ("The contract layer").
"""
