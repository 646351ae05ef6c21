"""The shop server's peer origin: the same files from a second loopback port, which the account pages'
cross-origin iframe needs, announced to pages by the generated ``/peer-origin.js``."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

from trailblaze_example_web_shop.plugin import load_server_module

EXAMPLE = Path(__file__).resolve().parents[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - loopback only
        return str(response.read().decode("utf-8"))


def test_the_peer_serves_the_same_files_and_each_side_names_the_other(port_open: Any) -> None:
    server = load_server_module(EXAMPLE).ShopServer("127.0.0.1", port=0)
    url = server.start()
    peer = server.peer_url
    try:
        assert peer and peer != url and peer.startswith("http://127.0.0.1:")
        assert _get(f"{url}/peer-origin.js") == f'window.SHOP_PEER_ORIGIN = "{peer}";\n'
        assert _get(f"{peer}/peer-origin.js") == f'window.SHOP_PEER_ORIGIN = "{url}";\n'
        assert "Confirm review" in _get(f"{peer}/account/partner-frame.html")
        assert _get(f"{url}/account/approvals.html") == _get(f"{peer}/account/approvals.html")
    finally:
        server.stop()
    assert not port_open(url) and not port_open(peer)


def test_without_a_peer_pages_are_told_there_is_none() -> None:
    server = load_server_module(EXAMPLE).ShopServer("127.0.0.1", port=0, peer=False)
    url = server.start()
    try:
        assert server.peer_url is None
        assert _get(f"{url}/peer-origin.js") == "window.SHOP_PEER_ORIGIN = null;\n"
    finally:
        server.stop()
    server.stop()  # twice is fine
