"""The compact snapshot built from Playwright's AI aria snapshot (parsing and rendering, no browser)."""

from __future__ import annotations

from trailblaze_driver_web.snapshot import parse

# Captured from Playwright 1.65 ``locator("body").aria_snapshot(mode="ai", boxes=True)`` (viewport 800x600).
RAW = """- generic [active] [ref=e1] [box=8,8,784,2403]:
  - 'heading "Say \\"hi\\": now" [level=2] [ref=e2] [box=8,8,784,28]'
  - 'button "It''s: \\"quoted\\" #1" [ref=e3] [box=8,77,124,21]'
  - textbox "Name" [ref=e4] [box=137,77,179,21]: Ann
  - checkbox "Agree" [checked] [ref=e5] [box=320,79,13,13]
  - button "Off" [disabled] [ref=e6] [box=336,77,35,21]
  - generic [ref=e7] [box=8,87,228,19]:
    - text: Email
    - textbox "Email" [ref=e8] [box=57,87,179,21]:
      - /placeholder: you@example.com
  - combobox "Sort" [ref=e14] [box=705,88,61,19]:
    - option "Price" [selected] [box=0,0,0,0]
    - option "Name" [box=0,0,0,0]
  - navigation [ref=e20] [box=8,67,1264,19]:
    - link "Home" [ref=e21] [cursor=pointer] [box=8,67,48,19]:
      - /url: "#a"
  - alert [ref=e11] [box=8,136,784,19]: "Error: bad"
  - generic [ref=e12] [cursor=pointer] [box=8,155,784,19]: Clickable div
  - paragraph [box=8,200,784,0]
  - iframe [ref=e13] [box=8,174,304,154]:
    - button "In frame" [ref=f1e2] [box=8,8,71,21]
  - paragraph [ref=e23] [box=8,2392,784,19]: Bottom
"""


def test_parse_reads_roles_names_refs_states_and_boxes() -> None:
    snap = parse(RAW, (800, 600))
    heading = snap.find("e2")
    assert heading is not None and heading.role == "heading" and heading.name == 'Say "hi": now'
    assert heading.level == 2 and heading.box == (8, 8, 784, 28)
    assert snap.find("e3").name == 'It\'s: "quoted" #1'  # type: ignore[union-attr]
    assert snap.find("e4").text == "Ann"  # type: ignore[union-attr]
    assert snap.find("e5").attrs == {"checked": ""}  # type: ignore[union-attr]
    assert snap.find("e8").props == {"placeholder": "you@example.com"}  # type: ignore[union-attr]
    assert snap.find("e21").props == {"url": "#a"}  # type: ignore[union-attr]
    assert snap.find("f1e2").parent is snap.find("e13")
    assert snap.find("e3").descriptor() == 'button "It\'s: \\"quoted\\" #1"'  # type: ignore[union-attr]


def test_render_is_compact_and_keeps_refs() -> None:
    text = parse(RAW, (800, 600)).render()
    lines = text.splitlines()
    assert lines[0] == '[e2] heading "Say \\"hi\\": now" [level=2]'
    assert '[e4] textbox "Name" = "Ann"' in lines
    assert '[e5] checkbox "Agree" [checked]' in lines
    assert '[e6] button "Off" [disabled]' in lines
    # the unnamed wrapper is gone, the label text that repeats the textbox name too; placeholder kept
    assert '[e8] textbox "Email" [placeholder="you@example.com"]' in lines
    assert not any(line.strip() == '"Email"' for line in lines)
    assert '[e14] combobox "Sort" options: "Price" [selected], "Name"' in lines
    assert "navigation:" in lines  # unnamed container: no ref and '  [e21] link "Home"' in lines
    assert '[e11] alert: Error: bad' in lines and '[e12] "Clickable div"' in lines
    assert '[e13] iframe:' in lines and '  [f1e2] button "In frame"' in lines
    assert "cursor" not in text and "/url" not in text and "box=" not in text and "[active]" not in text
    # the empty paragraph is dropped; the paragraph far below the 600 px viewport is summarised
    assert "Bottom" not in text and lines[-1] == "(1 offscreen elements hidden — use --offscreen to show)"


def test_render_details_bounds_offscreen_urls() -> None:
    text = parse(RAW, (800, 600)).render(frozenset({"bounds", "offscreen", "urls"}))
    assert '[e23] paragraph {8,2392,784,19}: Bottom' in text
    assert '[e21] link "Home" [url=#a] {8,67,48,19}' in text
    assert "offscreen elements hidden" not in text


def test_unparseable_snapshot_degrades_to_text() -> None:
    snap = parse("- just: [unbalanced", None)
    assert snap.render()  # never raises
    assert parse("", None).render() == "(empty page)"
