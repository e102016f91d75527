"""The full flow in headless chromium with the REAL card reader on real photos.

Set up a table of three, upload a different committed photo per player, check
that the page shows exactly what ``vision.reader.get_reader()`` reads from
each photo (codes in order, one box per card, the low-confidence highlight
where the confidence is under the app's threshold), then correct every hand
with the page's tools (change a card via the picker, remove one, add a missed
one with the picker and by typing ``10C``) into scripted hands that tie on a
declaration, score it, and see the right winner and the tie explanation.

Nothing here assumes what the model reads: the corrections are planned from
the reader's answer, so a retrained model changes the clicks, not the outcome.
A photo read as no cards at all still works: its hand is added by hand.

Photos: tests/fixtures/photos/ (``COMPANION_TEST_PHOTOS=DIR`` to try others).
"""
from __future__ import annotations

import io
import math
import os
from pathlib import Path

import pytest

from .conftest import LiveServer

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PHOTO_DIR = Path(os.environ.get("COMPANION_TEST_PHOTOS") or ROOT / "tests" / "fixtures" / "photos")
EXTS = {".jpg", ".jpeg", ".png", ".webp"}
SHOTS = ROOT / "docs" / "screenshots"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

PLAYERS = ["Ann", "Bob", "Cat"]
# Ann deals, so Bob draws first: turn order Bob, Cat, Ann.  Bob declares with
# count 5; Ann also has 5 and, furthest to the left of the first player in turn
# order, wins the tie.
TARGET = {
    "Ann": ["AS", "2D", "2C"],          # count 5
    "Bob": ["5H", "6H", "7H", "5C"],    # 5H 6H 7H melded, 5C: count 5
    "Cat": ["KS", "QD", "10C"],         # count 35
}
TYPED = {"Cat": "10C"}  # always added by typing it (removed first if the reader saw it)
# A card no scripted hand holds, used when the reader's answer needs no change
# at all, so the flow still exercises "change a card".
DECOYS = ["9S", "9D", "8C", "4S", "3D", "JH"]
MIME = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}


def _photos() -> list[Path]:
    if not PHOTO_DIR.is_dir():
        return []
    return sorted(p for p in PHOTO_DIR.iterdir() if p.suffix.lower() in EXTS)


@pytest.fixture(scope="module")
def photos(real_reader):
    """Three different photos and what the real reader reads from each.

    The first photos (sorted by name) that the reader finds at least one card
    in, preferring a set with a low-confidence read so the highlight is shown;
    photos with no cards fill in only if there are too few others.
    """
    files = _photos()
    if len(files) < 3:
        pytest.skip(f"need 3 photos in {PHOTO_DIR}, found {len(files)}")
    read = []
    for p in files[:24]:
        data = p.read_bytes()
        read.append((p, data, real_reader.read(data)))
    with_cards = [r for r in read if r[2].cards]
    chosen = with_cards[:3]
    if len(chosen) == 3 and not any(_has_low(r[2]) for r in chosen):
        low = [r for r in with_cards[3:] if _has_low(r[2])]
        if low:
            chosen[2] = low[0]
    chosen += [r for r in read if not r[2].cards][:3 - len(chosen)]
    return dict(zip(PLAYERS, chosen))


def _low(app) -> float:
    return float(app.config["LOW_CONFIDENCE"])


def _conf(c) -> float:
    # the page gets the confidence rounded to 3 places (companion.web.reader)
    return round(float(c.confidence), 3)


def _has_low(reading, low=0.6) -> bool:
    return any(_conf(c) < low for c in reading.cards)


def _pct(conf: float) -> str:
    return f"{math.floor(conf * 100 + 0.5)}%"  # as the page's Math.round


def plan(cards: list[str], target: list[str], typed: str | None):
    """Corrections from ``cards`` (as shown) to ``target``:
    (changes [(chip index, new code)], removes [chip index], picks [code], typed [code])."""
    pool = [c for c in target if c != typed]
    extras = []
    for i, code in enumerate(cards):
        if code in pool:
            pool.remove(code)
        else:
            extras.append(i)
    changes = list(zip(extras, pool))
    removes = extras[len(changes):]
    picks = pool[len(changes):]
    return changes, removes, picks, [typed] if typed else []


