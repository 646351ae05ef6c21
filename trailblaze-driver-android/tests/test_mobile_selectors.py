"""nodeSelector resolution over realistic UiAutomator2 and XCUITest page sources: every driver-match
field, every relation, index ordering, dialects, and the generator that writes recorded selectors."""

from __future__ import annotations

from typing import Any

import pytest
from trailblaze.selectors import NodeSelector, parse_selector
from trailblaze_driver_android.appium.generator import best_selector
from trailblaze_driver_android.appium.hierarchy import Hierarchy, Node, parse_page_source
from trailblaze_driver_android.appium.selectors import resolve
from trailblaze_driver_android.appium.snapshot import build_snapshot


def found(tree: Hierarchy, raw: dict[str, Any]) -> list[Node]:
    return resolve(tree, NodeSelector.model_validate(raw)).nodes


def labels(nodes: list[Node]) -> list[str | None]:
    return [n.display_label() for n in nodes]


def one(tree: Hierarchy, raw: dict[str, Any]) -> Node:
    nodes = found(tree, raw)
    assert len(nodes) == 1, f"{raw} matched {labels(nodes)}"
    return nodes[0]


@pytest.fixture
def settings(fixture_tree) -> Hierarchy:
    return fixture_tree("uia2_settings.xml")


@pytest.fixture
def form(fixture_tree) -> Hierarchy:
    return fixture_tree("uia2_form.xml")


@pytest.fixture
def contacts(fixture_tree) -> Hierarchy:
    return fixture_tree("uia2_long_list.xml")


@pytest.fixture
def ios_settings(fixture_tree) -> Hierarchy:
    return fixture_tree("xcuitest_settings.xml")


@pytest.fixture
def ios_form(fixture_tree) -> Hierarchy:
    return fixture_tree("xcuitest_form.xml")


# -- androidAccessibility ----------------------------------------------------------------------------
@pytest.mark.parametrize(("fields", "expected"), [
    ({"classNameRegex": "android.widget.CheckBox"}, ["Save for next time"]),
    ({"classNameRegex": ".*RadioButton", "textRegex": "Express.*"}, ["Express (+$5.00)"]),
    ({"resourceIdRegex": "com.example.checkout:id/phone"}, ["Phone"]),
    ({"textRegex": "Ada Lovelace"}, ["Ada Lovelace"]),
    ({"textRegex": "Full name"}, []),  # text wins over the hint (text > hint > description)
    ({"textRegex": "Email"}, ["Email"]),  # no text: the hint is the text (text > hint > description)
    ({"contentDescriptionRegex": "Continue to payment"}, ["Continue"]),
    ({"hintTextRegex": "Card PIN"}, ["••••••"]),
    ({"paneTitleRegex": "Delivery speed"}, [None]),
    ({"isEnabled": False}, ["Continue"]),
    ({"isClickable": True, "classNameRegex": "android.widget.Button"}, ["Cancel", "Continue", "Place order"]),
    ({"isCheckable": True}, ["Standard", "Express (+$5.00)", "Save for next time"]),
    ({"isChecked": True}, ["Standard"]),
    ({"isFocused": True}, ["Ada Lovelace"]),
    ({"isEditable": True, "inputType": 33}, ["Email"]),
    ({"isScrollable": True}, [None]),
    ({"isPassword": True}, ["••••••"]),
    ({"isHeading": True}, ["Shipping address"]),
    ({"isMultiLine": True}, ["Ring the bell twice"]),
    ({"inputType": 3}, ["Phone"]),
])
def test_android_accessibility_fields(form: Hierarchy, fields: dict[str, Any], expected: list[str | None]) -> None:
    assert labels(found(form, {"androidAccessibility": fields})) == expected


def test_android_accessibility_selected_field(settings: Hierarchy) -> None:
    assert found(settings, {"androidAccessibility": {"isSelected": True}}) == []
    tree = parse_page_source('<hierarchy width="100" height="100"><android.widget.TextView class="android.widget.'
                             'TextView" text="Home" selected="true" bounds="[0,0][50,50]"/><android.widget.TextView '
                             'class="android.widget.TextView" text="Search" bounds="[50,0][100,50]"/></hierarchy>')
    assert labels(found(tree, {"androidAccessibility": {"isSelected": True}})) == ["Home"]


