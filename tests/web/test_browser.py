"""Headless chromium (Debian's) through Playwright against the app on waitress:
the meld checker, and no console errors under the CSP.

The full flow (table of three, a real photo per player, corrections, a tie on
a declaration) and the screenshots run with the REAL reader in
test_browser_real.py.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


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