class Hand:
    """One player's section of the game page, and what it should show."""

    def __init__(self, page, seat: int, name: str):
        from playwright.sync_api import expect
        expect.set_options(timeout=15_000)  # a loaded 2-core machine: saves can take a while
        self.expect = expect
        self.page, self.name = page, name
        self.sec = page.locator(f"#seat-{seat}")
        self.cards: list[str] = []
        self.read: list[str] = []
        self.changed = 0

    def chip(self, i: int):
        return self.sec.locator(".chips button.chip").nth(i)

    def overlay(self) -> str:
        return self.sec.locator("svg.overlay").text_content() or ""

    def settled(self):
        self.expect(self.sec.locator(".cards-text")).to_have_value(" ".join(self.cards))
        self.expect(self.sec.locator(".chips .card")).to_have_count(len(self.cards))

    def open_picker(self):
        wrap = self.sec.locator("details.picker-wrap")
        if wrap.get_attribute("open") is None:
            wrap.locator("summary").click()

    def select(self, i: int):
        self.chip(i).click()
        self.expect(self.sec.locator(".editbar")).to_be_visible()

    def change(self, i: int, code: str, shot: str | None = None):
        old = self.cards[i]
        self.select(i)
        self.open_picker()
        if shot:
            self.sec.locator("figure.photo").scroll_into_view_if_needed()
            self.page.screenshot(path=shot)
        self.sec.locator(f".picker .pick[data-code='{code}']").click()
        self.cards[i] = code
        self.settled()
        self.changed += 1
        if i < len(self.read) and self.read[i] == old:  # still linked to the photo's card
            self.expect(self.chip(i).locator(".card")).to_have_class(_has("fixed"))
            self.expect(self.sec.locator("svg.overlay")).to_contain_text(f"{code} (read {old})")

    def remove(self, i: int):
        self.select(i)
        self.sec.locator(".remove-btn").click()
        del self.cards[i]
        self.settled()

    def pick(self, code: str):
        self.open_picker()
        self.sec.locator(f".picker .pick[data-code='{code}']").click()
        self.cards.append(code)
        self.settled()

    def type_in(self, code: str):
        self.cards.append(code)
        self.sec.locator(".cards-text").fill(" ".join(self.cards))
        self.sec.locator(".save-btn").click()
        self.settled()


def _has(cls: str):
    import re
    return re.compile(rf"(^|\s){re.escape(cls)}(\s|$)")


def upload_and_check(page, hand: Hand, seat: int, photo: Path, data: bytes, reading, low: float):
    """Upload the photo; the page must show exactly the reader's cards."""
    page.set_input_files(f"#seat-{seat} .upload-input",
                         {"name": photo.name, "mimeType": MIME[photo.suffix.lower()], "buffer": data})
    n = len(reading.cards)
    hand.expect(hand.sec.locator(".status")).to_have_text(
        f"{n} card{'' if n == 1 else 's'} read. Check them below.", timeout=60_000)
    want = [str(c.code) for c in reading.cards]
    hand.read, hand.cards = list(want), list(want)
    hand.settled()
    chips = hand.sec.locator(".chips .card")
    assert [chips.nth(i).get_attribute("data-code") for i in range(n)] == want
    texts = hand.sec.locator("svg.overlay text")
    rects = hand.sec.locator("svg.overlay rect")
    if n:
        hand.expect(rects).to_have_count(n)
    assert rects.count() == n
    for i, c in enumerate(reading.cards):
        is_low = _conf(c) < low
        chip_low = "low" in (chips.nth(i).get_attribute("class") or "").split()
        assert chip_low == is_low, \
            f"{hand.name}'s chip {i} ({c.code} {_conf(c)}): low highlight should be {is_low}"
        assert ("low" in (rects.nth(i).get_attribute("class") or "").split()) == is_low
        assert texts.nth(i).text_content() == f"{c.code} {_pct(_conf(c))}"
    assert hand.sec.locator(".chips .card.low").count() == sum(_conf(c) < low for c in reading.cards)
    assert hand.sec.locator("ul.warnings li").all_inner_texts() == [str(w) for w in reading.warnings]


