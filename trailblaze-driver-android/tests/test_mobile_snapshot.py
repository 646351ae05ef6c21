"""The compact snapshot text: what the agent and `trailblaze snapshot` show for a mobile screen."""

from __future__ import annotations

from trailblaze_driver_android.appium.snapshot import build_snapshot, normalize_details

ANDROID_SETTINGS = """\
[x649] TextView "Settings" [id=com.android.settings:id/homepage_title] [heading]
[t881] "Search" [id=com.android.settings:id/search_bar]
  "Search Settings"
RecyclerView [7 items]:
  [y537] "Network & internet"
    "Mobile, Wi‑Fi, hotspot"
  [v878] "Connected devices"
    "Bluetooth, pairing"
  [e21] "Dark theme"
    "Off"
    [y989] Switch [id=android:id/switch_widget] [unchecked]
  [v732] "Wi‑Fi calling"
    "Off"
    [g66] Switch [id=android:id/switch_widget] [checked]
  [q503] "Battery" [disabled]
    "$3.00 saved (82%)"
  [q991] "Storage"
(1 offscreen elements hidden — use --offscreen to show)"""

IOS_SETTINGS = """\
NavigationBar:
  [u980] StaticText "Settings"
[d433] SearchField "Search"
Table:
  [v714] Cell "Airplane Mode" [id=com.apple.settings.airplaneMode]
    [m498] Switch "Airplane Mode"
  [u854] Cell "Wi-Fi: HomeNet" [id=com.apple.settings.wifi]
    "Wi-Fi"
  [x179] Cell "Bluetooth: On" [id=com.apple.settings.bluetooth]
    "Bluetooth"
  [u521] Cell "Cellular" [id=com.apple.settings.cellular] [disabled]
  [y140] Cell "Notifications" [id=com.apple.settings.notifications]
  [q173] Cell "Sounds & Haptics" [id=com.apple.settings.sounds]
[o521] Button
(1 offscreen elements hidden — use --offscreen to show)"""


def test_android_settings_snapshot(fixture_tree) -> None:
    snap = build_snapshot(fixture_tree("uia2_settings.xml"))
    # System UI (the status bar clock) is left out; generic layouts show no class; rows absorb their
    # title and list their summary; the list shows its size; hidden rows are counted.
    assert snap.text == ANDROID_SETTINGS
    assert "9:41" not in snap.text


def test_ios_settings_snapshot(fixture_tree) -> None:
    snap = build_snapshot(fixture_tree("xcuitest_settings.xml"))
    # App/window chrome, the status bar and the scroll indicator are left out; a cell's value mirror is
    # deduplicated; the switch inside a same-named cell is kept (it is the control).
    assert snap.text == IOS_SETTINGS


def test_form_shows_values_hints_state_and_errors(fixture_tree) -> None:
    text = build_snapshot(fixture_tree("uia2_form.xml")).text
    assert 'EditText "Full name: Ada Lovelace" [id=com.example.checkout:id/name] [focused]' in text
    assert 'EditText "Card PIN: ••••••" [id=com.example.checkout:id/pin] [password]' in text
    assert 'EditText "Delivery notes: Ring the bell twice"' in text  # newlines collapsed
    assert '[error: "Enter a valid email"]' in text
    assert 'RadioGroup "Delivery speed":' in text
    assert 'Button "Continue" [id=com.example.checkout:id/continue] [disabled]' in text
    assert '"I accept the terms"' in text
    assert "Place order" not in text  # below the fold
    ios = build_snapshot(fixture_tree("xcuitest_form.xml")).text
    assert 'TextField "Full name: Ada Lovelace" [id=full-name] [focused]' in ios
    assert 'Switch "Save for next time" [id=save] [checked]' in ios
    assert 'Button "Standard" [selected]' in ios
    assert "@(46,792)" in ios  # an unlabelled leaf control gets its coordinates


def test_detail_levels(fixture_tree) -> None:
    tree = fixture_tree("uia2_long_list.xml")
    default = build_snapshot(tree)
    assert "Ada (work)" not in default.text
    assert default.text.endswith("offscreen elements hidden — use --offscreen to show)")
    wide = build_snapshot(tree, ["--offscreen", "BOUNDS"])
    assert '"Ada (work)"' in wide.text and "(offscreen)" in wide.text
    assert "{x:0,y:200,w:1080,h:160}" in wide.text
    assert len(wide.refs) > len(default.refs)
    assert normalize_details(["ALL_ELEMENTS", "bounds", "offscreen"]) == {"all", "bounds", "offscreen"}
    everything = build_snapshot(fixture_tree("xcuitest_settings.xml"), ["all"])
    assert len(everything.refs) >= len(build_snapshot(fixture_tree("xcuitest_settings.xml")).refs)


def test_empty_screen() -> None:
    from trailblaze_driver_android.appium.hierarchy import parse_page_source

    assert build_snapshot(parse_page_source("<hierarchy/>", "android")).text == "(no elements found)"
