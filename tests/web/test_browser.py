"""Headless chromium (Debian's) through Playwright against the app on waitress.

The full flow uses the fake reader so the hands (and the tie) are known; the
real reader's photo flow is in test_photos.py.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

# Ann deals, so Bob draws first: turn order Bob, Cat, Ann.
PHOTOS = {
    "Ann": [("AS", 0.97), ("2D", 0.93), ("2C", 0.88)],                  # count 5
    "Bob": [("5H", 0.96), ("6H", 0.95), ("7H", 0.91), ("6C", 0.42)],    # 6C is really 5C
    "Cat": [("KS", 0.99), ("QD", 0.86), ("JC", 0.94)],                  # count 36
}


def _photo_payload(fake_reader, name):
    data = fake_reader.add(PHOTOS[name])
    return {"name": f"{name.lower()}.png", "mimeType": "image/png", "buffer": data}


def run_full_flow(page, base, fake_reader, shots: str | None = None):
    page.goto(base + "/")
    for i, name in enumerate(["Ann", "Bob", "Cat"]):
        page.fill(f"input[name=seat_{i}]", name)
    page.check("input[name=dealer][value='0']")
    page.fill("input[name=cards_dealt]", "3")
    if shots:
        page.screenshot(path=str(SHOTS / f"setup-{shots}.png"), full_page=True)
    page.click("#setup-form button[type=submit]")
    page.wait_for_selector("text=Bob draws first")
    page.click("text=Score game 1")
    page.wait_for_selector("#seat-0")

    for seat, name in enumerate(["Ann", "Bob", "Cat"]):
        page.set_input_files(f"#seat-{seat} .upload-input", _photo_payload(fake_reader, name))
        page.wait_for_selector(f"#seat-{seat} .status:has-text('read')")
        page.wait_for_selector(f"#seat-{seat} figure.photo:not([hidden]) svg.overlay rect")
    bob = page.locator("#seat-1")
    # the low-confidence read stands out, on the chip and on the photo
    assert bob.locator(".chips .card.low").count() == 1
    assert bob.locator("svg.overlay rect.low").count() == 1
    assert "6C 42%" in bob.locator("svg.overlay").text_content()

    # correct it in two clicks: the chip, then the right card in the picker
    bob.locator(".chips button.chip").nth(3).click()
    bob.locator("details.picker-wrap summary").click()
    if shots:
        bob.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"correction-{shots}.png"))
    bob.locator(".picker .pick[data-code='5C']").click()
    from playwright.sync_api import expect
    expect(bob.locator(".cards-text")).to_have_value("5H 6H 7H 5C")
    assert bob.locator(".chips .card.fixed").count() == 1
    assert bob.locator("svg.overlay rect.fixed").count() == 1
    assert "5C (read 6C)" in bob.locator("svg.overlay").text_content()

    page.select_option("#end-type", "declare")
    page.select_option("#end-player", label="Bob")
    page.click("#finish-form button[type=submit]")
    page.wait_for_selector("#winner")
    return page


def test_full_flow_table_of_three_with_a_tie(browser, live_server, fake_reader):
    page = browser.new_page(viewport=PHONE)
    try:
        run_full_flow(page, live_server.url, fake_reader)
        assert page.inner_text("#winner").strip().endswith("Ann wins")
        tie = page.inner_text("#tie")
        assert "Why Ann wins the tie" in tie
        assert "furthest to the left" in tie
        assert page.locator("#tie svg.table-svg .seat.winner").count() == 1
        assert page.locator("#tie svg.table-svg .seat.tied").count() == 2
        assert page.locator("#tie svg.table-svg .seat.first text.name").text_content() == "Bob"
        # both tied hands show count 5
        counts = page.locator(".player .count strong").all_inner_texts()
        assert counts.count("5") == 2
    finally:
        page.close()


def test_meld_checker_in_the_browser(browser, live_server):
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(live_server.url + "/meld")
        page.click("#meld-picker summary")
        for code in ("KH", "AH", "2H"):
            page.click(f"#meld-picker .pick[data-code='{code}']")
        assert page.input_value("#meld-cards") == "KH AH 2H"
        page.click("#meld-form button[type=submit]")
        page.wait_for_selector("#single-verdict")
        assert "wraps around" in page.inner_text("#single-verdict")
        page.fill("#meld-cards", "7H 8H 9H 9S 9C WILD")
        page.click("#meld-form button[type=submit]")
        page.wait_for_selector("#meld-result")
        assert "count 0" in page.inner_text("#meld-result")
    finally:
        page.close()


def test_no_console_errors_and_csp_holds(browser, live_server):
    page = browser.new_page(viewport=LAPTOP)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for url in ("/", "/rules", "/meld?cards=KH+AH+2H", "/print"):
            page.goto(live_server.url + url)
        assert errors == []
    finally:
        page.close()


@pytest.mark.skipif(not os.environ.get("COMPANION_SCREENSHOTS"),
                    reason="set COMPANION_SCREENSHOTS=1 to refresh docs/screenshots")
@pytest.mark.parametrize("size,viewport", [("phone", PHONE), ("laptop", LAPTOP)])
def test_screenshots(browser, live_server, fake_reader, size, viewport):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=viewport)
    try:
        run_full_flow(page, live_server.url, fake_reader, shots=size)
        page.screenshot(path=str(SHOTS / f"result-{size}.png"), full_page=True)
        page.click("text=Back to the match")
        page.wait_for_selector(".score-board")
        page.screenshot(path=str(SHOTS / f"match-{size}.png"), full_page=True)
        page.goto(live_server.url + "/rules")
        page.screenshot(path=str(SHOTS / f"rules-{size}.png"), full_page=False)
    finally:
        page.close()
