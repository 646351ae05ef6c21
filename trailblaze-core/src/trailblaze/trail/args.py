"""Trail args (``config.args``): declared, typed parameters bound once per run (upstream §1.5).

Two spellings: the compact ``recipient: string`` (the scalar *is* the type; required) and the full
``{type, description, default, required}``. Terraform's rule decides optionality: ``default:``
present ⇔ optional, so ``required: false`` without a default and ``required: true`` with one are
contradictions, and ``default: null`` is refused (optional is not nullable).

Binding (``bind_args``) is validation: a missing required arg, an unknown one, a null value or a
value that does not coerce to the declared type fails before any device work, naming the arg.
Coercion follows the *declared* type, never the value's shape: ``'123'`` for an integer arg is
``123``; a bare ``007`` in an args file for a string arg stays ``"007"``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import yamlio
from ..errors import BadInputError, SourceLocation
from .model import ArgType, TrailArg
from .nodes import MappingNode, Node, NodeReader, ScalarNode, SequenceNode, compose

if TYPE_CHECKING:
    from .model import Trail

__all__ = ["ARG_NAME", "VALID_TYPES", "bind_args", "parse_declarations", "undeclared_references"]

VALID_TYPES: tuple[ArgType, ...] = ("string", "integer", "boolean", "array", "object")
ARG_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_DECL_KEYS = ("type", "description", "default", "required")
_ARGS_TOKEN = re.compile(r"\{\{\s*args\.([^{}]*?)\s*\}\}|\$\{\s*args\.([^{}]*?)\s*\}")
_DOTTED = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*(\.[a-zA-Z_][a-zA-Z0-9_]*)*$")
_INT = re.compile(r"^[+-]?[0-9]+$")


# -- declarations -------------------------------------------------------------------------------
def parse_declarations(node: Node, r: NodeReader) -> dict[str, TrailArg]:
    """``config.args`` → ``{name: TrailArg}``; every rule is checked with the node's position."""
    if r.is_null(node):
        return {}
    if not isinstance(node, MappingNode):
        r.fail(node, f"'args' must be a map of arg names to types, got {r.describe(node)}", "args",
               "e.g. 'args:\\n  recipient: string'")
    out: dict[str, TrailArg] = {}
    for name, knode, vnode in r.entries(node):
        if not ARG_NAME.match(name):
            why = "dots" if "." in name else "dashes" if "-" in name else "spaces" if " " in name else \
                "a leading digit or other characters"
            r.fail(knode, f"arg name '{name}' is not a legal identifier ({why}): names must match "
                          "[a-zA-Z_][a-zA-Z0-9_]* so '{{args.<name>}}' can refer to them", name)
        if isinstance(vnode, ScalarNode) and not r.is_null(vnode):
            out[name] = TrailArg(name=name, type=_type(r, vnode, name))
        elif isinstance(vnode, MappingNode):
            out[name] = _full_declaration(r, name, knode, vnode)
        else:
            r.fail(vnode if not r.is_null(vnode) else knode,
                   f"arg '{name}' must be a type ('{name}: string') or a map ('{name}: {{type: string, "
                   f"default: ...}}'), got {r.describe(vnode)}", name)
    return out


def _type(r: NodeReader, node: Node, name: str) -> ArgType:
    text = r.text(node, f"the type of arg '{name}'", name)
    if text not in VALID_TYPES:
        r.fail(node, f"arg '{name}' has invalid type '{text}'", name, f"must be one of {', '.join(VALID_TYPES)}")
    return text


