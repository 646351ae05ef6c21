"""docs/web.md's table "In Playwright you write … / in a trail you write …", run side by side.

Each row's Playwright column (its code spans, as a Playwright user types them) runs on a plain page of
its own, and its trail column (its ``web_*`` calls) through the web driver on another, in the table's
order, so the tabs a row opens are there for the next; each row's page is brought to the same state
first, the same click sets off a row's dialog on both, and the same check reads the outcome on both. A
row the table gains without an entry here fails the test, as does a cell whose code stopped working.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

pytestmark = pytest.mark.browser

DOC = Path(__file__).resolve().parents[2] / "docs" / "web.md"
HEADING = "## In Playwright you write … / in a trail you write …"
EMAIL, PASSWORD = "docs@example.com", "secret123"
RECEIPT_PAGE = """<!doctype html><title>Attach a receipt</title>
<label>Receipt <input type="file" id="receipt"></label><p id="attached"></p>
<script>
document.getElementById("receipt").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  document.getElementById("attached").textContent = `Attached ${file.name}: ${(await file.text()).trim()}`;
});
</script>"""


def table() -> list[tuple[str, str, str]]:
    """(what, Playwright cell, trail cell) per row of the table."""
    text = DOC.read_text(encoding="utf-8")
    lines = text[text.index(HEADING):].splitlines()[1:]
    start = next(i for i, line in enumerate(lines) if line.startswith("|---"))  # after the header row
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith("| "):
            break
        what, playwright, trail = (cell.strip() for cell in line.strip().strip("|").split(" | "))
        rows.append((what, playwright, trail))
    return rows


def spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def approval(page: Any) -> Any:
    return page.frame_locator("#approval-frame")


def partner(page: Any) -> Any:
    return page.frame_locator("#partner-frame")


def text_of(locator: Any) -> str:
    return str(locator.inner_text(timeout=5000)).strip()


def upload_page(page: Any) -> None:
    page.set_content(RECEIPT_PAGE)


@dataclass
class Row:
    """How a row's page is prepared, what sets off its dialog, and how its outcome is read."""

    check: Callable[[Any], object]
    expected: object
    url: str | None = None
    before: Callable[[Any], None] | None = None
    """Applied to both pages after ``url``, with Playwright: state the row's code needs, not under test."""
    trigger: str | None = None
    """A button clicked after the row's code and before its checks, on both pages (Playwright's click,
    the trail's ``web_click``): what opens the dialog the row answers."""
    playwright_page: str = "page"
    """The name of the page the Playwright user acts on after the row (``tab.value`` after a new tab)."""


ROWS: dict[str, Row] = {
    "a button in an iframe": Row(
        url="/account/approvals.html", check=lambda p: text_of(approval(p).locator("#approval-status")),
        expected="Approved"),
    "a nested iframe": Row(
        before=lambda p: approval(p).frame_locator("#receipt-frame").locator("#show-receipt").click(),
        check=lambda p: text_of(approval(p).frame_locator("#receipt-frame").locator("#receipt")),
        expected="Receipt R-1042: $42.00, paid by card"),
    "a cross-origin iframe": Row(
        check=lambda p: partner(p).locator("#reviewer").input_value(), expected="Ada"),
    "one of two frames with the same element": Row(
        before=lambda p: partner(p).locator("#confirm-review").click(),
        check=lambda p: (text_of(approval(p).locator("#approval-status")),
                         text_of(partner(p).locator("#review-status"))),
        expected=("Approved", "Review confirmed by Ada")),
    "an element in an open shadow root": Row(
        url="/account/profile.html", check=lambda p: p.get_by_text("Your rating: 4 of 5").is_visible(),
        expected=True),
    "CSS into a shadow root": Row(
        check=lambda p: p.get_by_text("Your rating: 5 of 5").is_visible(), expected=True),
    "a link that opens a new tab": Row(
        url="/account/help.html", playwright_page="tab.value",
        check=lambda p: p.url.rsplit("/", 1)[-1], expected="policy.html"),
    "a `window.open` popup": Row(
        url="/account/help.html", playwright_page="popup.value",
        check=lambda p: p.url.rsplit("/", 1)[-1], expected="chat.html"),
    "close the popup": Row(
        check=lambda p: (len(p.context.pages), any(x.url.endswith("/chat.html") for x in p.context.pages)),
        expected=(2, False)),
    "back to the first tab": Row(check=lambda p: p.url.rsplit("/", 1)[-1], expected="help.html"),
    "a download's name and content": Row(
        url="/account/reports.html", check=lambda p: p.url.rsplit("/", 1)[-1], expected="reports.html"),
    "dismiss one confirm": Row(
        trigger="Delete Taxi", check=lambda p: p.get_by_text("Kept Taxi").is_visible(), expected=True),
    "answer a prompt": Row(
        trigger="Rename Hotel",
        check=lambda p: p.get_by_role("button", name="Delete Hotel Berlin").is_visible(), expected=True),
    "a dialog's message": Row(
        trigger="Delete Taxi", check=lambda p: p.get_by_text("Deleted Taxi").is_visible(), expected=True),
    "Uploads": Row(
        before=upload_page, check=lambda p: text_of(p.locator("#attached")),
        expected="Attached receipt.pdf: %PDF receipt R-1042"),
}


