"""The photo flow with the REAL card reader on the fixture photos.

Every image under tests/fixtures/photos/ is read by ``vision.reader`` directly
and through the companion (API, game page); the companion must keep exactly
the cards the reader returns, in order, with their boxes.  The browser shows
them exactly too: test_browser_real.py (the full flow on three photos).  Skipped
when there are no fixture photos or the reader's model is not installed.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest


from .conftest import make_table, start_game

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "photos"
EXTS = {".jpg", ".jpeg", ".png", ".webp"}
PHOTOS = sorted(p for p in FIXTURES.glob("*") if p.suffix.lower() in EXTS) \
    if FIXTURES.is_dir() else []


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