def _full_declaration(r: NodeReader, name: str, knode: Node, node: MappingNode) -> TrailArg:
    arg = TrailArg(name=name)
    required_node: Node | None = None
    explicit_required: bool | None = None
    default_node: Node | None = None
    for key, kn, vn in r.entries(node):
        if key == "type":
            arg.type = _type(r, vn, name)
        elif key == "description":
            arg.description = r.text(vn, f"the description of arg '{name}'", key)
        elif key == "required":
            explicit_required = r.boolean(vn, f"'required' of arg '{name}'", key)
            required_node = kn
        elif key == "default":
            default_node = vn
        else:
            r.fail(kn, f"unexpected key in the declaration of arg '{name}'", key, f"allowed: {', '.join(_DECL_KEYS)}")
    if default_node is not None:
        if r.is_null(default_node):
            r.fail(default_node, f"arg '{name}' declares 'default: null'; args have no null (optional is not "
                                 "nullable)", "default",
                   "use default: '' for an empty string, or omit 'default:' to keep the arg required")
        raw: Any = r.text(default_node, "a string default") if arg.type == "string" and \
            isinstance(default_node, ScalarNode) else r.plain(default_node)
        try:
            arg.default = coerce(name, arg.type, raw)
        except BadInputError as exc:
            r.fail(default_node, f"the default of arg '{name}' is invalid: {exc.message}", "default")
        arg.has_default = True
    arg.required = not arg.has_default
    if explicit_required is False and not arg.has_default:
        r.fail(required_node, f"arg '{name}' says 'required: false' but has no 'default:'", "required",
               "an optional arg needs a default; give one, or remove 'required: false'")
    if explicit_required is True and arg.has_default:
        r.fail(required_node, f"arg '{name}' says 'required: true' but declares a 'default:'", "required",
               "a default makes an arg optional; remove one of the two")
    return arg


# -- binding ------------------------------------------------------------------------------------
def coerce(name: str, arg_type: str, value: Any) -> Any:
    """``value`` as the declared type; ``BadInputError`` naming the arg when it cannot be."""
    if value is None:
        raise BadInputError(f"arg '{name}' was given a null value; args have no null (optional is not nullable)",
                            hint="use '' for an empty string, or omit the arg to take its default")
    if arg_type == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (str, int, float)):
            return str(value)
        raise BadInputError(f"arg '{name}' expects a string, got {_shape(value)}")
    if arg_type == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and _INT.match(value.strip()):
            return int(value.strip())
        raise BadInputError(f"arg '{name}' expects an integer, got {_show(value)}")
    if arg_type == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise BadInputError(f"arg '{name}' expects a boolean (true/false), got {_show(value)}")
    if arg_type == "array":
        if isinstance(value, list):
            return value
        raise BadInputError(f"arg '{name}' expects an array, got {_shape(value)}",
                            hint="give arrays in an --args-file (YAML or JSON)")
    if arg_type == "object":
        if isinstance(value, dict):
            return value
        raise BadInputError(f"arg '{name}' expects an object, got {_shape(value)}",
                            hint="give objects in an --args-file (YAML or JSON)")
    raise BadInputError(f"arg '{name}' has unsupported type '{arg_type}'")