def playwright_cell(cell: str, ns: dict[str, Any]) -> list[str]:
    """Runs the cell's code spans in ``ns`` (``page`` is the user's page): statements and expressions in
    order (a locator alone is waited for, as ``expect(...).to_be_visible()`` would); comparisons are
    returned, to be checked once the row's trigger ran."""
    from playwright.sync_api import Locator

    checks = []
    for code in spans(cell):
        try:
            tree = ast.parse(code, mode="eval")
        except SyntaxError:
            exec(compile(code, "docs/web.md", "exec"), ns)  # noqa: S102 - the documentation's own code
            continue
        if isinstance(tree.body, ast.Compare):
            checks.append(code)
            continue
        value = eval(compile(tree, "docs/web.md", "eval"), ns)  # noqa: S307
        if isinstance(value, Locator):
            value.wait_for(timeout=5000)
    return checks


def trail_calls(cell: str) -> list[tuple[str, dict[str, Any]]]:
    """The ``web_*`` calls among the cell's code spans (``title:`` and the like in its prose are not)."""
    calls = []
    for code in spans(cell):
        value = YAML(typ="safe").load(code)
        if isinstance(value, dict) and len(value) == 1:
            ((tool, args),) = value.items()
            if str(tool).startswith("web_"):
                calls.append((str(tool), dict(args or {})))
    return calls


def sign_in(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.get_by_role("textbox", name="Email").fill(EMAIL)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/products\.html$"))


def test_the_playwright_and_trail_columns_do_the_same_on_the_same_pages(
        web_session: Any, shop_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = table()
    assert [what for what, _, _ in rows] == list(ROWS), "a row of the table has no entry here, or is gone"
    monkeypatch.chdir(tmp_path)  # the Playwright column's upload path is relative to the working directory
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "receipt.pdf").write_text("%PDF receipt R-1042\n")
    ws = web_session(timeout_ms=5000)
    ws.ok("web_navigate", url="/")
    sign_in(ws.driver.page, shop_server)
    plain = ws.driver.page.context.browser.new_context(base_url=shop_server)
    try:
        ns: dict[str, Any] = {"page": plain.new_page(), "Path": Path}
        sign_in(ns["page"], shop_server)
        for what, playwright, trail in rows:
            row = ROWS[what]
            if row.url is not None:
                ns["page"].goto(shop_server + row.url)
                ws.ok("web_navigate", url=row.url)
            if row.before is not None:
                row.before(ns["page"])
                row.before(ws.driver.page)
            checks = playwright_cell(playwright, ns)
            calls = trail_calls(trail)
            assert calls, f"{what}: no web_* call in the trail column: {trail}"
            for tool, args in calls:
                if not tool.startswith("web_verify"):
                    ws.ok(tool, **args)
            if row.trigger is not None:
                ns["page"].get_by_role("button", name=row.trigger, exact=True).click()
                ws.ok("web_click", ref=f'button "{row.trigger}"')
            for code in checks:
                assert eval(code, ns), f"{what}: {code} is false in Playwright"  # noqa: S307
            for tool, args in calls:
                if tool.startswith("web_verify"):
                    ws.ok(tool, **args)
            mine = eval(row.playwright_page, ns)  # noqa: S307
            assert row.check(mine) == row.expected, f"{what}, Playwright: {row.check(mine)!r}"
            assert row.check(ws.driver.page) == row.expected, f"{what}, trail: {row.check(ws.driver.page)!r}"
    finally:
        plain.close()
