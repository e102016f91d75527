"""A whole game and match through the test client (fake reader for photos)."""
from __future__ import annotations

import io

from .conftest import make_table, start_game


def _hand(client, tid, gid, seat, cards, dropped=False):
    r = client.post(f"/tables/{tid}/games/{gid}/hands/{seat}",
                    json={"cards": cards, "dropped": dropped})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _finish(client, tid, gid, end_type, player=None):
    data = {"end_type": end_type}
    if player is not None:
        data["end_player"] = str(player)
    r = client.post(f"/tables/{tid}/games/{gid}/finish", data=data)
    assert r.status_code == 303, r.get_data(as_text=True)[:3000]
    return client.get(r.headers["Location"]).get_data(as_text=True)


def test_photo_upload_reads_cards_and_links_boxes(client, fake_reader):
    tid = make_table(client)
    gid = start_game(client, tid)
    photo = fake_reader.add([("7H", 0.98), ("8H", 0.41), ("9H", 0.95)])
    r = client.post(f"/tables/{tid}/games/{gid}/hands/0/photo",
                    data={"photo": (io.BytesIO(photo), "hand.png")},
                    headers={"X-Requested-With": "fetch"})
    assert r.status_code == 200, r.get_data(as_text=True)
    st = r.get_json()
    hand = st["hands"][0]
    assert hand["cards"] == ["7H", "8H", "9H"]
    assert hand["links"] == [0, 1, 2]
    assert [c["confidence"] for c in hand["reading"]["cards"]] == [0.98, 0.41, 0.95]
    assert hand["photo_url"] is None  # the table does not keep photos
    # correct the low-confidence card: change 8H to 10H, keeping its box link
    st = client.post(f"/tables/{tid}/games/{gid}/hands/0",
                     json={"cards": ["7H", "10H", "9H"], "links": [0, 1, 2]}).get_json()
    assert st["hands"][0]["cards"] == ["7H", "10H", "9H"]
    assert st["hands"][0]["links"] == [0, 1, 2]
    # not an image -> a 4xx JSON error, nothing saved
    r = client.post(f"/tables/{tid}/games/{gid}/hands/1/photo",
                    data={"photo": (io.BytesIO(b"hello"), "x.jpg")},
                    headers={"X-Requested-With": "fetch"})
    assert 400 <= r.status_code < 500 and "error" in r.get_json()


def test_kept_photo_is_served_by_hand_not_by_path(client, app, fake_reader, tmp_path):
    tid = make_table(client, keep_photos="1")
    gid = start_game(client, tid)
    photo = fake_reader.add([("AS", 0.9)])
    st = client.post(f"/tables/{tid}/games/{gid}/hands/1/photo",
                     data={"photo": (io.BytesIO(photo), "../../etc/passwd")},
                     headers={"X-Requested-With": "fetch"}).get_json()
    url = st["hands"][1]["photo_url"]
    assert url == f"/tables/{tid}/games/{gid}/hands/1/photo"
    r = client.get(url)
    assert r.status_code == 200 and r.data == photo and r.mimetype == "image/png"
    import os
    files = os.listdir(app.config["PHOTO_DIR"])
    assert len(files) == 1 and files[0].endswith(".png") and "passwd" not in files[0]
    # undoing the game deletes the kept photo
    client.post(f"/tables/{tid}/games/{gid}/delete")
    assert os.listdir(app.config["PHOTO_DIR"]) == []


def test_photos_not_kept_are_never_written(client, app, fake_reader):
    tid = make_table(client)
    gid = start_game(client, tid)
    photo = fake_reader.add([("AS", 0.9)])
    client.post(f"/tables/{tid}/games/{gid}/hands/0/photo",
                data={"photo": (io.BytesIO(photo), "a.png")})
    import os
    assert os.listdir(app.config["PHOTO_DIR"]) == []
    page = client.get(f"/tables/{tid}/games/{gid}").get_data(as_text=True)
    assert "not kept" in page


def test_declaration_with_a_tie_names_the_player_latest_in_turn_order(client):
    # Ann deals, so Bob draws first; turn order Bob, Cat, Ann.
    tid = make_table(client, players=("Ann", "Bob", "Cat"), dealer=0, cards=3)
    gid = start_game(client, tid)
    _hand(client, tid, gid, 0, ["2S", "3D"])            # Ann: count 5
    _hand(client, tid, gid, 1, ["4C", "AD", "5H", "6H", "7H"])  # Bob: count 5
    _hand(client, tid, gid, 2, ["KS", "QD", "JC"])     # Cat: count 36
    page = _finish(client, tid, gid, "declare", 1)
    assert "Ann wins" in page
    assert 'id="tie"' in page and "Why Ann wins the tie" in page
    assert "<svg class=\"table-svg\"" in page
    # the engine's own tie-break sentence is shown too
    from companion.web import engine
    out = engine.round_result({
        "players": [{"name": "Bob", "hand": ["4C", "AD", "5H", "6H", "7H"]},
                    {"name": "Cat", "hand": ["KS", "QD", "JC"]},
                    {"name": "Ann", "hand": ["2S", "3D"]}],
        "end": {"type": "declare", "player": "Bob"}})
    import html
    assert out["tie_break"] and html.escape(out["tie_break"]) in page