def test_android_fields_appium_only_reports_when_the_source_has_them(contacts: Hierarchy) -> None:
    # Standard UiAutomator2 sources carry no uniqueId/testTag/labeledBy/state/role/collection info, so a
    # selector on them matches nothing there; sources that carry them (as these do) resolve them.
    rows = found(contacts, {"androidAccessibility": {"collectionItemRowIndex": 3, "collectionItemColumnIndex": 0}})
    assert [r.children[0].text for r in rows] == ["Claude"]
    tree = parse_page_source(
        '<hierarchy width="1080" height="2400">'
        '<android.view.View class="android.view.View" text="Volume" unique-id="vol" test-tag="volume_slider" '
        'labeled-by="Sound" state-description="50%" role-description="Slider" bounds="[0,0][1080,200]"/>'
        '<android.view.View class="android.view.View" text="Other" bounds="[0,200][1080,400]"/></hierarchy>')
    for fields in ({"uniqueId": "vol"}, {"composeTestTagRegex": "volume_.*"}, {"labeledByTextRegex": "Sound"},
                   {"stateDescriptionRegex": r"\d+%"}, {"roleDescriptionRegex": "Slider"}):
        assert labels(found(tree, {"androidAccessibility": fields})) == ["Volume"], fields
    assert found(tree, {"androidAccessibility": {"uniqueId": "vo.*"}}) == []  # uniqueId is exact, not a regex
    assert found(contacts, {"androidAccessibility": {"uniqueId": "vol"}}) == []


# -- androidMaestro (Maestro dialect) ----------------------------------------------------------------
@pytest.mark.parametrize(("fields", "expected"), [
    ({"textRegex": "ada lovelace"}, ["Ada Lovelace"]),  # case-insensitive
    ({"textRegex": "ring the bell.twice"}, ["Ring the bell twice"]),  # dot matches the newline
    ({"resourceIdRegex": ".*:id/EMAIL"}, ["Email"]),
    ({"accessibilityTextRegex": "continue to PAYMENT"}, ["Continue"]),
    ({"classNameRegex": "android.widget.checkbox"}, ["Save for next time"]),
    ({"hintTextRegex": "phone"}, ["Phone"]),
    ({"clickable": False, "textRegex": "Enter a valid email"}, ["Enter a valid email"]),
    ({"enabled": False}, ["Continue"]),
    ({"focused": True}, ["Ada Lovelace"]),
    ({"checked": True}, ["Standard"]),
    ({"selected": True}, []),
    ({"textRegex": "express (+$5.00"}, []),  # invalid regex: escaped literal, still a full match
    ({"textRegex": "EXPRESS (+$5.00)"}, ["Express (+$5.00)"]),  # invalid → case-insensitive literal
])
def test_android_maestro_fields(form: Hierarchy, fields: dict[str, Any], expected: list[str]) -> None:
    assert labels(found(form, {"androidMaestro": fields})) == expected


def test_native_dialect_is_case_sensitive(form: Hierarchy) -> None:
    assert found(form, {"androidAccessibility": {"textRegex": "ada lovelace"}}) == []
    assert labels(found(form, {"androidAccessibility": {"textRegex": "(?i)ada lovelace"}})) == ["Ada Lovelace"]


def test_literal_fallback_for_currency(settings: Hierarchy, form: Hierarchy) -> None:
    assert labels(found(settings, {"androidAccessibility": {"textRegex": "$3.00 saved (82%)"}})) == [
        "$3.00 saved (82%)"]
    assert labels(found(form, {"androidAccessibility": {"textRegex": "Express (+$5.00)"}})) == ["Express (+$5.00)"]
    assert found(form, {"androidAccessibility": {"textRegex": "Express"}}) == []  # full match only


# -- iOS ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("fields", "expected"), [
    ({"textRegex": "ada lovelace"}, ["Ada Lovelace"]),  # text = the AX value
    ({"textRegex": "email"}, ["Email"]),  # no value: placeholder
    ({"textRegex": "cancel"}, ["Cancel"]),  # no value, no placeholder: the AX label
    ({"resourceIdRegex": "full-name"}, ["Ada Lovelace"]),  # name / accessibility identifier
    ({"accessibilityTextRegex": "save for NEXT time"}, ["Save for next time"]),
    ({"classNameRegex": "XCUIElementTypeSecureTextField"}, ["••••"]),
    ({"classNameRegex": "SecureTextField"}, ["••••"]),  # the short type
    ({"classNameRegex": "UISecureTextField"}, ["••••"]),  # Maestro-era UIKit alias
    ({"hintTextRegex": "card pin"}, ["••••"]),
    ({"focused": True}, ["Ada Lovelace"]),
    ({"selected": True}, ["Standard"]),
])
def test_ios_maestro_fields(ios_form: Hierarchy, fields: dict[str, Any], expected: list[str]) -> None:
    assert labels(found(ios_form, {"iosMaestro": fields})) == expected