def correct(hands: dict[str, Hand], shot: str | None = None):
    """Turn every hand into its TARGET with the page's correction tools."""
    plans = {name: plan(h.cards, TARGET[name], TYPED.get(name)) for name, h in hands.items()}
    if not any(p[0] for p in plans.values()):
        # The reader left nothing to change: change a read card to a decoy
        # first, so the planned corrections change it (back) to a target card.
        name = next((n for n, h in hands.items() if h.cards), None)
        if name:
            h = hands[name]
            taken = {c for hh in hands.values() for c in hh.cards} | {c for t in TARGET.values() for c in t}
            h.change(0, next(d for d in DECOYS if d not in taken), shot=shot)
            shot = None
            plans[name] = plan(h.cards, TARGET[name], TYPED.get(name))
    for name, h in hands.items():
        changes, removes, picks, typed = plans[name]
        for i, code in changes:
            h.change(i, code, shot=shot)
            shot = None
        for i in sorted(removes, reverse=True):
            gone = h.cards[i]
            linked = i < len(h.read) and h.read[i] == gone
            h.remove(i)
            if linked:
                h.expect(h.sec.locator("svg.overlay")).to_contain_text(f"{gone} removed")
        for code in picks:
            h.pick(code)
        for code in typed:
            h.type_in(code)
        assert sorted(h.cards) == sorted(TARGET[name])
    if not any(h.changed for h in hands.values()):
        # no photo had a card in it: change a hand-added card (and back)
        h = hands["Ann"]
        h.change(0, DECOYS[0])
        h.change(0, TARGET["Ann"][0])
    assert any(h.changed for h in hands.values())


def run_real_flow(page, base: str, photos: dict, low: float, shots: str | None = None):
    page.goto(base + "/")
    for i, name in enumerate(PLAYERS):
        page.fill(f"input[name=seat_{i}]", name)
    page.check("input[name=dealer][value='0']")
    page.fill("input[name=cards_dealt]", "3")
    if shots:
        page.screenshot(path=str(SHOTS / f"setup-{shots}.png"), full_page=True)
    page.click("#setup-form button[type=submit]")
    page.wait_for_selector("text=Bob draws first")
    page.click("text=Score game 1")
    page.wait_for_selector("#seat-0")

    hands = {}
    for seat, name in enumerate(PLAYERS):
        photo, data, reading = photos[name]
        hands[name] = Hand(page, seat, name)
        upload_and_check(page, hands[name], seat, photo, data, reading, low)

    correct(hands, shot=str(SHOTS / f"correction-real-{shots}.png") if shots else None)
    for name, h in hands.items():
        h.expect(h.sec.locator(".preview")).to_contain_text(
            "a count of " + {"Ann": "5", "Bob": "5", "Cat": "35"}[name])
    h.expect(page.locator("#issues .errors")).to_have_count(0)

    page.select_option("#end-type", "declare")
    page.select_option("#end-player", label="Bob")
    page.click("#finish-form button[type=submit]")
    page.wait_for_selector("#winner")
    return hands


def test_full_flow_with_the_real_reader(browser, real_app, photos):
    assert len({p[0] for p in photos.values()}) == 3  # a different photo per player
    with LiveServer(real_app) as srv:
        page = browser.new_page(viewport=PHONE)
        try:
            run_real_flow(page, srv.url, photos, _low(real_app))
            assert page.inner_text("#winner").strip().endswith("Ann wins")
            tie = page.inner_text("#tie")
            assert "Why Ann wins the tie" in tie
            assert "furthest to the left" in tie
            assert page.locator("#tie svg.table-svg .seat.winner").count() == 1
            assert page.locator("#tie svg.table-svg .seat.tied").count() == 2
            assert page.locator("#tie svg.table-svg .seat.first text.name").text_content() == "Bob"
            counts = page.locator(".player .count strong").all_inner_texts()
            assert sorted(counts) == ["35", "5", "5"]
        finally:
            page.close()


def _two_player_game(page, url: str, keep_photos: bool = False) -> "Hand":
    """A new table of Ann (dealing) and Bob, 3 cards each, on game 1's page: Ann's hand."""
    page.goto(url + "/")
    for i, name in enumerate(["Ann", "Bob"]):
        page.fill(f"input[name=seat_{i}]", name)
    page.check("input[name=dealer][value='0']")
    page.fill("input[name=cards_dealt]", "3")
    if keep_photos:
        page.check("input[name=keep_photos]")
    page.click("#setup-form button[type=submit]")
    page.click("text=Score game 1")
    page.wait_for_selector("#seat-0")
    return Hand(page, 0, "Ann")


