"""The contract types at the bottom of the core: what tools, drivers and sessions hand each other.

Nothing here imports anything above it (no session, no tool registry, no plugin host), and this
``__init__`` imports nothing, so importing one of these modules never runs a layer above: ``calls``
(tool calls and results), ``sources`` (who contributed an entry to a registry), ``device`` (what a
driver reports, the step it is told about, and the driver protocol a session holds), ``recording``
(what a driver that records a person hands back), ``markers`` (the project's name and the pluggy markers;
``hookimpl`` is public as ``trailblaze.hookimpl``) and ``argument_messages`` (how a bad argument or
setting is phrased, for the tool model and the configuration alike). The public names stay where plugin authors import
them today (``trailblaze.tools``, ``trailblaze.driver``, ``trailblaze.recorder``), which re-export them. See
docs/architecture.md ("The contract layer").
"""
