"""Frames and shadow DOM on the example shop's account pages, in real Chromium.

``account/approvals.html`` holds a same-origin iframe (``iframe "Approval frame"``, with a nested
``iframe "Receipt frame"``) and a cross-origin one (``iframe "Partner frame"``, from the shop server's
peer origin on a second loopback port); ``account/profile.html`` a ``<star-rating>`` whose buttons live
in an open shadow root.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

APPROVAL = 'iframe "Approval frame"'
PARTNER = 'iframe "Partner frame"'
RECEIPT = 'iframe "Receipt frame"'


def _open(ws: Any, page: str) -> None:
    ws.ok("web_navigate", url="/")
    ws.ok("web_type", ref='textbox "Email"', text="frames@example.com")
    ws.ok("web_fillSecret", ref='textbox "Password"', value="{{password}}")
    ws.ok("web_click", ref='button "Sign in"')
    ws.ok("web_waitForUrl", pattern=r"/products\.html$")
    ws.ok("web_navigate", url=page)
    ws.ok("web_verifyTextVisible", text="Partner review by Summit Logistics" if "approvals" in page else "Profile")


def test_every_way_of_naming_an_element_reaches_into_same_and_cross_origin_and_nested_frames(
        web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"}, timeout_ms=1500)
    _open(ws, "/account/approvals.html")
    # The snapshot shows each frame's content under its iframe, named as a frame: argument names it.
    tree = ws.driver.snapshot()
    for line in (f"{APPROVAL}:", 'button "Approve"', f"{RECEIPT}:", 'button "Show receipt"', f"{PARTNER}:",
                 'textbox "Reviewer"', "Partner review by Summit Logistics"):
        assert line in tree, tree
    # Descriptors, in the same-origin frame.
    ws.ok("web_type", ref='textbox "Comment"', text="Late flight")
    clicked = ws.ok("web_click", ref='button "Approve"')
    assert clicked.message.startswith('Clicked button "Approve" in the frame at http://127.0.0.1:')
    ws.ok("web_verifyTextVisible", text="Approved with comment: Late flight")
    # css= and test ids, in the cross-origin frame.
    ws.ok("web_type", ref="css=#reviewer", text="Ada")
    ws.ok("web_click", nodeSelector={"web": {"dataTestId": "confirm-review"}})
    ws.ok("web_verifyValue", ref="css=#review-status", expected="Review confirmed by Ada")
    ws.ok("web_verifyValue", ref='textbox "Reviewer"', type="VALUE", expected="Ada")
    # A nodeSelector and text, in the nested frame.
    ws.ok("web_click", nodeSelector={"web": {"ariaRole": "button", "ariaNameRegex": "Show receipt"}})
    ws.ok("web_verifyElementVisible", ref='text "Receipt R-1042: $42.00, paid by card"')
    ws.ok("web_verifyListVisible", items=["Expense: Taxi to the airport", "Receipt R-1042", "Review confirmed"])
    # Absence looks in the frames too: text a frame shows is not "gone".
    ws.ok("web_verifyTextNotVisible", text="Rejected", timeoutMs=0)
    ws.ok("web_verifyElementNotVisible", ref='button "Reject"', timeoutMs=0)
    message = ws.fails("web_verifyTextNotVisible", text="Review confirmed by Ada", timeoutMs=0)
    assert f"it is still visible in {PARTNER} (at http://127.0.0.1:" in message
    message = ws.fails("web_verifyElementNotVisible", ref='button "Show receipt"', timeoutMs=0)
    assert "it is still visible: <button>" in message


def test_a_name_two_frames_share_is_an_error_naming_them_and_frame_scopes_the_call(web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"}, timeout_ms=1500)
    _open(ws, "/account/approvals.html")
    ws.ok("web_click", ref='button "Approve"')
    ws.ok("web_click", ref='button "Confirm review"')
    # Both frames now show a status line: which one is meant must be said.
    message = ws.fails("web_verifyValue", ref="status", expected="Approved")
    assert message.startswith("web_verifyValue: status matches in 2 frames: ")
    assert APPROVAL in message and PARTNER in message and "say which one with the 'frame' argument" in message
    ws.ok("web_verifyValue", ref="status", frame=APPROVAL, expected="Approved")
    ws.ok("web_verifyValue", ref="status", frame="css=#partner-frame", expected="Review confirmed by nobody")
    ws.ok("web_verifyValue", ref="status", frame=ws.ref_of("iframe", "Approval frame"), expected="Approved")
    ws.ok("web_verifyTextVisible", text="Show receipt", frame=RECEIPT)  # a nested frame, by its own name
    ws.ok("web_click", ref='button "Show receipt"', frame="css=#receipt-frame")
    # Scoped to the partner frame, the Approve button is not there, and is not offered as if it were:
    # the candidates are that frame's buttons.
    message = ws.fails("web_click", ref='button "Approve"', frame=PARTNER, timeoutMs=300)
    assert message.startswith(f'web_click: no element matches button "Approve" in {PARTNER} within 300 ms; '
                              f"{PARTNER} (http://127.0.0.1:")
    assert 'has button elements: button "Confirm review"' in message and '"Approve"' not in message.split(";")[1]
    message = ws.fails("web_verifyTextVisible", text="Late flight", frame=PARTNER, timeoutMs=0)
    assert "Late flight" in message and "in " + PARTNER in message
    # Unscoped, a name no frame has lists what every frame has, each with its frame.
    message = ws.fails("web_click", ref='button "Aprove"', timeoutMs=300)
    assert message.startswith('web_click: no element matches button "Aprove" in the page or any of its 3 frames')
    assert f'button "Approve" [' in message and f"] in {APPROVAL}" in message
    # A frame: that names no iframe fails as any missing target does.
    message = ws.fails("web_click", ref='button "Approve"', frame='iframe "Nope"', timeoutMs=300)
    assert message.startswith('web_click: no element matches iframe "Nope"')


def test_a_ref_from_a_frame_is_recorded_as_its_descriptor_and_frame_and_replays_after_a_reload(
        web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"})
    _open(ws, "/account/approvals.html")
    recorded = {}
    for role, name, frame in (("button", "Approve", APPROVAL), ("button", "Show receipt", RECEIPT),
                              ("textbox", "Reviewer", PARTNER)):
        ref = ws.ref_of(role, name)
        assert ref.startswith("f"), ref  # a frame ref, as Playwright numbers them
        ws.ok("web_click", ref=ref)
        rec = ws.session.executed[-1].recorded
        assert rec is not None and rec.args == {
            "ref": f'{role} "{name}"', "frame": frame,
            "nodeSelector": {"web": {"ariaRole": role, "ariaNameRegex": name}}}, rec
        recorded[name] = rec.args
    ws.ok("web_navigate", action="RELOAD")
    ws.ok("web_verifyTextVisible", text="Partner review by Summit Logistics")
    for args in recorded.values():
        ws.ok("web_click", **args)
        assert ws.session.executed[-1].recorded is None  # already stable: recorded as authored
    ws.ok("web_verifyTextVisible", text="Receipt R-1042")


def test_open_shadow_roots_work_in_snapshots_and_replay(web_session: Any) -> None:
    ws = web_session(secrets={"password": "secret123"})
    _open(ws, "/account/profile.html")
    tree = ws.driver.snapshot()
    assert 'group "Rate your last order":' in tree and 'button "4 stars"' in tree, tree
    assert 'combobox "Category" options: "Travel" [selected], "Meals", "Office"' in tree, tree
    ws.ok("web_click", ref='button "2 stars"')
    ws.ok("web_verifyTextVisible", text="Your rating: 2 of 5")
    ws.ok("web_click", ref='css=star-rating button[aria-label="5 stars"]')
    ws.ok("web_verifyValue", nodeSelector={"web": {"ariaRole": "button", "ariaNameRegex": "5 stars"}},
          type="ATTRIBUTE", attribute="aria-pressed", expected="true")
    ref = ws.ref_of("button", "4 stars")
    ws.ok("web_click", ref=ref)
    rec = ws.session.executed[-1].recorded
    assert rec is not None and rec.args == {"ref": 'button "4 stars"',
                                            "nodeSelector": {"web": {"ariaRole": "button", "ariaNameRegex": "4 stars"}}}
    ws.ok("web_type", ref='textbox "Display name"', text="Ada")
    ws.ok("web_selectOption", ref='combobox "Category"', values=["Meals"])
    ws.ok("web_click", ref='button "Save profile"')
    ws.ok("web_verifyValue", ref="status", expected="Profile saved: Ada, Meals, rated 4 of 5")
    assert "Your rating: 4 of 5" in ws.driver.snapshot()


NAMED_FRAMES = """<h2 id="team">Team <b>approvals</b></h2>
<iframe aria-labelledby="team" srcdoc="<button>Approve</button>"></iframe>
<iframe title="Twin" srcdoc="<button>Left</button>"></iframe>
<iframe title="Twin" srcdoc="<button>Right</button>"></iframe>"""


def test_one_rule_names_an_iframe_for_the_snapshot_every_recording_and_replay(web_session: Any) -> None:
    """``aria-labelledby`` names an iframe as ``aria-label`` and ``title`` do, in the snapshot, in what a
    frame ref is recorded as (the MCP server and ``session save`` share ``record_ref``; the recorder
    ``frames.frame_descriptor``) and in replay; a name two iframes share is recorded as a ``css=`` path."""
    from trailblaze_driver_web.frames import frame_descriptor

    ws = web_session(timeout_ms=1500)
    page = ws.driver.page
    page.set_content(NAMED_FRAMES)
    page.frames[-1].get_by_role("button").wait_for()
    tree = ws.driver.snapshot()
    assert 'iframe "Team approvals":' in tree and tree.count('iframe "Twin":') == 2, tree
    assert [frame_descriptor(f) for f in page.frames] == [
        None, 'iframe "Team approvals"', "css=body > iframe:nth-of-type(2)",
        "css=body > iframe:nth-of-type(3)"]
    recorded = {}
    for name in ("Approve", "Right"):
        ws.ok("web_click", ref=ws.ref_of("button", name))
        rec = ws.session.executed[-1].recorded
        assert rec is not None
        recorded[name] = rec.args
    assert recorded["Approve"]["frame"] == 'iframe "Team approvals"'
    assert recorded["Right"]["frame"] == "css=body > iframe:nth-of-type(3)"
    page.set_content(NAMED_FRAMES)  # a fresh page: no ref of the old one is valid
    page.frames[-1].get_by_role("button").wait_for()
    for name, args in recorded.items():  # found in that frame alone ("Right" is in the second "Twin")
        said = ws.ok("web_click", **args).message
        assert f'"ariaNameRegex": "{name}"' in said and said.endswith(f' in {args["frame"]}'), said


def test_a_frame_argument_naming_two_iframes_is_an_error_naming_both(web_session: Any) -> None:
    """``frame: 'iframe "Twin"'`` on a page with two iframes titled "Twin" does not pick the first one
    silently: the call fails naming each by the ``css=`` path a recording writes for it, and that path
    scopes the call to the one meant. A ``css=`` that matches both fails the same way."""
    ws = web_session(timeout_ms=1500)
    page = ws.driver.page
    page.set_content(NAMED_FRAMES)
    page.frames[-1].get_by_role("button").wait_for()
    message = ws.fails("web_click", ref='button "Left"', frame='iframe "Twin"')
    assert message == ("web_click: frame 'iframe \"Twin\"' matches 2 iframes: "
                       "css=body > iframe:nth-of-type(2) (at about:srcdoc); "
                       "css=body > iframe:nth-of-type(3) (at about:srcdoc); "
                       "name one of them by its css= path (or give the iframes different titles)"), message
    message = ws.fails("web_verifyTextVisible", text="Right", frame="css=iframe[title=Twin]", timeoutMs=0)
    assert "matches 2 iframes" in message and "css=body > iframe:nth-of-type(3)" in message, message
    said = ws.ok("web_click", ref='button "Right"', frame="css=body > iframe:nth-of-type(3)").message
    assert said.endswith("in css=body > iframe:nth-of-type(3)"), said
    ws.ok("web_click", ref='button "Approve"', frame='iframe "Team approvals"')  # a name one iframe has
