"""The photo flow with the REAL card reader on the fixture photos.

Every image under tests/fixtures/photos/ is read by ``vision.reader`` directly
and through the companion (API, game page, browser); the companion must show
exactly the cards the reader returns, in order, with their boxes.  Skipped
when there are no fixture photos or the reader's model is not installed.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from companion.web import create_app

from .conftest import LiveServer, make_table, start_game

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "photos"
EXTS = {".jpg", ".jpeg", ".png", ".webp"}
PHOTOS = sorted(p for p in FIXTURES.glob("*") if p.suffix.lower() in EXTS) \
    if FIXTURES.is_dir() else []


@pytest.fixture(scope="module")
def real_reader():
    try:
        from vision.reader import get_reader
        from vision.errors import ReaderError
    except ImportError as exc:
        pytest.skip(f"vision.reader not importable: {exc}")
    try:
        return get_reader()
    except ReaderError as exc:
        pytest.skip(f"card reader model unavailable: {exc}")


@pytest.fixture
def real_app(tmp_path):
    # reader=None: the app uses vision.reader.get_reader(), the shared real reader
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")})


def _expected(reader, data: bytes) -> list[str]:
    return [c.code for c in reader.read(data).cards]


pytestmark = pytest.mark.skipif(not PHOTOS, reason=f"no fixture photos in {FIXTURES}")


@pytest.mark.parametrize("photo", PHOTOS, ids=[p.name for p in PHOTOS])
def test_api_detect_matches_the_reader(real_reader, real_app, photo):
    data = photo.read_bytes()
    want = _expected(real_reader, data)
    r = real_app.test_client().post("/api/detect", data={"photo": (io.BytesIO(data), photo.name)})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert [c["card"] for c in body["cards"]] == want
    for c in body["cards"]:
        assert 0.0 <= c["confidence"] <= 1.0 and len(c["box"]) == 4


def test_game_hand_from_each_photo(real_reader, real_app):
    client = real_app.test_client()
    players = [f"P{i + 1}" for i in range(max(2, min(len(PHOTOS), 10)))]
    tid = make_table(client, players=players, cards=2, wild_copies="3",
                     **{f"opt_{c}": "1" for c in ("COUNT1", "COUNT2", "COUNT3", "COUNT4",
                                                  "COUNT7", "COUNT12", "NOMELD0", "NOMELD2",
                                                  "NODECLARE0")})
    gid = start_game(client, tid)
    for seat, photo in enumerate(PHOTOS[:len(players)]):
        data = photo.read_bytes()
        want = _expected(real_reader, data)
        r = client.post(f"/tables/{tid}/games/{gid}/hands/{seat}/photo",
                        data={"photo": (io.BytesIO(data), photo.name)},
                        headers={"X-Requested-With": "fetch"})
        assert r.status_code == 200, r.get_json()
        hand = r.get_json()["hands"][seat]
        assert hand["cards"] == want
        assert [c["code"] for c in hand["reading"]["cards"]] == want


@pytest.mark.browser
def test_browser_shows_exactly_the_read_cards(real_reader, real_app, browser):
    photo = PHOTOS[0]
    data = photo.read_bytes()
    reading = real_reader.read(data)
    want = [c.code for c in reading.cards]
    client = real_app.test_client()
    tid = make_table(client, players=("Ann", "Bob"), cards=2, wild_copies="3")
    gid = start_game(client, tid)
    with LiveServer(real_app) as srv:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        try:
            page.goto(f"{srv.url}/tables/{tid}/games/{gid}")
            mime = "image/png" if photo.suffix.lower() == ".png" else "image/jpeg"
            page.set_input_files("#seat-0 .upload-input",
                                 {"name": photo.name, "mimeType": mime, "buffer": data})
            page.wait_for_selector("#seat-0 .status:has-text('read')", timeout=60_000)
            # (no page.evaluate: the CSP forbids eval, which Playwright would need)
            shown = [el.get_attribute("data-code")
                     for el in page.locator("#seat-0 .chips .card").all()]
            assert shown == want
            assert page.locator("#seat-0 svg.overlay rect").count() == len(want)
            low = sum(1 for c in reading.cards if c.confidence < real_app.config["LOW_CONFIDENCE"])
            assert page.locator("#seat-0 .chips .card.low").count() == low
        finally:
            page.close()
