"""The invocation context a tool server receives with every ``tools/call`` (upstream §6.2).

Two envelopes carry the same snapshot: the legacy ``_trailblazeContext`` *argument* (exactly ``memory``
and ``device``) for handlers that only see their arguments, and ``params._meta.trailblaze`` for SDK
handlers, which adds where to call back (``baseUrl``) and which call this is (``invocationId``).
Sensitive memory is never in either: both take ``Memory.snapshot()``, which leaves secrets out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trailblaze import DeviceInfo, Memory

CONTEXT_ARG = "_trailblazeContext"
"""The reserved argument key of the legacy envelope. Never part of an advertised ``inputSchema``."""
META_KEY = "trailblaze"
"""The ``params._meta`` key of the SDK envelope."""
INVOCATION_META_KEY = "trailblazeInvocationId"
"""Decision 029's top-level ``_meta`` key for the invocation id (kept next to ``trailblaze.invocationId``)."""


def device_envelope(device: DeviceInfo) -> dict[str, Any]:
    """``{"platform": "android", "widthPixels": 1080, "heightPixels": 2400, "driverType": "..."}``.

    The platform is lower case, as upstream's code and tests have it (the devlog shows upper case).
    """
    return device.envelope()


def meta_envelope(*, session_id: str, invocation_id: str, memory: Memory, device: DeviceInfo,
                  base_url: str | None, target: Mapping[str, Any] | None = None,
                  capabilities: Mapping[str, Any] | None = None, callback_token: str | None = None) -> dict[str, Any]:
    """``params._meta.trailblaze``: ``baseUrl``, ``sessionId``, ``invocationId``, ``callbackToken`` (the
    invocation's callback secret, see ``callbacks``), ``device``, ``target`` (omitted when unknown),
    ``memory``, ``capabilities``."""
    template = MetaTemplate(session_id=session_id, device=device, base_url=base_url, target=target,
                            capabilities=capabilities)
    return template.meta(invocation_id=invocation_id, memory=memory.snapshot(), callback_token=callback_token)


class MetaTemplate:
    """The parts of both envelopes that stay the same for a whole session, built once per session so a
    call only adds what is its own (invocation id, token, memory) — ``tools/call`` is a hot path."""

    def __init__(self, *, session_id: str, device: DeviceInfo, base_url: str | None,
                 target: Mapping[str, Any] | None = None, capabilities: Mapping[str, Any] | None = None) -> None:
        self._head: dict[str, Any] = {"baseUrl": base_url} if base_url else {}
        self._head["sessionId"] = session_id
        self._device = device_envelope(device)
        self._target = {k: v for k, v in target.items() if v is not None} if target else None
        self._capabilities = dict(capabilities or {})

    def meta(self, *, invocation_id: str, memory: dict[str, str], callback_token: str | None = None) -> dict[str, Any]:
        """``params._meta.trailblaze`` for one call; ``memory`` is that call's ``Memory.snapshot()``."""
        out = {**self._head, "invocationId": invocation_id}
        if callback_token:
            out["callbackToken"] = callback_token
        out["device"] = self._device
        if self._target:
            out["target"] = self._target
        out["memory"] = memory
        out["capabilities"] = self._capabilities
        return out

    def legacy(self, memory: dict[str, str]) -> dict[str, Any]:
        """The ``_trailblazeContext`` argument for one call: exactly ``memory`` and ``device``."""
        return {"memory": memory, "device": self._device}


def target_envelope(target_id: str | None, *, display_name: str | None = None,
                    app_ids: list[str] | None = None, app_id: str | None = None) -> dict[str, Any] | None:
    """``target`` of the SDK envelope; None when the session has no target. ``appId`` omitted when null."""
    if not target_id:
        return None
    out: dict[str, Any] = {"id": target_id}
    if display_name:
        out["displayName"] = display_name
    out["appIds"] = list(app_ids or [])
    if app_id is not None:
        out["appId"] = app_id
    return out


def memory_changes(result_meta: Mapping[str, Any] | None) -> tuple[dict[str, str], list[str]]:
    """``result._meta.trailblaze.memoryDelta`` / ``memoryDeletions``; non-string entries are skipped."""
    if not isinstance(result_meta, Mapping):
        return {}, []
    block = result_meta.get(META_KEY)
    if not isinstance(block, Mapping):
        return {}, []
    delta_raw = block.get("memoryDelta")
    delta = ({k: v for k, v in delta_raw.items() if isinstance(k, str) and isinstance(v, str)}
             if isinstance(delta_raw, Mapping) else {})
    deletions_raw = block.get("memoryDeletions")
    deletions = [k for k in deletions_raw if isinstance(k, str)] if isinstance(deletions_raw, list) else []
    return delta, deletions
