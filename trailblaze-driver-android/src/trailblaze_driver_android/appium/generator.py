"""Write a ``nodeSelector`` that resolves to exactly one chosen node (what ``tap(ref)`` records).

A recording must survive the next build of the app, so the generator prefers identity over position:
a resource id, then the node's text, content description or hint, then pairs of those with the class,
then a labelled child (``containsChild``, how a clickable row is named by its text), then the same
inside a uniquely identified ancestor (``childOf``), and only last an ``index`` among equal matches.
Every candidate is checked with the real resolver against the same tree, so what is recorded is
proven to pick the node at the time of recording. Android selectors use the ``androidAccessibility``
shape and iOS the ``iosMaestro`` shape, as upstream's default drivers record them. Values with regex
metacharacters are written as ``\\Q…\\E`` literals, as upstream's recorder does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trailblaze import NodeSelector

from .hierarchy import ANDROID, Hierarchy, Node
from .patterns import escape_for_selector
from .selectors import resolve


def _match_dict(node: Node, fields: dict[str, str | bool]) -> dict[str, Any]:
    key = "androidAccessibility" if node.platform == ANDROID else "iosMaestro"
    return {key: fields}


def _own_fields(node: Node) -> list[dict[str, str | bool]]:
    """Single- and two-field driver matches for ``node``, most stable first. Each comes first with the
    plain value (readable, like upstream's minimised recordings) and then ``\\Q…\\E``-quoted; the
    uniqueness check decides which one is kept."""
    out: list[dict[str, str | bool]] = []
    rid = node.resource_id
    text = node.resolve_text
    if node.platform == ANDROID:
        singles: list[tuple[str, str | None]] = [
            ("resourceIdRegex", rid), ("textRegex", text), ("contentDescriptionRegex", node.content_desc),
            ("hintTextRegex", node.hint)]
    else:
        singles = [("resourceIdRegex", rid if rid and rid != node.label else None), ("textRegex", text),
                   ("accessibilityTextRegex", node.label), ("hintTextRegex", node.hint),
                   ("resourceIdRegex", rid)]
    class_key = "classNameRegex"
    present = [(k, str(v)) for k, v in singles if v]
    seen: set[tuple[tuple[str, str | bool], ...]] = set()

    def add(pairs: list[tuple[str, str]]) -> None:
        for transform in (lambda v: v, escape_for_selector):
            fields: dict[str, str | bool] = {k: transform(v) for k, v in pairs}
            key = tuple(sorted(fields.items()))
            if key not in seen:
                seen.add(key)
                out.append(fields)

    for k, v in present:
        add([(k, v)])
    for i, (k1, v1) in enumerate(present):
        for k2, v2 in present[i + 1:]:
            if k1 != k2:
                add([(k1, v1), (k2, v2)])
    if node.class_name:
        for k, v in present:
            add([(class_key, node.class_name), (k, v)])
    return out


def _child_label_selectors(node: Node) -> Iterator[dict[str, Any]]:
    for child in node.children:
        label = child.resolve_text
        if label and label.strip():
            child_match = _match_dict(child, {"textRegex": escape_for_selector(label)})
            if node.class_name:
                yield {**_match_dict(node, {"classNameRegex": escape_for_selector(node.class_name)}),
                       "containsChild": child_match}
            yield {"containsChild": child_match}


def _unique(h: Hierarchy, raw: dict[str, Any], target: Node) -> NodeSelector | None:
    selector = NodeSelector.model_validate(raw)
    found = resolve(h, selector).nodes
    return selector if len(found) == 1 and found[0] is target else None


def _candidates(node: Node) -> Iterator[dict[str, Any]]:
    for fields in _own_fields(node):
        yield _match_dict(node, fields)
    yield from _child_label_selectors(node)


def best_selector(h: Hierarchy, target: Node) -> NodeSelector | None:
    """A selector that resolves to ``target`` alone, or None when nothing identifies it
    (an unlabelled iOS shape: record a coordinate tap instead)."""
    own = list(_candidates(target))
    for raw in own:
        found = _unique(h, raw, target)
        if found is not None:
            return found
    # Scope to a uniquely identified ancestor.
    ancestor = target.parent
    hops = 0
    while ancestor is not None and hops < 6:
        for anc_raw in _candidates(ancestor):
            anc = NodeSelector.model_validate(anc_raw)
            if resolve(h, anc).nodes != [ancestor]:
                continue
            for raw in own:
                scoped = _unique(h, {**raw, "childOf": anc_raw}, target)
                if scoped is not None:
                    return scoped
            break
        ancestor = ancestor.parent
        hops += 1
    # Last resort: position among equal matches.
    fallbacks = own or ([_match_dict(target, {"classNameRegex": escape_for_selector(target.class_name)})]
                        if target.class_name and (target.platform == ANDROID or target.identifiable) else [])
    for raw in fallbacks:
        matches = resolve(h, NodeSelector.model_validate(raw)).nodes
        if target in matches:
            indexed = _unique(h, {**raw, "index": matches.index(target)}, target)
            if indexed is not None:
                return indexed
    return None


