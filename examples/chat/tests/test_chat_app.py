"""The chat app itself, driven with plain Playwright: two browser contexts are two people.

What the trails in ``trails/`` replay through Trailblaze must first hold here, written in Playwright's
own API, or the trails would test the wrong thing.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def _sign_in(page: Any, url: str, name: str) -> None:
    page.goto(url + "/")
    page.get_by_role("textbox", name="Your name").fill(name)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name=f"Hello, {name}", level=1).wait_for()


def _join(page: Any, code: str) -> None:
    page.get_by_role("textbox", name="Invitation code").fill(code)
    page.get_by_role("button", name="Join chat").click()


def _send(page: Any, text: str) -> None:
    page.get_by_role("textbox", name="Message").fill(text)
    page.get_by_role("button", name="Send").click()


def test_alice_invites_bob_and_messages_flow_both_ways(chat_server: Any, launch_options: dict[str, Any]) -> None:
    from playwright.sync_api import expect, sync_playwright

    url = chat_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options)
        try:
            alice = browser.new_context().new_page()
            bob = browser.new_context().new_page()
            _sign_in(alice, url, "Alice")
            alice.get_by_role("button", name="Create invitation").click()
            expect(alice.locator("#code")).to_have_text(re.compile(r"^[A-Z0-9]{6}$"))  # filled when the server answers
            code = alice.locator("#code").text_content() or ""
            expect(alice.get_by_role("status", name="Your invitation code")).to_have_text(code)
            alice.get_by_role("link", name="Open the chat room").click()
            expect(alice.get_by_role("status")).to_have_text("Waiting for someone to join with your invitation code")

            _sign_in(bob, url, "Bob")
            _join(bob, code.lower())  # codes are read aloud and retyped: case does not matter
            expect(bob.get_by_role("heading", name="Chat room", level=1)).to_be_visible()
            expect(bob.get_by_role("status")).to_have_text("Chatting with Alice")
            expect(alice.get_by_role("status")).to_have_text("Chatting with Bob")  # seen by polling

            _send(alice, "hi Bob")
            bob_messages = bob.get_by_role("list", name="Messages").get_by_role("listitem")
            alice_messages = alice.get_by_role("list", name="Messages").get_by_role("listitem")
            expect(bob_messages).to_have_text(["Alice: hi Bob"])
            _send(bob, "hi Alice")
            expect(alice_messages).to_have_text(["Alice: hi Bob", "Bob: hi Alice"])
            expect(bob_messages).to_have_text(["Alice: hi Bob", "Bob: hi Alice"])
            expect(alice.get_by_role("textbox", name="Message")).to_have_value("")  # cleared after sending
        finally:
            browser.close()


def test_the_page_says_why_a_name_or_code_is_refused(chat_server: Any, launch_options: dict[str, Any]) -> None:
    from playwright.sync_api import expect, sync_playwright

    url = chat_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options)
        try:
            alice, bob, carol = (browser.new_context().new_page() for _ in range(3))
            alice.goto(url + "/")
            alice.get_by_role("button", name="Sign in").click()
            expect(alice.get_by_role("alert")).to_have_text("Enter your name to sign in")
            expect(alice.get_by_role("textbox", name="Your name")).to_have_attribute("aria-invalid", "true")
            _sign_in(alice, url, "Alice")
            alice.get_by_role("button", name="Create invitation").click()
            expect(alice.locator("#code")).not_to_be_empty()  # filled when the server answers, not at the click
            code = alice.locator("#code").text_content() or ""
            assert code

            _sign_in(bob, url, "Bob")
            _join(bob, "NOPE42")
            expect(bob.get_by_role("region", name="Join a chat").get_by_role("alert")).to_have_text(
                "No invitation has the code NOPE42")
            _join(bob, code)
            expect(bob.get_by_role("status")).to_have_text("Chatting with Alice")

            _sign_in(carol, url, "Carol")  # a room is for two: the code was used
            _join(carol, code)
            expect(carol.get_by_role("region", name="Join a chat").get_by_role("alert")).to_have_text(
                f"The invitation {code} was already used")

            carol.goto(bob.url)  # the room's address alone does not let her in
            expect(carol.get_by_role("status")).to_have_text("You are not in this chat room")
            _send(bob, "   ")
            expect(bob.get_by_role("region", name="Chat room").get_by_role("alert")).to_have_text(
                "Type a message first")
        finally:
            browser.close()


def test_a_page_behind_the_sign_in_sends_a_stranger_to_it(chat_server: Any, launch_options: dict[str, Any]) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options)
        try:
            page = browser.new_context().new_page()
            page.goto(chat_server.url + "/room.html?room=abc123")
            expect(page.get_by_role("heading", name="Sign in to Trail Chat", level=1)).to_be_visible()
            assert page.url == chat_server.url + "/"
        finally:
            browser.close()
