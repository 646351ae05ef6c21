"""Stable element refs (``k42``, ``k42b``), computed exactly as upstream's ``ElementRef``.

``identity = "<shortClass>|<label>|<cx/10*10>,<cy/10*10>"``; ``h = |javaHashCode(identity)|`` read as
an unsigned 32-bit number (so ``Int.MIN_VALUE`` stays 2147483648); ``ref = chr(ord('a') + h % 26) +
str((h // 26) % 1000)``. The same element on the same screen gets the same ref in every capture, and
in every implementation (Kotlin, TypeScript, this one), which is what lets a model's ``tap(ref)`` and a
human reading a log agree. Collisions within one snapshot get ``b``, ``c``… suffixes in emission order.
"""

from __future__ import annotations

_INT_MASK = 0xFFFFFFFF


def java_string_hash_code(text: str) -> int:
    """``String.hashCode()`` of the JVM: ``s[0]*31^(n-1) + … + s[n-1]`` over UTF-16 units, as int32."""
    h = 0
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] | (data[i + 1] << 8))) & _INT_MASK
    return h - (1 << 32) if h & 0x80000000 else h


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def compute_ref(label: str | None, class_name: str | None, center_x: int = 0, center_y: int = 0) -> str:
    """The base ref (no collision suffix) of an element."""
    rx = _trunc_div(center_x, 10) * 10
    ry = _trunc_div(center_y, 10) * 10
    identity = f"{class_name or ''}|{label or ''}|{rx},{ry}"
    return ref_from_hash(java_string_hash_code(identity))


def ref_from_hash(signed: int) -> str:
    """``identity.hashCode().absoluteValue.toUInt()`` → letter + number. ``abs(Int.MIN_VALUE)``
    overflows to itself in Kotlin and then reads as 2147483648 unsigned."""
    h = (1 << 31) if signed == -(1 << 31) else abs(signed)
    return f"{chr(ord('a') + h % 26)}{(h // 26) % 1000}"


class RefTracker:
    """Hands out refs within one snapshot, suffixing repeats: ``k42``, ``k42b``, ``k42c``."""

    __slots__ = ("_emitted",)

    def __init__(self) -> None:
        self._emitted: dict[str, int] = {}

    def ref(self, label: str | None, class_name: str | None, center_x: int = 0, center_y: int = 0) -> str:
        base = compute_ref(label, class_name, center_x, center_y)
        count = self._emitted.get(base, 0) + 1
        self._emitted[base] = count
        return base if count == 1 else f"{base}{chr(ord('a') + count - 1)}"
