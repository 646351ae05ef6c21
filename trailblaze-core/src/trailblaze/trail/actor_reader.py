"""Reading the actor parts of steps (our extension, see ``trail/actors.py``): an ``actor:`` value, the rule
that every step of a trail with actors names one and records only for its platform, and ``parallel:``
blocks, read into flat steps marked with their block."""

from __future__ import annotations

from collections.abc import Callable

from .actors import Actor, platform_of_key
from .model import TrailStep
from .nodes import MappingNode, Node, NodeReader, ScalarNode, SequenceNode

__all__ = ["ActorReader", "is_parallel"]

StepReader = Callable[[Node, tuple[str | int, ...]], TrailStep]
"""Reads one step map at a source path; the parser's own, so a child of ``parallel`` is read as any step."""


class ActorReader:
    """Actors of one trail file: it needs the file's node reader and, once ``config:`` is read, the
    declared actors; every rule it checks is an error."""

    __slots__ = ("actors", "r")

    def __init__(self, reader: NodeReader) -> None:
        self.r = reader
        self.actors: dict[str, Actor] = {}
        """``config.actors`` of the trail, set by the parser once it has read ``config:``."""

    def actor(self, node: Node) -> str:
        """An ``actor:`` value: the name of an actor of ``config.actors``."""
        r = self.r
        name = r.text(node, "'actor'", "actor")
        if not name or not name.strip():
            r.fail(node, "'actor' needs the name of an actor of 'config.actors'", "actor")
        if not self.actors:
            r.fail(node, f"actor '{name}' is not declared: this trail has no 'config.actors'", "actor",
                   f"e.g. 'config:\\n  actors:\\n    {name}: web'")
        if name not in self.actors:
            r.fail(node, f"unknown actor '{name}'", "actor", f"declared actors: {', '.join(self.actors)}")
        return name

    def check(self, node: MappingNode, kind_node: Node | None, actor: str | None, noun: str) -> None:
        """In a trail with actors every step names one, and records only for that actor's platform."""
        r = self.r
        if not self.actors:
            return
        if actor is None:
            r.fail(kind_node or node, f"a {noun} of a trail with actors needs 'actor:'", "actor",
                   f"declared actors: {', '.join(self.actors)}")
        platform = self.actors[actor].platform
        for key, _knode, vnode in r.entries(node):
            if key != "recording" or not isinstance(vnode, MappingNode):
                continue
            for cls, cnode, _calls in r.entries(vnode):
                if platform_of_key(cls) != platform:
                    r.fail(cnode, f"a recording for '{cls}' on a step of actor '{actor}', whose platform is "
                                  f"'{platform}'", cls, f"record it under '{platform}:' or give the step the "
                                                        "actor of that device")

    def parallel(self, node: MappingNode, position: int, read_step: StepReader) -> list[TrailStep]:
        """``- parallel: [...]``: children that run at the same time, at most one per actor; a child is a
        step or a list of steps of one actor. Returned flat, in file order, each marked with the block."""
        r = self.r
        (key, knode, vnode), *rest = list(r.entries(node))
        if key != "parallel" or rest:
            other = knode if key != "parallel" else rest[0][1]
            r.fail(other, "a 'parallel:' item holds only its list of children", str(other.value),
                   "put 'actor:' and the other step keys on the children")
        if not self.actors:
            r.fail(knode, "'parallel' needs actors: declare the devices under 'config.actors'", "parallel",
                   "e.g. 'config:\\n  actors: {alice: web, bob: web}'")
        if not isinstance(vnode, SequenceNode) or not vnode.value:
            r.fail(vnode if not r.is_null(vnode) else knode,
                   f"'parallel' must be a list of steps (one per actor), got {r.describe(vnode)}", "parallel")
        steps: list[TrailStep] = []
        owners: dict[str, int] = {}
        for j, child in enumerate(vnode.value):
            items = child.value if isinstance(child, SequenceNode) else [child]
            if isinstance(child, SequenceNode) and not child.value:
                r.fail(child, "an empty list in 'parallel'; give it the steps of one actor", "parallel")
            paths = [("trail", position, "parallel", j, k) for k in range(len(items))] \
                if isinstance(child, SequenceNode) else [("trail", position, "parallel", j)]
            child_actor: str | None = None
            for item, path in zip(items, paths):
                if is_parallel(item):
                    assert isinstance(item, MappingNode)
                    nested = next(k for k, _ in item.value if k.value == "parallel")
                    r.fail(nested, "a 'parallel' block cannot hold another 'parallel'", "parallel",
                           "list the steps of one actor as a child instead")
                if isinstance(item, SequenceNode):
                    r.fail(item, "a list inside a list of 'parallel'; a child is a step or a list of steps",
                           "parallel")
                step = read_step(item, path)
                step.block = position
                if child_actor is not None and step.actor != child_actor:
                    r.fail(_actor_node(item) or item, f"a list child of 'parallel' is the steps of one actor: "
                           f"'{step.actor}' here, '{child_actor}' before", "actor",
                           "give each actor its own child")
                child_actor = step.actor
                steps.append(step)
            assert child_actor is not None  # a step requires an actor once actors are declared
            if child_actor in owners:
                first = items[0]
                r.fail(_actor_node(first) or first, f"two children of one 'parallel' are for actor '{child_actor}' "
                       f"(children {owners[child_actor] + 1} and {j + 1})", "actor",
                       "an actor does one thing at a time: put its steps in one child as a list")
            owners[child_actor] = j
        return steps


def is_parallel(node: Node) -> bool:
    """Whether an item of ``trail:`` is a ``parallel:`` block rather than a step."""
    return isinstance(node, MappingNode) and any(k.value == "parallel" for k, _ in node.value)


def _actor_node(node: Node) -> Node | None:
    """The ``actor:`` value of a step map, to point an error at."""
    if isinstance(node, MappingNode):
        for knode, vnode in node.value:
            if isinstance(knode, ScalarNode) and knode.value == "actor":
                return vnode
    return None