@pytest.mark.parametrize(("fields", "expected"), [
    ({"roleRegex": "AXSwitch"}, ["Save for next time"]),
    ({"labelRegex": "Full name"}, ["Ada Lovelace"]),
    ({"valueRegex": "Ada.*"}, ["Ada Lovelace"]),
    ({"uniqueId": "continue"}, ["Continue"]),
    ({"typeRegex": "Switch"}, ["Save for next time"]),
    ({"enabled": False}, ["Continue"]),
    ({"typeRegex": "Button", "labelRegex": "cancel"}, []),  # native dialect: case-sensitive
    ({"titleRegex": "Anything"}, []),
    ({"subroleRegex": ".*"}, []),
    ({"customAction": "Delete"}, []),
])
def test_ios_axe_fields(ios_form: Hierarchy, fields: dict[str, Any], expected: list[str]) -> None:
    assert labels(found(ios_form, {"iosAxe": fields})) == expected


def test_shapes_only_match_their_platform(form: Hierarchy, ios_form: Hierarchy) -> None:
    assert found(ios_form, {"androidAccessibility": {"textRegex": "Cancel"}}) == []
    assert found(form, {"iosMaestro": {"textRegex": "Cancel"}}) == []
    assert found(form, {"web": {"ariaNameRegex": "Cancel"}}) == []
    assert found(form, {"compose": {"textRegex": "Cancel"}}) == []


# -- relations -----------------------------------------------------------------------------------------
def test_below_above_left_right(form: Hierarchy) -> None:
    buttons = {"androidAccessibility": {"classNameRegex": "android.widget.Button"}}
    assert labels(found(form, {**buttons, "below": {"androidAccessibility": {"textRegex": "Save for next time"}}})) \
        == ["Cancel", "Continue", "Place order"]
    assert labels(found(form, {**buttons, "above": {"androidAccessibility": {"textRegex": "Place order"}}})) \
        == ["Cancel", "Continue"]
    assert labels(found(form, {**buttons, "leftOf": {"androidAccessibility": {"textRegex": "Continue"}}})) \
        == ["Cancel"]
    assert labels(found(form, {**buttons, "rightOf": {"androidAccessibility": {"textRegex": "Cancel"}}})) \
        == ["Continue"]
    # The anchor is the first match of its selector (sorted top-to-bottom).
    assert labels(found(form, {"androidAccessibility": {"isEditable": True},
                               "below": {"androidAccessibility": {"isEditable": True}}})) \
        == ["Email", "Phone", "••••••", "Ring the bell twice"]
    assert found(form, {**buttons, "below": {"androidAccessibility": {"textRegex": "no such text"}}}) == []


def test_child_of_contains_child_and_descendants(settings: Hierarchy, contacts: Hierarchy) -> None:
    rows = {"androidAccessibility": {"isClickable": True, "classNameRegex": ".*LinearLayout"}}
    # containsChild is direct children only: the row's titles sit inside a RelativeLayout.
    assert found(settings, {**rows, "containsChild": {"androidAccessibility": {"textRegex": "Dark theme"}}}) == []
    dark_row = one(settings, {**rows, "containsDescendants": [{"androidAccessibility": {"textRegex": "Dark theme"}},
                                                              {"androidAccessibility": {"textRegex": "Off"}}]})
    assert dark_row.bounds is not None and dark_row.bounds.top == 1000
    switch = one(settings, {"androidAccessibility": {"classNameRegex": ".*Switch"}, "childOf": {
        **rows, "containsDescendants": [{"androidAccessibility": {"textRegex": "Dark theme"}}]}})
    assert switch.checked is False
    # childOf searches descendants of every match, never the parent itself.
    assert len(found(settings, {"androidAccessibility": {"resourceIdRegex": "android:id/title"},
                                "childOf": {"androidAccessibility": {"isScrollable": True}}})) == 7
    assert found(settings, {"androidAccessibility": {"isScrollable": True},
                            "childOf": {"androidAccessibility": {"isScrollable": True}}}) == []
    call = one(contacts, {"androidAccessibility": {"contentDescriptionRegex": "Call"},
                          "childOf": {"containsChild": {"androidAccessibility": {"textRegex": "Grace"}}}})
    assert call.bounds is not None and call.bounds.top == 200 + 7 * 160 + 40
    assert found(settings, {"containsDescendants": [{"androidAccessibility": {"textRegex": "Dark theme"}},
                                                    {"androidAccessibility": {"textRegex": "Storage"}}],
                            "androidAccessibility": {"isClickable": True}}) == []