def test_match_winner_draws_first_and_undo_recomputes(client):
    tid = make_table(client, players=("Ann", "Bob", "Cat"), dealer=2, cards=3)
    # game 1: Ann draws first (Cat dealt); Bob wins with the lowest count
    g1 = start_game(client, tid)
    _hand(client, tid, g1, 0, ["KS", "QS", "JD"])
    _hand(client, tid, g1, 1, ["AS", "2D", "3C"])
    _hand(client, tid, g1, 2, ["9S", "9D", "10C"])
    _finish(client, tid, g1, "declare", 1)
    page = client.get(f"/tables/{tid}").get_data(as_text=True)
    assert "<strong>Bob</strong> draws first" in page
    # game 2: Bob wins again -> match over
    g2 = start_game(client, tid)
    _hand(client, tid, g2, 0, ["KH", "QH", "JH", "5C"])
    _hand(client, tid, g2, 1, ["AH", "2H", "3H", "4H"])
    _hand(client, tid, g2, 2, ["9H", "9C", "10D"])
    _finish(client, tid, g2, "go_out", 1)
    page = client.get(f"/tables/{tid}").get_data(as_text=True)
    assert "Bob wins the match" in page
    # undo game 2: derived state recomputed, Bob has one win and draws first
    client.post(f"/tables/{tid}/games/{g2}/delete")
    page = client.get(f"/tables/{tid}").get_data(as_text=True)
    assert "wins the match" not in page
    assert "<strong>Bob</strong> draws first" in page
    # correct game 1: Bob's hand was really worse; Ann wins; next first is Ann
    client.post(f"/tables/{tid}/games/{g1}/reopen")
    _hand(client, tid, g1, 1, ["KD", "KC", "QC"])
    _finish(client, tid, g1, "declare", 1)
    page = client.get(f"/tables/{tid}").get_data(as_text=True)
    assert "<strong>Cat</strong> draws first" in page  # Cat's 28 is now the lowest


def test_finished_game_cannot_be_edited_until_reopened(client):
    tid = make_table(client, players=("Ann", "Bob"), dealer=0, cards=2)
    gid = start_game(client, tid)
    _hand(client, tid, gid, 0, ["2S", "3D"])
    _hand(client, tid, gid, 1, ["4C", "AD"])
    _finish(client, tid, gid, "declare", 0)
    r = client.post(f"/tables/{tid}/games/{gid}/hands/0", json={"cards": ["AS"]})
    assert r.status_code == 409


def test_too_large_photo_on_the_game_page(client):
    tid = make_table(client)
    gid = start_game(client, tid)
    big = io.BytesIO(b"\xff\xd8" + b"0" * (3 * 1024 * 1024))
    r = client.post(f"/tables/{tid}/games/{gid}/hands/0/photo",
                    data={"photo": (big, "big.jpg")}, headers={"X-Requested-With": "fetch"})
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    r = client.post(f"/tables/{tid}/games/{gid}/hands/0/photo",
                    data={"photo": (io.BytesIO(b"\xff\xd8" + b"0" * (3 * 1024 * 1024)), "b.jpg")})
    assert r.status_code == 413 and b"too large" in r.data


def test_unknown_pages_are_404_html(client):
    r = client.get("/tables/999")
    assert r.status_code == 404 and b"Not found" in r.data


def test_illegal_declaration_is_reported_with_no_winner(client):
    tid = make_table(client, players=("Ann", "Bob"), dealer=0, cards=2, opt_NODECLARE0="1")
    gid = start_game(client, tid)
    _hand(client, tid, gid, 0, ["2S", "3D"])
    _hand(client, tid, gid, 1, ["NODECLARE0", "AD", "2C"])
    page = _finish(client, tid, gid, "declare", 1)
    assert "Illegal." in page and "No winner" in page
    assert "CAN" in page  # the engine's reason names the card
    match = client.get(f"/tables/{tid}").get_data(as_text=True)
    assert "illegal declare" in match
