"""The ``tools:`` body of a YAML tool, compiled once at load and expanded on every call.

Rules (Decision 037 as upstream settled it, plus the seed's ``{{name}}`` spelling):

* ``{{params.x}}``, ``{{x}}``, ``${params.x}`` and ``${x}`` name the declared parameter ``x``.
* A string that is exactly one parameter token becomes the parameter's typed value (an integer stays an
  integer, a boolean a boolean, an object an object). A token inside other text splices the value's
  text form.
* An omitted optional parameter without a default drops the enclosing map key or list item; inside
  text it renders as ``""``. An explicit ``default: null`` substitutes ``null``.
* Tokens that are not parameters (``{{memory.x}}``, ``${x}`` for an undeclared ``x``, ``{{args.a.b}}``)
  stay in place; memory interpolation resolves them when the expanded call is dispatched.
* ``{{params.y}}`` for an undeclared ``y``, dotted parameter tokens (``{{params.a.b}}``, ``{{x.y}}``
  for a parameter ``x``), empty or malformed tokens and tokens in map keys are load-time errors, so a
  broken tool file never reaches a device.

Compiling turns the body into a tree of small closures; expanding walks it with the call's values and
builds fresh containers, so expansions never share mutable state with the template or each other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from trailblaze import RESERVED_TOOL_NAMES

from .packing import pack, unpack
from .problems import Key, Problem

_TOKEN = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}|\$\{([^{}]*)\}")
_IDENT = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_PASS_THROUGH = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.\-]*$")
_UNCLOSED = re.compile(r"(\{\{|\$\{)\s*params\b")


class _Drop:
    """Marker: this value came from an omitted parameter; drop the key or list item holding it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<drop>"


DROP: Any = _Drop()

Values = Mapping[str, Any]
Expand = Callable[[Values], Any]


def render(value: Any) -> str:
    """The text form of a parameter value spliced into a string (``true``, ``5``, JSON for containers)."""
    if value is None or value is DROP:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def classify_token(inner: str, declared: Collection[str], *, braces: bool = True, literal: str | None = None) -> str | None:
    """The parameter a token names, None for a pass-through token; raises ``Problem`` if it is invalid.

    ``braces`` is False for ``${…}`` tokens: outside ``params.`` they are only checked for naming a
    parameter, because ``${…}`` is also JavaScript and shell syntax (``web_evaluate`` bodies).
    """
    shown = literal or f"{{{{{inner}}}}}"
    if inner == "params" or inner.startswith("params."):
        name = inner[len("params."):] if inner.startswith("params.") else ""
        if _IDENT.match(name):
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                raise Problem(f"token '{shown}' names parameter '{name}', which is not declared "
                              f"(declared: {known})")
            return name
        if "." in name and all(_IDENT.match(p) for p in name.split(".")):
            raise Problem(f"token '{shown}' is dotted: parameter tokens name one parameter, "
                          f"like {{{{params.{name.split('.')[0]}}}}}")
        raise Problem(f"malformed token '{shown}': write {{{{params.<name>}}}} with a parameter name "
                      "made of letters, digits and '_' (not starting with a digit)")
    if _IDENT.match(inner):
        return inner if inner in declared else None
    if not braces:
        return None
    head = inner.split(".", 1)[0]
    if "." in inner and head in declared:
        raise Problem(f"token '{shown}' is dotted: parameter '{head}' is substituted whole; "
                      f"write {{{{params.{head}}}}}")
    if not inner:
        raise Problem("empty token '{{}}'")
    if not _PASS_THROUGH.match(inner):
        raise Problem(f"malformed token '{shown}': tokens name a parameter ({{{{params.x}}}}) or a "
                      "memory value ({{memory.x}}, ${x}); expressions are not evaluated")
    return None