def test_duplicate_labels_and_index_ordering(settings: Hierarchy, contacts: Hierarchy) -> None:
    offs = found(settings, {"androidAccessibility": {"textRegex": "Off"}})
    assert [n.bounds.top for n in offs if n.bounds] == [1094, 1314]
    second = one(settings, {"androidAccessibility": {"textRegex": "Off"}, "index": 1})
    assert second is offs[1]
    assert found(settings, {"androidAccessibility": {"textRegex": "Off"}, "index": 2}) == []
    assert found(settings, {"androidAccessibility": {"textRegex": "Off"}, "index": -1}) == []
    switches = found(settings, {"androidAccessibility": {"resourceIdRegex": "android:id/switch_widget"}})
    assert [s.checked for s in switches] == [False, True]
    # Same row: left before right.
    names = found(contacts, {"androidAccessibility": {"textRegex": "Ada|\\+1 555 0100|Call"},
                             "childOf": {"androidAccessibility": {"collectionItemRowIndex": 0}}})
    assert [n.short_class for n in names] == ["TextView", "ImageButton", "TextView"]  # by top, then left
    # "Ada" and "Ada (work)": index over a long list, including rows below the fold.
    assert labels(found(contacts, {"androidAccessibility": {"textRegex": "Ada.*"}})) == ["Ada", "Ada (work)"]
    work = one(contacts, {"androidAccessibility": {"textRegex": "Ada.*"}, "index": 1})
    assert work.visible is False and work.bounds is not None and work.bounds.top > 2400


def test_nodes_without_bounds_sort_last() -> None:
    tree = parse_page_source('<hierarchy><android.widget.TextView class="android.widget.TextView" text="A"/>'
                             '<android.widget.TextView class="android.widget.TextView" text="A" '
                             'bounds="[0,500][10,510]"/><android.widget.TextView class="android.widget.TextView" '
                             'text="A" bounds="[0,100][10,110]"/></hierarchy>', "android")
    nodes = found(tree, {"androidAccessibility": {"textRegex": "A"}})
    assert [n.bounds.top if n.bounds else None for n in nodes] == [100, 500, None]


def test_nesting_is_capped_at_depth_ten(settings: Hierarchy) -> None:
    heading = {"textRegex": "Settings", "isHeading": True}
    search = {"textRegex": "Search Settings"}

    def chain(depth: int) -> dict[str, Any]:
        raw: dict[str, Any] = {"androidAccessibility": search}
        for level in range(depth):
            raw = ({"androidAccessibility": heading, "above": raw} if level % 2 == 0
                   else {"androidAccessibility": search, "below": raw})
        return raw

    assert labels(found(settings, chain(9))) == ["Settings"]
    assert labels(found(settings, chain(10))) == ["Search Settings"]
    assert found(settings, chain(11)) == [], "beyond depth 10 nothing matches"


def test_selector_keys_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown selector key 'androidAccessibility.textRegx'"):
        parse_selector({"androidAccessibility": {"textRegx": "x"}})
    with pytest.raises(ValueError, match="'index'"):
        parse_selector({"index": "first"})


# -- the generator (what tap(ref) records) -------------------------------------------------------------
@pytest.mark.parametrize("name", ["uia2_settings.xml", "uia2_form.xml", "uia2_long_list.xml",
                                  "xcuitest_settings.xml", "xcuitest_form.xml", "xcuitest_long_list.xml"])
def test_generated_selectors_resolve_to_exactly_their_node(fixture_tree, name: str) -> None:
    tree = fixture_tree(name)
    snap = build_snapshot(tree)
    assert snap.refs
    for ref, node in snap.refs.items():
        sel = best_selector(tree, node)
        if sel is None:
            assert node.platform == "ios" and not node.identifiable, ref
            continue
        assert resolve(tree, sel).nodes == [node], f"{ref}: {sel.to_yaml()}"
        # Round-trips through YAML form.
        assert resolve(tree, NodeSelector.model_validate(sel.to_yaml())).nodes == [node]


def test_generator_prefers_identity_and_names_rows_by_their_text(settings: Hierarchy) -> None:
    snap = build_snapshot(settings)
    by_label = {n.display_label() or "": n for n in snap.refs.values()}
    title = by_label["Settings"]
    assert best_selector(settings, title).to_yaml() == {  # type: ignore[union-attr]
        "androidAccessibility": {"resourceIdRegex": "com.android.settings:id/homepage_title"}}
    row = next(n for n in snap.refs.values() if n.clickable and n.short_class == "LinearLayout"
               and n.bounds is not None and n.bounds.top == 1000)
    raw = best_selector(settings, row).to_yaml()  # type: ignore[union-attr]
    assert "androidAccessibility" not in raw or raw.get("containsChild") or raw.get("index") is not None \
        or raw.get("childOf"), raw
    battery = one(settings, {"androidAccessibility": {"textRegex": r"\$3\.00 saved \(82%\)"}})
    assert best_selector(settings, battery).to_yaml() == {  # type: ignore[union-attr]
        "androidAccessibility": {"textRegex": "$3.00 saved (82%)"}}
