"""Every web tool against the example shop in real headless Chromium, through the real dispatcher."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from trailblaze.logs import STREAM_FILE
from trailblaze.testing import run_cli
from trailblaze.trail.model import TrailStep

pytestmark = pytest.mark.browser


def _sign_in(ws: Any, email: str = "tools@example.com") -> None:
    ws.ok("web_navigate", url="/")
    ws.ok("web_type", ref='textbox "Email"', text=email)
    ws.ok("web_fillSecret", ref='textbox "Password"', value="{{password}}")
    ws.ok("web_click", ref='button "Sign in"')
    ws.ok("web_waitForUrl", pattern=r"/products\.html$")


def test_action_tools(web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"})
    _sign_in(ws)
    assert ws.ok("web_currentUrl").data["url"].endswith("/products.html")
    ws.ok("web_type", ref='searchbox "Search products"', text="ck")
    ws.ok("web_type", ref='searchbox "Search products"', text="s", clearFirst=False)
    ws.ok("web_verifyValue", ref='searchbox "Search products"', type="VALUE", expected="cks")
    ws.ok("web_pressKey", key="Control+A")
    ws.ok("web_pressKey", key="Backspace")
    ws.ok("web_verifyValue", ref="status", expected="Showing 8 of 8 products")
    ws.ok("web_selectOption", ref='combobox "Sort by"', values=["price-asc"])
    ws.ok("web_verifyValue", nodeSelector={"web": {"dataTestId": "product-name", "nthIndex": 0}}, expected="Map Case")
    ws.ok("web_hover", ref='link "View Compass"')
    ws.ok("web_scroll", direction="DOWN", amount=400)
    assert ws.driver.page.evaluate("window.scrollY") > 0
    ws.ok("web_scroll", direction="UP", amount=400)
    assert ws.ok("web_scroll", ref='link "View Rain Jacket"').message.endswith("into view")
    ws.ok("web_resize", width=500, height=700)
    assert ws.driver.page.viewport_size == {"width": 500, "height": 700} and ws.session.device.width == 500
    ws.ok("web_click", ref='link "View Compass"')
    ws.ok("web_waitForUrl", pattern=r"id=compass")
    ws.ok("web_navigate", action="BACK")
    ws.ok("web_waitForUrl", pattern=r"/products\.html$")
    ws.ok("web_navigate", action="FORWARD")
    ws.ok("web_waitForUrl", pattern=r"id=compass")
    ws.ok("web_wait", seconds=0.1)
    result = ws.ok("web_evaluate", script="document.title", variable="title")
    assert result.message == "Compass · Trailblaze Outfitters" and ws.session.memory.get("title") == result.message
    snap = ws.ok("web_snapshot", screenName="compass page")
    assert 'heading "Compass" [level=1]' in snap.message
    assert (ws.session.log_dir / snap.data["tree"]).read_text() == snap.message
    assert (ws.session.log_dir / snap.data["screenshot"]).stat().st_size > 1000
    ws.ok("web_requestDetails", include=["BOUNDS", "OFFSCREEN_ELEMENTS"])
    assert "{" in ws.driver.snapshot() and "{" not in ws.driver.snapshot().splitlines()[0]  # once only
    ws.ok("web_applyCookies", cookiesJson=json.dumps([{"name": "tb", "value": "1", "url": ws.driver.page.url}]))
    state = ws.ok("web_getStorageState").data
    assert any(c["name"] == "tb" for c in state["cookies"])


def test_verification_tools_pass_and_fail_with_expected_and_actual(web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"}, timeout_ms=800)
    _sign_in(ws)
    # The reviews arrive 3 s after the page: the loading text is there for the first check however slow
    # the machine (300 ms was not, on a loaded CI machine), and the list check waits for them.
    ws.ok("web_navigate", url="/product.html?id=headlamp&reviewsDelay=3000")
    ws.ok("web_verifyTextVisible", text="Loading reviews…")
    ws.ok("web_verifyListVisible", ref='list "Customer reviews"', items=["Kofi", "Ana", "Olle"], timeoutMs=15000)
    ws.ok("web_verifyElementVisible", ref='heading "Headlamp" [level=1]')
    ws.ok("web_verifyValue", ref='css=[data-testid="product-price"]', expected="$34.95")
    ws.ok("web_verifyValue", ref='spinbutton "Quantity"', type="ATTRIBUTE", attribute="max", expected="99")
    message = ws.fails("web_verifyTextVisible", text="Headlamps")
    assert message.startswith('web_verifyTextVisible: expected the text "Headlamps" to be visible within 800 ms')
    assert '"Headlamp"' in message  # the closest text on the page
    message = ws.fails("web_verifyValue", ref='css=[data-testid="product-price"]', expected="$30.00")
    assert message.endswith('to be "$30.00" within 800 ms; the page has "$34.95"')
    message = ws.fails("web_verifyElementVisible", ref='button "Buy now"')
    assert "no element matches" in message and 'button "Add to cart"' in message
    message = ws.fails("web_verifyListVisible", ref='list "Customer reviews"', items=["Kofi", "Zed"])
    assert 'missing "Zed" (found "Kofi")' in message
    message = ws.fails("web_click", ref='button "Buy now"')
    assert message.startswith('web_click: no element matches button "Buy now" within 800 ms; the page (')
    assert 'has button elements: button "Add to cart"' in message
    ws.ok("web_type", ref='spinbutton "Quantity"', text="0")
    ws.ok("web_click", ref='button "Add to cart"')
    ws.ok("web_verifyTextVisible", text="Quantity must be between 1 and 99")
    # a bad ref is a step failure that says what a ref may be
    assert "is not a snapshot ref (e12), an ARIA descriptor" in ws.fails("web_click", ref="the add button")


def test_an_action_by_ref_records_a_selector_that_replays_after_a_reload(web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"})
    _sign_in(ws)
    ref = ws.ref_of("link", "View Summit Backpack")
    ws.ok("web_hover", ref=ref)
    recorded = ws.session.executed[-1].recorded
    assert recorded is not None and recorded.name == "web_hover"
    assert recorded.args == {"ref": 'link "View Summit Backpack"',
                             "nodeSelector": {"web": {"ariaRole": "link", "ariaNameRegex": "View Summit Backpack"}}}
    # Two "Remove"-like repeats: the cart's product links repeat nothing, so use the header's "Cart (0)"
    ref = ws.ref_of("link", "Cart (0)")
    ws.ok("web_click", ref=ref)
    cart = ws.session.executed[-1].recorded
    assert cart is not None and cart.args["ref"] == 'link "Cart (0)"'
    assert cart.args["nodeSelector"] == {"web": {"ariaRole": "link", "ariaNameRegex": r"Cart \(0\)"}} or \
        cart.args["nodeSelector"] == {"web": {"ariaRole": "link", "ariaNameRegex": "Cart (0)"}}
    ws.ok("web_navigate", url="/products.html")
    # A stale ref fails with advice; the recorded form replays after a reload.
    ws.ok("web_navigate", action="RELOAD")
    assert "do not survive navigation or a reload" in ws.fails("web_hover", ref="e99")
    ws.ok("web_hover", **recorded.args)
    assert ws.session.executed[-1].recorded is None  # already stable: recorded as authored
    # The log keeps both: what ran and what a recording keeps.
    ws.session.log.close()
    logged = [e for e in ws.session.log.entries if e.get("recordedTrailblazeTool")]
    assert logged[0]["recordedTrailblazeTool"]["raw"]["ref"] == 'link "View Summit Backpack"'


def test_a_ref_among_equal_names_records_its_position(web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"})
    _sign_in(ws)
    ws.ok("web_navigate", url="/products.html")
    # Every product card has an h2 with data-testid product-name: the third one is recorded by position
    # unless its own name is unique (it is): role + name wins.
    snap = ws.driver.take_snapshot()
    headings = [n for n in snap.nodes() if n.role == "heading" and n.level == 2]
    ws.ok("web_verifyElementVisible", ref=headings[2].ref)
    rec = ws.session.executed[-1].recorded
    assert rec is not None and rec.args["nodeSelector"] == {"web": {"ariaRole": "heading",
                                                                     "ariaNameRegex": headings[2].name}}
    # The result-count status has no name: recorded by its test id
    status = next(n for n in snap.nodes() if n.role == "status")
    ws.ok("web_verifyValue", ref=status.ref, expected="Showing 8 of 8 products")
    rec = ws.session.executed[-1].recorded
    assert rec is not None and rec.args["nodeSelector"] == {"web": {"dataTestId": "result-count"}}


def test_secrets_are_redacted_from_logs(web_session: Any, tmp_path: Path) -> None:
    ws = web_session(memory={"pw": "secret123"})  # not declared secret: web_fillSecret makes it one
    ws.ok("web_navigate", url="/")
    ws.ok("web_type", ref='textbox "Email"', text="x@example.com")
    ws.ok("web_fillSecret", ref='textbox "Password"', value="{{pw}}")
    ws.ok("web_evaluate", script="console.log('typed ' + document.getElementById('password').value)")
    ws.ok("web_click", ref='button "Sign in"')
    ws.ok("web_waitForUrl", pattern="products")
    ws.driver.step_finished(ws.session, TrailStep(kind="step", text="Sign in", index=1, number=1), True)
    ws.session.log.close()
    text = (ws.session.log_dir / STREAM_FILE).read_text()
    assert "secret123" not in text and "***" in text
    assert any(e.get("text") == "typed ***" for e in ws.session.log.entries)  # console, redacted


def test_secrets_typed_into_a_text_field_stay_out_of_screenshots(web_session: Any) -> None:
    ws = web_session(secrets={"token": "tok-4711-secret"})
    ws.ok("web_navigate", url="/")
    ws.ok("web_type", ref='textbox "Password"', text="not a secret")
    assert ws.driver.secret_fields == []  # plain text is not masked
    ws.ok("web_type", ref='textbox "Email"', text="{{token}}")
    assert len(ws.driver.secret_fields) == 1
    email = ws.driver.page.get_by_role("textbox", name="Email")
    masked = ws.driver.screenshot()
    email.fill("something else entirely, much longer")
    # Whatever the field holds, the picture is the same: the field is painted over.
    assert ws.driver.screenshot() == masked
    ws.driver.secret_fields.clear()
    assert ws.driver.screenshot() != masked  # without the mask the field's text shows
    ws.ok("web_fillSecret", ref='textbox "Email"', value="{{token}}")
    assert len(ws.driver.secret_fields) == 1
    first = ws.driver.save_screenshot("step_a")  # the per-step JPEG artifacts are masked too
    email.fill("another value")
    second = ws.driver.save_screenshot("step_b")
    assert first and second
    assert (ws.session.log_dir / first).read_bytes() == (ws.session.log_dir / second).read_bytes()


def test_snapshot_command(shop_server: str, chromium: str, tmp_path: Path) -> None:
    # No --driver: an http URL opens a browser even with the mobile drivers installed.
    result = run_cli(["snapshot", "--url", shop_server + "/", "--bounds", "-o", "viewport=390x844"], cwd=tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("# playwright-native · Chromium ")
    assert " 390x844 · " in lines[0]
    assert lines[0].endswith(f" · {shop_server}/ — Sign in · Trailblaze Outfitters")
    assert any('heading "Sign in" [level=1] {' in ln for ln in lines)
    assert any("[e" in ln and 'textbox "Email" [placeholder="you@example.com"] {' in ln for ln in lines)
    assert not any(ln.strip().endswith('"Email"') and "textbox" not in ln for ln in lines)  # label not repeated
    raw = run_cli(["snapshot", "--url", shop_server + "/", "--raw"], cwd=tmp_path)
    assert raw.exit_code == 0 and "[ref=" in raw.stdout and not raw.stdout.startswith("#")
    assert run_cli(["snapshot", "--url", shop_server + "/", "--playwright"], cwd=tmp_path).stdout == raw.stdout
    bad = run_cli(["snapshot", "--driver", "playwright-native", "--url", "/relative"], cwd=tmp_path)
    assert bad.exit_code == 3 and "needs a base URL" in bad.output


def test_snapshot_command_waits_for_text_and_saves_a_screenshot(shop_server: str, chromium: str,
                                                                 tmp_path: Path) -> None:
    shot = tmp_path / "shots" / "signin.png"
    ok = run_cli(["snapshot", "--url", shop_server + "/", "--wait-for", "Sign in to browse", "--screenshot",
                  str(shot)], cwd=tmp_path)
    assert ok.exit_code == 0, ok.output
    assert shot.read_bytes().startswith(b"\x89PNG")
    missing = run_cli(["snapshot", "--url", shop_server + "/", "--wait-for", "No such words", "--timeout", "0.3"],
                      cwd=tmp_path)
    assert missing.exit_code == 1, missing.output
    assert "'No such words' did not appear within 0.3 s" in missing.stderr
    assert 'heading "Sign in"' in missing.stdout  # what was on screen instead
    viewport = run_cli(["snapshot", "--url", shop_server + "/", "-o", "viewport=wide"], cwd=tmp_path)
    assert viewport.exit_code == 3 and "setting 'viewport'" in viewport.stderr and "WIDTHxHEIGHT" in viewport.stderr