def test_a_photo_with_no_cards_read_is_added_by_hand(browser, real_app, real_reader):
    """A photo the reader finds no card in (an empty table): the page says so
    with the reader's advice, and the hand is entered with the picker and typing."""
    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (640, 480), (31, 110, 64)).save(buf, "JPEG")
    data = buf.getvalue()
    reading = real_reader.read(data)
    assert reading.cards == () or list(reading.cards) == []
    with LiveServer(real_app) as srv:
        page = browser.new_page(viewport=PHONE)
        try:
            ann = _two_player_game(page, srv.url)
            upload_and_check(page, ann, 0, Path("empty.jpg"), data, reading, _low(real_app))
            assert ann.sec.locator("ul.warnings li").count() >= 1
            ann.pick("AS")
            ann.pick("2D")
            ann.type_in("2C")
            ann.change(0, "3S")
            ann.expect(ann.sec.locator(".preview")).to_contain_text("a count of 7")
        finally:
            page.close()


@pytest.mark.skipif(not os.environ.get("COMPANION_SCREENSHOTS"),
                    reason="set COMPANION_SCREENSHOTS=1 to refresh docs/screenshots")
@pytest.mark.parametrize("size,viewport", [("phone", PHONE), ("laptop", LAPTOP)])
def test_screenshots(browser, real_app, photos, size, viewport):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with LiveServer(real_app) as srv:
        page = browser.new_page(viewport=viewport)
        try:
            run_real_flow(page, srv.url, photos, _low(real_app), shots=size)
            page.screenshot(path=str(SHOTS / f"result-{size}.png"), full_page=True)
            page.click("text=Back to the match")
            page.wait_for_selector(".score-board")
            page.screenshot(path=str(SHOTS / f"match-{size}.png"), full_page=True)
            page.goto(srv.url + "/rules")
            page.screenshot(path=str(SHOTS / f"rules-{size}.png"), full_page=False)
        finally:
            page.close()


HEIC_PHOTO = ROOT / "tests" / "fixtures" / "heic" / "cards_turned.heic"


@pytest.mark.parametrize("keep", [False, True], ids=["photos-not-kept", "photos-kept"])
def test_a_heic_photo_from_an_iphone(browser, real_app, real_reader, keep):
    """An iPhone's HEIC is read like a JPEG.  Chromium cannot show a HEIC, so the
    page never shows a broken image: a kept photo is shown from the server's
    JPEG copy (with one box per card), one that is not kept is left out with a
    note saying why, and the cards are listed either way."""
    data = HEIC_PHOTO.read_bytes()
    reading = real_reader.read(data)
    n = len(reading.cards)
    assert n
    with LiveServer(real_app) as srv:
        page = browser.new_page(viewport=PHONE)
        try:
            ann = _two_player_game(page, srv.url, keep_photos=keep)
            page.set_input_files("#seat-0 .upload-input",
                                 {"name": "IMG_0002.HEIC", "mimeType": "image/heic", "buffer": data})
            ann.expect(ann.sec.locator(".status")).to_contain_text(f"{n} cards read", timeout=60_000)
            ann.cards = [str(c.code) for c in reading.cards]
            ann.settled()
            img = ann.sec.locator("figure.photo img")
            shown = ("(s) => { const f = s.querySelector('figure.photo'), i = f.querySelector('img');"
                     " return f.hidden ? 'hidden' : (i.complete && i.naturalWidth > 0 ? 'shown' : ''); }")
            page.wait_for_function(f"() => ({shown})(document.querySelector('#seat-0'))", timeout=15_000)
            state = ann.sec.evaluate(shown)
            if keep:
                assert state == "shown"
                assert img.evaluate("i => i.naturalWidth") == reading.width
                ann.expect(ann.sec.locator("svg.overlay rect")).to_have_count(n)
            elif state == "hidden":  # this Chromium cannot show HEIC (Safari could: then it is shown)
                ann.expect(ann.sec.locator(".status")).to_contain_text("cannot show this photo")
        finally:
            page.close()
