"""Double submissions: a repeated form or upload does not make a second game,
table or hand change, and does not read the same photo twice."""
from __future__ import annotations

import io
import threading
import time

from .conftest import corpus, new_game, new_table


def games_of(app, table_id):
    from companion.web.db import connect
    conn = connect(app.config["DATABASE"])
    try:
        return [r[0] for r in conn.execute("SELECT id FROM games WHERE table_id = ?", (table_id,))]
    finally:
        conn.close()


def test_new_table_twice_makes_one_table(client):
    form = {"seat_0": "Ann", "seat_1": "Bob", "dealer": "0", "cards_dealt": "3",
            "going_out": "standard", "client_token": "form-render-1234"}
    a = client.post("/tables", data=form)
    b = client.post("/tables", data=form)
    assert a.status_code == b.status_code == 303
    assert a.headers["Location"] == b.headers["Location"]
    assert client.get("/").get_data(as_text=True).count("Ann · Bob") == 1


def test_home_and_match_forms_carry_keys(client):
    assert 'name="client_token"' in client.get("/").get_data(as_text=True)
    table = new_table(client)
    assert 'name="idempotency_key"' in client.get(f"/tables/{table}").get_data(as_text=True)
    game = new_game(client, table)
    html = client.get(f"/tables/{table}/games/{game}").get_data(as_text=True)
    assert html.count('name="idempotency_key"') == 2 * 3  # photo and hand forms, per player


def _finish(client, table, game):
    for seat in range(3):
        client.post(f"/tables/{table}/games/{game}/hands/{seat}", data={"cards": ["7H 8H 9H", "2S 3S 4S",
                                                                                  "KD QD JD"][seat]})
    r = client.post(f"/tables/{table}/games/{game}/finish", data={"end_type": "tie"})
    assert r.status_code == 303


def test_new_game_resubmitted_later_makes_no_second_game(app, client):
    table = new_table(client)
    g1 = new_game(client, table, idempotency_key="new-game-form-A")
    _finish(client, table, g1)
    # the same "new game" form sent again after game 1 finished (back button, retry)
    r = client.post(f"/tables/{table}/games", data={"idempotency_key": "new-game-form-A"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{g1}")
    assert games_of(app, table) == [g1]
    g2 = new_game(client, table, idempotency_key="new-game-form-B")  # a fresh form does
    assert games_of(app, table) == [g1, g2]


def test_hand_save_replayed_after_a_later_save_changes_nothing(client):
    table = new_table(client)
    game = new_game(client, table)
    url = f"/tables/{table}/games/{game}/hands/0"

    def save(cards, key):
        r = client.post(url, json={"cards": cards}, headers={"Idempotency-Key": key,
                                                              "X-Requested-With": "fetch"})
        assert r.status_code == 200
        return r.get_json()["hands"][0]["cards"]

    assert save(["7H", "8H"], "save-key-A") == ["7H", "8H"]
    assert save(["7H", "8H", "9H"], "save-key-B") == ["7H", "8H", "9H"]
    assert save(["7H", "8H"], "save-key-A") == ["7H", "8H", "9H"]  # the late repeat of A
    # the same key with different content is a new save (a page restored by "back", edited)
    assert save(["QS"], "save-key-A") == ["QS"]
    # and the plain form's key works the same way
    r = client.post(url, data={"cards": "2C", "idempotency_key": "form-key-C"})
    assert r.status_code == 303
    client.post(url, data={"cards": "3C", "idempotency_key": "form-key-D"})
    client.post(url, data={"cards": "2C", "idempotency_key": "form-key-C"})
    assert client.get(f"/tables/{table}/games/{game}/state").get_json()["hands"][0]["cards"] == ["3C"]


def test_photo_sent_twice_is_read_once_and_keeps_corrections(client, loading_reader):
    table = new_table(client)
    game = new_game(client, table)
    url = f"/tables/{table}/games/{game}/hands/1/photo"
    headers = {"Idempotency-Key": "photo-key-123", "X-Requested-With": "fetch"}

    def upload():
        return client.post(url, data={"photo": (io.BytesIO(corpus("cmyk.jpg")), "p.jpg")},
                           headers=headers, content_type="multipart/form-data")

    assert upload().status_code == 200
    assert loading_reader.calls == 1
    client.post(f"/tables/{table}/games/{game}/hands/1", json={"cards": ["KS"]})  # a correction
    r = upload()  # the phone sends the same upload again
    assert r.status_code == 200 and loading_reader.calls == 1
    hand = r.get_json()["hands"][1]
    assert hand["cards"] == ["KS"] and hand["reading"]["width"] == 640


def test_a_failed_upload_can_be_retried_with_the_same_key(client, loading_reader):
    table = new_table(client)
    game = new_game(client, table)
    url = f"/tables/{table}/games/{game}/hands/0/photo"
    h = {"Idempotency-Key": "retry-key-123", "X-Requested-With": "fetch"}
    bad = client.post(url, data={"photo": (io.BytesIO(corpus("truncated.jpg")), "p.jpg")},
                      headers=h, content_type="multipart/form-data")
    assert bad.status_code == 400
    again = client.post(url, data={"photo": (io.BytesIO(corpus("truncated.jpg")), "p.jpg")},
                        headers=h, content_type="multipart/form-data")
    assert again.status_code == 400 and loading_reader.calls == 2  # errors are not remembered


def test_simultaneous_double_upload_reads_once(app, client):
    """Two identical uploads at the same moment: the second waits for the first."""
    slow_calls = []
    real = app.extensions["companion_reader"]

    class SlowReader:
        def read(self, data):
            slow_calls.append(1)
            time.sleep(0.5)
            return real.read(data)

    app.extensions["companion_reader"] = SlowReader()
    table = new_table(client)
    game = new_game(client, table)
    url = f"/tables/{table}/games/{game}/hands/2/photo"
    results = []

    def send():
        c = app.test_client()
        with client.session_transaction() as s:
            token = s["csrf"]
        with c.session_transaction() as s:
            s["csrf"] = token
        r = c.post(url, data={"photo": (io.BytesIO(corpus("cmyk.jpg")), "p.jpg")},
                   headers={"Idempotency-Key": "same-moment-key", "X-Requested-With": "fetch"},
                   content_type="multipart/form-data")
        results.append(r.status_code)

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == [200, 200]
    assert len(slow_calls) == 1


def test_a_claim_left_pending_by_a_killed_server_does_not_block_the_retry(app, client,
                                                                          loading_reader):
    """kill -9 between claiming a key and saving leaves a 'pending' row; the restarted
    server (another process) must take it over at once, not make the retry wait."""
    from companion.web import idempotency
    from companion.web.db import connect
    table = new_table(client)
    game = new_game(client, table)
    url = f"/tables/{table}/games/{game}/hands/0/photo"
    key = "killed-mid-read-1"
    row_key = idempotency.fingerprint(key, idempotency.fingerprint(corpus("cmyk.jpg")))
    conn = connect(app.config["DATABASE"])
    conn.execute("INSERT INTO idempotency (scope, key, state, resource, created_at)"
                 " VALUES (?, ?, 'pending', 'boot:1:dead', ?)", (f"photo:{game}:0", row_key, time.time()))
    conn.close()
    t = time.monotonic()
    r = client.post(url, data={"photo": (io.BytesIO(corpus("cmyk.jpg")), "p.jpg")},
                    headers={"Idempotency-Key": key, "X-Requested-With": "fetch"},
                    content_type="multipart/form-data")
    assert r.status_code == 200 and loading_reader.calls == 1
    assert time.monotonic() - t < 5