def _shape(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"the scalar {_show(value)}"


def _show(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return _shape(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def read_args_file(path: Path, declared: Mapping[str, TrailArg] | None = None) -> dict[str, tuple[Any, SourceLocation]]:
    """An ``--args-file`` (YAML or JSON map) → ``{name: (value, location)}``.

    String-typed args keep the scalar's text as written (``zip: 007`` → ``"007"``).
    """
    text = yamlio.read_text(path)
    root, yaml = compose(text, path)
    r = NodeReader(path, yaml, error=BadInputError)
    if root is None:
        return {}
    if not isinstance(root, MappingNode):
        r.fail(root, f"an args file must be a map of arg names to values, got {r.describe(root)}",
               hint="e.g. 'recipient: ada@example.com' (YAML) or {\"recipient\": \"ada@example.com\"} (JSON)")
    out: dict[str, tuple[Any, SourceLocation]] = {}
    for name, knode, vnode in r.entries(root):
        decl = (declared or {}).get(name)
        if decl is not None and decl.type == "string" and isinstance(vnode, ScalarNode) and not r.is_null(vnode):
            value: Any = r.text(vnode, f"arg '{name}'", name)
        else:
            value = r.plain(vnode)
        out[name] = (value, r.loc(vnode if not isinstance(vnode, (MappingNode, SequenceNode)) else knode))
    return out


def bind_args(trail: Trail, cli_args: Mapping[str, str] | None, args_file: Path | None = None) -> dict[str, Any]:
    """Typed values for every declared arg: ``--args-file`` first, then ``--arg`` over it, then defaults."""
    declared = trail.config.args
    provided: dict[str, tuple[Any, SourceLocation | None]] = {}
    if args_file is not None:
        provided.update(read_args_file(Path(args_file), declared))
    for name, value in (cli_args or {}).items():
        provided[name] = (value, None)
    unknown = sorted(set(provided) - set(declared))
    if unknown:
        listed = ", ".join(sorted(declared)) if declared else "none (the trail declares no 'config.args')"
        name = unknown[0]
        raise BadInputError(f"unknown arg{'s' if len(unknown) > 1 else ''} {', '.join(repr(u) for u in unknown)}: "
                            f"not declared under 'config.args' of {trail.path}", location=provided[name][1],
                            key=name, hint=f"declared: {listed}")
    bound: dict[str, Any] = {}
    missing: list[str] = []
    for name, decl in declared.items():
        if name in provided:
            value, where = provided[name]
            try:
                bound[name] = coerce(name, decl.type, value)
            except BadInputError as exc:
                raise BadInputError(exc.message, location=where, key=name, hint=exc.hint) from None
        elif decl.has_default:
            bound[name] = decl.default
        else:
            missing.append(name)
    if missing:
        raise BadInputError(f"missing required arg{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(repr(m) for m in missing)} for {trail.path}", key=missing[0],
                            hint="pass each as --arg <name>=<value> (or in an --args-file), or declare a "
                                 "'default:' to make it optional")
    for name, value in bound.items():
        if isinstance(value, str):
            for match in _ARGS_TOKEN.finditer(value):
                body = (match.group(1) if match.group(1) is not None else match.group(2) or "").strip()
                if not _DOTTED.match(body):
                    raise BadInputError(f"arg '{name}' has a malformed args token {match.group(0)!r} in its "
                                        "value: only dotted names are allowed, never expressions", key=name)
    return bound


def undeclared_references(trail: Trail) -> list[tuple[str, SourceLocation]]:
    """``{{args.x}}`` tokens in step texts and recordings whose ``x`` the trail does not declare (for
    ``trailblaze check``): each as a finished message and where it is."""
    declared = set(trail.config.args)
    found: list[tuple[str, SourceLocation]] = []
    for step in trail.steps:
        for body in _arg_tokens(step.text or ""):
            root = body.split(".", 1)[0]
            if _DOTTED.match(body) and root not in declared:
                found.append((f"the {step.kind} text refers to '{{{{args.{body}}}}}' but the trail declares "
                              f"no arg '{root}' under config.args", step.location))
        for cls, calls in (step.recordings or {}).items():
            locs = step.tool_locations.get(cls, [])
            for i, call in enumerate(calls):
                for body in _arg_tokens(call.args):
                    root = body.split(".", 1)[0]
                    if _DOTTED.match(body) and root not in declared:
                        where = locs[i] if i < len(locs) else step.location
                        message = (f"tool '{call.name}' refers to '{{{{args.{body}}}}}' but the trail declares "
                                   f"no arg '{root}' under config.args")
                        found.append((message, where))
    return found


def _arg_tokens(value: Any) -> list[str]:
    if isinstance(value, str):
        if "args." not in value:
            return []
        return [(m.group(1) if m.group(1) is not None else m.group(2) or "").strip() for m in _ARGS_TOKEN.finditer(value)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _arg_tokens(v)]
    if isinstance(value, list):
        return [t for v in value for t in _arg_tokens(v)]
    return []
