"""The TLS context the official-client providers share, built once per process.

Each trail's session makes its own provider, and an ``openai.OpenAI`` or ``anthropic.Anthropic`` client
built without an ``http_client`` makes its own TLS context, loading the system's CA bundle
(``load_verify_locations``, ~30 ms of CPU): once per trail, on the agent's first step
(benchmarks/bench_agent_overhead.py). The context holds no per-connection state, so one serves every
client of the process; each provider still owns (and closes) its HTTP client and its connections.
"""

from __future__ import annotations

import os
import ssl
import threading
from typing import Any

_CERT_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")
"""What the HTTP library reads to build its default context (``trust_env``): a change made by a test or
a wrapper script gets a context of its own, as a fresh client would."""

_lock = threading.Lock()
_contexts: dict[tuple[Any, ...], ssl.SSLContext | None] = {}


def shared_ssl_context() -> ssl.SSLContext | None:
    """The process's default client TLS context, as the SDKs' HTTP library (``httpx2``) builds it for a
    client of its own; None where sharing it would not be the same thing: the library is missing, or
    the platform's context is ``truststore``'s (macOS, Windows), which re-adds its verify paths on every
    handshake and is left to each client as before.

    Keyed by the process (a forked worker builds its own) and the certificate variables; built under a
    lock, since actors' sessions start on threads of their own."""
    key = (os.getpid(), *(os.environ.get(name) for name in _CERT_VARIABLES))
    with _lock:
        if key not in _contexts:
            _contexts[key] = _build()
        return _contexts[key]


def _build() -> ssl.SSLContext | None:
    try:
        import httpx2
    except ImportError:
        return None
    context = httpx2.create_ssl_context()
    return context if type(context) is ssl.SSLContext else None