def _compile_string(text: str, declared: Collection[str]) -> tuple[bool, Any]:
    """(is_constant, value or expand function) for one string scalar."""
    if "{{" not in text and "${" not in text:
        return True, text
    if _UNCLOSED.search(_TOKEN.sub("", text)):
        raise Problem(f"malformed token in {text!r}: a '{{{{params.' without its closing '}}}}'")
    parts: list[str | tuple[str]] = []
    pos = 0
    whole: str | None = None
    for match in _TOKEN.finditer(text):
        braces = match.group(1) is not None
        inner = (match.group(1) if braces else match.group(2) or "").strip()
        name = classify_token(inner, declared, braces=braces, literal=match.group(0))
        if name is None:
            continue
        if match.start() > pos:
            parts.append(text[pos:match.start()])
        parts.append((name,))
        if match.start() == 0 and match.end() == len(text):
            whole = name
        pos = match.end()
    if not parts:
        return True, text
    if pos < len(text):
        parts.append(text[pos:])
    if whole is not None:
        name = whole

        def expand_whole(values: Values) -> Any:
            return values.get(name, DROP)

        return False, expand_whole
    frozen = tuple(parts)

    def expand_text(values: Values) -> str:
        return "".join(p if isinstance(p, str) else render(values.get(p[0])) for p in frozen)

    return False, expand_text


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _compile(node: Any, declared: Collection[str], path: tuple[Key, ...]) -> tuple[bool, Any]:
    if isinstance(node, str):
        try:
            return _compile_string(node, declared)
        except Problem as problem:
            raise problem.at(*path) from None
    if isinstance(node, dict) or (not isinstance(node, list) and isinstance(node, Mapping)):
        entries: list[tuple[Any, bool, Any]] = []
        constant = True
        for key, value in node.items():
            if isinstance(key, str) and ("{{" in key or "${" in key) and _TOKEN.search(key):
                raise Problem(f"map key {key!r} contains a token; tokens are substituted in values only",
                              (*path, key))
            const, compiled = _compile(value, declared, (*path, key))
            constant = constant and const
            entries.append((key, const, compiled))
        if constant:
            return True, {k: v for k, _, v in entries}
        frozen_entries = tuple(entries)

        def expand_map(values: Values) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            for key, const, compiled in frozen_entries:
                if const:
                    out[key] = _copy(compiled)
                else:
                    value = compiled(values)
                    if value is not DROP:
                        out[key] = value
            return out

        return False, expand_map
    if isinstance(node, list):
        items = [_compile(v, declared, (*path, i)) for i, v in enumerate(node)]
        if all(const for const, _ in items):
            return True, [v for _, v in items]
        frozen_items = tuple(items)

        def expand_list(values: Values) -> list[Any]:
            out: list[Any] = []
            for const, compiled in frozen_items:
                if const:
                    out.append(_copy(compiled))
                else:
                    value = compiled(values)
                    if value is not DROP:
                        out.append(value)
            return out

        return False, expand_list
    return True, node


class CompiledBody:
    """A validated, compiled ``tools:`` list. ``expand(values)`` gives the list of ``{name: args}`` maps.

    It pickles as its source, packed into bytes (``cache.pack``; the compiled closures cannot be pickled),
    and unpacks and compiles again on first use after unpickling, so a catalog read from the cache pays
    only for the tools a session calls.
    """

    __slots__ = ("_calls", "_packed", "_source", "size", "tool_names")
    tool_names: tuple[str, ...]
    size: int

    def __init__(self, body: Any, declared: Collection[str], *, path: tuple[Key, ...] = ("tools",)) -> None:
        self._source = (body, tuple(declared), path)
        self._calls: tuple[tuple[str, bool, Any], ...] | None = None
        self._compile_body()

    def __getstate__(self) -> tuple[bytes, tuple[str, ...], int]:
        packed = pack(self._source) if hasattr(self, "_source") else self._packed
        return packed, self.tool_names, self.size

    def __setstate__(self, state: tuple[bytes, tuple[str, ...], int]) -> None:
        self._packed, self.tool_names, self.size = state
        self._calls = None

    def _compiled(self) -> tuple[tuple[str, bool, Any], ...]:
        if self._calls is None:
            self._compile_body()
        assert self._calls is not None
        return self._calls

    def _compile_body(self) -> None:
        if not hasattr(self, "_source"):
            self._source = unpack(self._packed)
        body, declared, path = self._source
        if not isinstance(body, list):
            raise Problem(f"'tools' must be a list of tool calls ('- toolName: {{args}}'), got "
                          f"{type(body).__name__}", path)
        calls: list[tuple[str, bool, Any]] = []
        for i, item in enumerate(body):
            where = (*path, i)
            if not isinstance(item, (dict, Mapping)) or not item:
                raise Problem("a tool call must be a map with one key, the tool name: '- toolName: {args}'",
                              where)
            if len(item) > 1:
                names = ", ".join(repr(k) for k in item)
                raise Problem(f"a tool call has exactly one key, the tool name; this item has {names} "
                              "(indent the arguments under the tool name)", where)
            name, args = next(iter(item.items()))
            if not isinstance(name, str) or not name:
                raise Problem(f"tool name must be a string, got {name!r}", where)
            if name in RESERVED_TOOL_NAMES:
                raise Problem(f"'{name}' is reserved and cannot be a tool name", (*where, name))
            if args is None:
                args = {}
            if not isinstance(args, (dict, Mapping)):
                raise Problem(f"tool '{name}': expected a map of arguments, got {type(args).__name__} "
                              f"{args!r} (write '- {name}: {{...}}')", (*where, name))
            const, compiled = _compile(dict(args), declared, (*where, name))
            calls.append((name, const, compiled))
        self._calls = tuple(calls)
        self.tool_names = tuple(name for name, _, _ in calls)
        self.size = len(calls)

    def expand(self, values: Values) -> list[dict[str, Any]]:
        """The body with ``values`` substituted: one ``{name: args}`` map per call, fresh containers."""
        return [{name: _copy(compiled) if const else compiled(values)} for name, const, compiled in self._compiled()]

    def constant_calls(self) -> list[tuple[int, str, dict[str, Any]]]:
        """Calls whose arguments hold no parameter token (checked against their tools' schemas early)."""
        return [(i, name, _copy(compiled)) for i, (name, const, compiled) in enumerate(self._compiled()) if const]
