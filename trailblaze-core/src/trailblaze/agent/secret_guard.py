"""The rule that keeps a secret out of a parameter that could send it anywhere.

Asked before the agent runs a model's call (``loop.py``) and before ``trailblaze mcp`` runs a client's
call (``mcp_server/workbench.py``): a ``{{secret}}`` token may only fill a parameter declared sensitive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..tools.base import ToolDefinition


def misplaced_secret(definition: "ToolDefinition", args: dict[str, Any], memory: Any,
                     offered: dict[str, "ToolDefinition"]) -> str | None:
    """Why the model (or an MCP client) may not make this call, when it puts a ``{{secret}}`` token into a
    parameter that is not declared sensitive (a URL, a search box, a shell command would send the value
    anywhere). None when the call is fine."""
    schema = definition.parameters()

    def check(param: Any, value: Any, path: str) -> tuple[str, str] | None:
        if param is not None and param.sensitive:
            return None
        if param is not None and isinstance(value, dict) and param.properties is not None:
            inner = {p.name: p for p in param.properties}
            for key, item in value.items():
                bad = check(inner.get(key), item, f"{path}.{key}")
                if bad:
                    return bad
            return None
        if param is not None and isinstance(value, list) and param.items is not None:
            for i, item in enumerate(value):
                bad = check(param.items, item, f"{path}[{i}]")
                if bad:
                    return bad
            return None
        tokens = memory.secret_tokens(value)
        return (path, tokens[0]) if tokens else None

    for key, value in args.items():
        bad = check(schema.get(key) if schema is not None else None, value, key)
        if bad is None:
            continue
        path, token = bad
        takers = sorted(name for name, d in offered.items()
                        if (p := d.parameters()) is not None and any(x.sensitive for x in p))
        where = f" Tools that take a secret: {', '.join(takers)}." if takers else \
            " None of the tools offered now takes a secret."
        return (f"refused, nothing was run: {token} is a secret, and a secret may only be passed in a parameter "
                f"marked sensitive (such as a password field's value); '{path}' of {definition.name} is not "
                f"one.{where}")
    return None


__all__ = ["misplaced_secret"]
