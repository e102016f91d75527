"""JSON API: answers and 4xx JSON errors, never a 500 for bad input."""
from __future__ import annotations

import io

import pytest


def test_score(client):
    r = client.post("/api/score", json={"hand": ["7H", "8H", "9H", "KS"]})
    assert r.status_code == 200
    body = r.get_json()
    assert list(body)[:2] == ["hand", "count"]
    assert body["count"] == 13
    assert body["melds"] == [{"kind": "sequence", "cards": ["7H", "8H", "9H"]}]
    assert body["unmelded"] == ["KS"]
    # a string hand works too
    assert client.post("/api/score", json={"hand": "7h 8h 9h ks"}).get_json()["count"] == 13


@pytest.mark.parametrize("body,needle", [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "JSON object"),
    (b'{"cards": []}', '"hand"'),
    (b'{"hand": 7}', '"hand" must be'),
    (b'{"hand": ["ZZ"]}', "ZZ"),
    (b'{"hand": ["7H", "7H"]}', "7H"),
    (b'{"hand": [null]}', "not a card"),
    (b'{"hand": ["WILD", "WILD", "WILD", "WILD"]}', "WILD"),
])
def test_score_errors_are_json_400(client, body, needle):
    r = client.post("/api/score", data=body, content_type="application/json")
    assert r.status_code == 400, r.data
    assert needle in r.get_json()["error"]


def test_huge_hand_is_refused(client):
    r = client.post("/api/score", json={"hand": ["7H"] * 10_000})
    assert r.status_code == 400
    assert "error" in r.get_json()


def test_round(client):
    body = {
        "players": [
            {"name": "Bob", "hand": ["4C", "AD", "5H", "6H", "7H"], "dropped": False},
            {"name": "Cat", "hand": ["KS", "QD", "JC"], "dropped": False},
            {"name": "Ann", "hand": ["2S", "3D"], "dropped": False},
        ],
        "end": {"type": "declare", "player": "Bob"},
        "variations": {"gin": False, "declare_bonus": False, "going_out": "standard",
                       "four_sevens": False},
    }
    r = client.post("/api/round", json=body)
    assert r.status_code == 200, r.get_json()
    out = r.get_json()
    assert out["winner"] == "Ann"
    assert out["legal"] is True
    assert out["tie_break"]


@pytest.mark.parametrize("body", [
    {}, {"players": "x"}, {"players": [], "end": {"type": "declare"}},
    {"players": [{"name": "A", "hand": ["7H"]}], "end": {"type": "bogus"}},
    {"players": [{"name": 3, "hand": 5}], "end": 7},
])
def test_round_errors_are_4xx_json(client, body):
    r = client.post("/api/round", json=body)
    assert 400 <= r.status_code < 500, r.data
    assert r.get_json()["error"]


def test_meld(client):
    r = client.post("/api/meld", json={"cards": ["KH", "AH", "2H"]})
    body = r.get_json()
    assert r.status_code == 200 and body["meld"] is False
    assert "wraps around" in body["reason"]


def test_detect_with_injected_reader(client, fake_reader):
    photo = fake_reader.add([("7H", 0.9), ("8H", 0.8), ("9H", 0.7)])
    r = client.post("/api/detect", data={"photo": (io.BytesIO(photo), "p.png")})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert [c["card"] for c in body["cards"]] == ["7H", "8H", "9H"]
    assert body["score"]["count"] == 0
    assert body["warnings"] == []


def test_detect_errors(client, fake_reader):
    r = client.post("/api/detect", data={})
    assert r.status_code == 400 and '"photo"' in r.get_json()["error"]
    r = client.post("/api/detect", data={"photo": (io.BytesIO(b"not an image"), "x.jpg")})
    assert r.status_code == 400 and r.get_json()["error"]
    r = client.post("/api/detect", data={"photo": (io.BytesIO(b""), "x.jpg")})
    assert r.status_code == 400 and r.get_json()["error"]


def test_detect_duplicate_read_is_a_warning_not_a_crash(client, fake_reader):
    photo = fake_reader.add([("7H", 0.9), ("7H", 0.8)])
    body = client.post("/api/detect", data={"photo": (io.BytesIO(photo), "p.png")}).get_json()
    assert body["score"] is None
    assert any("7H" in w for w in body["warnings"])


def test_upload_too_large_is_413_json(client):
    big = io.BytesIO(b"\xff\xd8" + b"0" * (3 * 1024 * 1024))
    r = client.post("/api/detect", data={"photo": (big, "big.jpg")})
    assert r.status_code == 413
    assert "too large" in r.get_json()["error"]


def test_unknown_api_path_and_method_are_json(client):
    r = client.get("/api/nope")
    assert r.status_code == 404 and r.get_json()["error"]
    r = client.get("/api/score")
    assert r.status_code == 405 and "POST" in r.get_json()["error"]


def test_reader_unavailable_is_503(tmp_path, monkeypatch):
    from companion.web import create_app, reader as reader_mod

    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "i")})

    def boom(app=None):
        raise reader_mod.ReaderUnavailable("The card reader is not available (test).")
    monkeypatch.setattr("companion.web.views.api.read_photo",
                        lambda data: boom())
    r = app.test_client().post("/api/detect", data={"photo": (io.BytesIO(b"x"), "x.jpg")})
    assert r.status_code == 503 and "not available" in r.get_json()["error"]
