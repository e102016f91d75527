"""Pages and forms with Flask's test client against a real SQLite file."""
from __future__ import annotations

import sqlite3

from companion.web import db as dbmod

from .conftest import make_table, start_game


def test_database_is_a_wal_file_with_current_schema(app):
    path = app.config["DATABASE"]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    # migrating again is a no-op
    assert dbmod.migrate(path) == dbmod.SCHEMA_VERSION


def test_instance_folder_from_env(tmp_path, monkeypatch):
    from companion.web import create_app
    monkeypatch.setenv("COMPANION_INSTANCE", str(tmp_path / "inst"))
    app = create_app({"TESTING": True})
    assert app.instance_path == str(tmp_path / "inst")
    assert (tmp_path / "inst" / "companion.sqlite3").exists()
    assert (tmp_path / "inst" / "secret_key").exists()


def test_pages_render(client):
    for url in ("/", "/rules", "/meld", "/print"):
        r = client.get(url)
        assert r.status_code == 200, url
        assert b"<script>" not in r.data  # scripts only from static files (CSP)
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]


def test_create_table_and_match_page(client):
    tid = make_table(client, players=("Ann", "Bob", "Cat"), dealer=1, cards=7)
    page = client.get(f"/tables/{tid}").get_data(as_text=True)
    assert "Ann" in page and "Bob" in page and "Cat" in page
    # dealer is Bob, so Cat (Bob's left) draws first
    assert "<strong>Cat</strong> draws first" in page


def test_create_table_rejects_bad_input(client):
    r = client.post("/tables", data={"seat_0": "Ann", "dealer": "0", "cards_dealt": "3"})
    assert r.status_code == 400
    assert b"at least two players" in r.data
    r = client.post("/tables", data={"seat_0": "Ann", "seat_1": "ann", "dealer": "0",
                                     "cards_dealt": "3"})
    assert r.status_code == 400 and b"different name" in r.data
    # 8 players may only be dealt 2 cards: the engine's message is shown
    form = {f"seat_{i}": f"P{i}" for i in range(8)}
    form.update(dealer="0", cards_dealt="5")
    r = client.post("/tables", data=form)
    assert r.status_code == 400
    assert b"Please fix" in r.data


def test_double_submitted_table_form_creates_one_table(client, app):
    form = {"seat_0": "Ann", "seat_1": "Bob", "dealer": "0", "cards_dealt": "3",
            "client_token": "abc123"}
    r1 = client.post("/tables", data=form)
    r2 = client.post("/tables", data=form)
    assert r1.headers["Location"] == r2.headers["Location"]
    with app.app_context():
        assert dbmod.get_db().execute("SELECT COUNT(*) FROM tables").fetchone()[0] == 1


def test_start_game_is_idempotent(client):
    tid = make_table(client)
    g1 = start_game(client, tid)
    g2 = start_game(client, tid)
    assert g1 == g2


def test_save_hand_json_and_form(client):
    tid = make_table(client)
    gid = start_game(client, tid)
    r = client.post(f"/tables/{tid}/games/{gid}/hands/0", json={"cards": ["10h", "js", "qd"]})
    assert r.status_code == 200
    st = r.get_json()
    assert st["hands"][0]["cards"] == ["10H", "JS", "QD"]
    assert st["hands"][0]["score"]["count"] == 33
    r = client.post(f"/tables/{tid}/games/{gid}/hands/1", data={"cards": "7h 8h 9h"})
    assert r.status_code == 303
    st = client.get(f"/tables/{tid}/games/{gid}/state").get_json()
    assert st["hands"][1]["cards"] == ["7H", "8H", "9H"]
    r = client.post(f"/tables/{tid}/games/{gid}/hands/1", json={"cards": ["7H", "ZZ"]})
    assert r.status_code == 400 and "ZZ" in r.get_json()["error"]
    r = client.post(f"/tables/{tid}/games/{gid}/hands/9", json={"cards": []})
    assert r.status_code == 404


def test_duplicates_and_cards_not_in_play_are_flagged(client):
    tid = make_table(client, opt_COUNT7="1", wild_copies="1")
    gid = start_game(client, tid)
    client.post(f"/tables/{tid}/games/{gid}/hands/0", json={"cards": ["7H", "8H", "WILD"]})
    client.post(f"/tables/{tid}/games/{gid}/hands/1", json={"cards": ["7H", "COUNT12", "2C"]})
    st = client.post(f"/tables/{tid}/games/{gid}/hands/2",
                     json={"cards": ["WILD", "COUNT7", "3C"]}).get_json()
    errors = " ".join(st["issues"]["errors"])
    assert "7H appears 2 times" in errors
    assert "COUNT12 is not in play" in errors
    assert "2 WILDCARDs were read but only 1" in errors
    assert "7H" in st["issues"]["by_seat"]["0"]["dup"]
    assert "COUNT12" in st["issues"]["by_seat"]["1"]["not_in_play"]
    # scoring is refused until fixed
    r = client.post(f"/tables/{tid}/games/{gid}/finish", data={"end_type": "declare",
                                                              "end_player": "0"})
    assert r.status_code == 400
    assert b"7H appears 2 times" in r.data


def test_finish_needs_every_hand_and_the_player(client):
    tid = make_table(client)
    gid = start_game(client, tid)
    r = client.post(f"/tables/{tid}/games/{gid}/finish", data={"end_type": "declare"})
    assert r.status_code == 400
    assert b"Choose who declared" in r.data
    assert b"has no cards yet" in r.data


def test_meld_checker_explains(client):
    r = client.get("/meld", query_string={"cards": "KH AH 2H"})
    page = r.get_data(as_text=True)
    assert r.status_code == 200
    assert "wraps around" in page
    r = client.get("/meld", query_string={"cards": "7H 8H 9H 7S 7C"})
    page = r.get_data(as_text=True)
    assert "Best arrangement: count" in page
    r = client.get("/meld", query_string={"cards": "7H XX"})
    assert r.status_code == 400 and "XX" in r.get_data(as_text=True)


def test_optional_cards_pdf_route(client):
    r = client.get("/print/optional-cards-a4.pdf")
    assert r.status_code in (200, 503)
    if r.status_code == 200:
        assert r.data.startswith(b"%PDF")
    assert client.get("/print/optional-cards-a3.pdf").status_code == 404
