"""Security on a shared network: loopback by default, LAN mode behind a table
code, Host check, real CSRF, headers everywhere, no debug, photos never served
from a client-chosen path."""
from __future__ import annotations

import io
import re

import pytest
from flask.testing import FlaskClient

from companion.web import create_app
from companion.web.security import CSP, format_code, is_loopback

from .conftest import corpus, make_app, new_game, new_table

PHONE = {"REMOTE_ADDR": "192.168.1.77"}
STRANGER = {"REMOTE_ADDR": "192.168.1.99"}


def raw_client(app, **environ) -> FlaskClient:
    """A client that does NOT add the CSRF token by itself."""
    c = FlaskClient(app, app.response_class, use_cookies=True)
    if environ:
        c.environ_base.update(environ)
    return c


def page_token(resp) -> str:
    m = re.search(r'name="csrf-token" content="([^"]+)"', resp.get_data(as_text=True))
    assert m, "no CSRF token on the page"
    return m.group(1)


@pytest.fixture
def lan_app(tmp_path):
    return make_app(tmp_path, LAN_MODE=True, TABLE_CODE="ABC234", LAN_URL="http://192.168.1.5:5000")


# --- headers and debug -----------------------------------------------------------------

def test_security_headers_on_every_kind_of_response(client, app):
    table = new_table(client)
    paths = ["/", "/rules", "/meld", f"/tables/{table}", "/static/css/app.css",
             "/static/js/app.js", "/nope", "/api/openapi.json", "/api/nothing", "/join"]
    responses = [client.get(p) for p in paths]
    responses.append(client.post("/api/score", data="not json"))
    responses.append(raw_client(app).post("/tables", data={}))  # CSRF refusal
    for r in responses:
        assert r.headers["Content-Security-Policy"] == CSP
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        assert "'unsafe-inline'" not in r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"


def test_no_inline_script_in_pages(client):
    table = new_table(client)
    game = new_game(client, table)
    for path in ["/", "/rules", "/meld", "/print", f"/tables/{table}",
                 f"/tables/{table}/games/{game}", f"/tables/{table}/first-dealer"]:
        html = client.get(path).get_data(as_text=True)
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag, (path, tag)
        assert not re.search(r"<script\b[^>]*>[^<]+</script>", html), path
        assert not re.search(r"\son[a-z]+=", html), path  # no onclick= handlers


def test_debug_is_off_even_with_flask_debug(monkeypatch, tmp_path):
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app = create_app({"INSTANCE_PATH": str(tmp_path / "i")})
    assert app.debug is False
    from companion.web.server import make_app as server_app
    app = server_app(str(tmp_path / "j"), preload=False)
    assert app.debug is False and app.config["DEBUG"] is False


def test_an_unexpected_error_shows_no_traceback(app, client):
    app.config["PROPAGATE_EXCEPTIONS"] = False

    def boom(data):
        raise RuntimeError("secret internals /etc/passwd")

    app.extensions["companion_reader"].read = boom
    r = client.post("/api/detect", data={"photo": (io.BytesIO(b"x"), "a.jpg")},
                    content_type="multipart/form-data")
    assert r.status_code == 500
    assert "secret internals" not in r.get_data(as_text=True) and "Traceback" not in r.get_data(as_text=True)


# --- CSRF --------------------------------------------------------------------------------

def test_csrf_is_required_on_every_state_changing_route(app, client):
    table = new_table(client)
    game = new_game(client, table)
    anon = raw_client(app)
    anon.get("/")  # a session with a token, but the requests below do not send it
    posts = [
        ("/tables", {"seat_0": "A", "seat_1": "B", "dealer": "0", "cards_dealt": "3"}),
        (f"/tables/{table}/settings", {"cards_dealt": "3"}),
        (f"/tables/{table}/games", {}),
        (f"/tables/{table}/first-dealer", {"seat_0": "AH"}),
        (f"/tables/{table}/first-dealer/apply", {}),
        (f"/tables/{table}/games/{game}/hands/0", {"cards": "7H"}),
        (f"/tables/{table}/games/{game}/hands/0/photo", {"photo": b"x"}),
        (f"/tables/{table}/games/{game}/finish", {"end_type": "tie"}),
        (f"/tables/{table}/games/{game}/reopen", {}),
        (f"/tables/{table}/games/{game}/delete", {}),
        ("/meld", {"cards": "7H 8H 9H"}),
    ]
    for path, form in posts:
        for extra in ({}, {"csrf_token": "x" * 43}):
            data = {k: (io.BytesIO(v), "a.jpg") if isinstance(v, bytes) else v
                    for k, v in form.items()}
            r = anon.post(path, data={**data, **extra})
            assert r.status_code == 400, (path, r.status_code)
            assert "security token" in r.get_data(as_text=True)
        r = anon.post(path, json={"cards": ["7H"]}, headers={"X-Requested-With": "fetch"})
        assert r.status_code == 400 and "security token" in r.get_json()["error"]
    # nothing changed
    assert client.get(f"/tables/{table}/games/{game}/state").get_json()["status"] == "open"
    assert client.get(f"/tables/{table}/games/{game}").status_code == 200


def test_csrf_token_from_the_page_works_in_forms_and_headers(app):
    c = raw_client(app)
    token = page_token(c.get("/"))
    r = c.post("/tables", data={"csrf_token": token, "seat_0": "Ann", "seat_1": "Bob",
                                "dealer": "0", "cards_dealt": "3", "going_out": "standard"})
    assert r.status_code == 303
    table = int(r.headers["Location"].rsplit("/", 1)[-1])
    r = c.post(f"/tables/{table}/games", headers={"X-CSRF-Token": token})
    assert r.status_code == 303
    # another session's token is no good
    other = raw_client(app)
    other.get("/")
    assert other.post(f"/tables/{table}/games", headers={"X-CSRF-Token": token}).status_code == 400


def test_cross_site_origin_is_refused_even_with_a_token(app):
    c = raw_client(app)
    token = page_token(c.get("/"))
    r = c.post("/meld", data={"csrf_token": token, "cards": "7H"},
               headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    r = c.post("/meld", data={"csrf_token": token, "cards": "7H"},
               headers={"Origin": "http://localhost"})
    assert r.status_code == 200


def test_json_api_needs_no_token_on_loopback(app):
    c = raw_client(app)
    assert c.post("/api/score", json={"hand": ["7H", "8H", "9H"]}).status_code == 200
    assert c.post("/api/round", json={"players": [{"name": "A", "hand": []},
                                                  {"name": "B", "hand": []}],
                                      "end": {"type": "tie"}}).status_code == 200


def test_session_cookie_flags(app):
    c = raw_client(app)
    r = c.get("/")
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert cookie.startswith("companion_")


# --- Host header (DNS rebinding) -----------------------------------------------------------

def test_loopback_requests_must_name_the_companion_by_address(client):
    assert client.get("/", headers={"Host": "127.0.0.1:5000"}).status_code == 200
    assert client.get("/", headers={"Host": "localhost:5000"}).status_code == 200
    assert client.get("/", headers={"Host": "[::1]:5000"}).status_code == 200
    r = client.get("/", headers={"Host": "evil.example:5000"})
    assert r.status_code == 400 and "127.0.0.1" in r.get_data(as_text=True)
    assert client.post("/api/score", json={"hand": []},
                       headers={"Host": "rebind.evil.example"}).status_code == 400


# --- binding and LAN mode --------------------------------------------------------------------

def test_server_binds_loopback_by_default_and_lan_opts_in(monkeypatch, tmp_path):
    import waitress
    from companion.web import server
    seen = {}
    monkeypatch.setattr(waitress, "serve", lambda app, **kw: seen.update(kw, app=app))
    assert server.main(["--instance", str(tmp_path / "a"), "--no-preload", "--port", "5999"]) == 0
    assert seen["host"] == "127.0.0.1" and seen["app"].config["LAN_MODE"] is False
    assert seen["threads"] >= 8
    assert server.main(["--instance", str(tmp_path / "b"), "--no-preload", "--lan"]) == 0
    assert seen["host"] == "0.0.0.0" and seen["app"].config["LAN_MODE"] is True
    code = seen["app"].config["TABLE_CODE"]
    assert len(code) == 6 and code.isalnum()
    assert server.main(["--instance", str(tmp_path / "c"), "--no-preload", "--host", "0.0.0.0",
                        "--code", "table-42"]) == 0
    assert seen["app"].config["LAN_MODE"] is True and seen["app"].config["TABLE_CODE"] == "TABLE42"
    assert server.main(["--instance", str(tmp_path / "d"), "--no-preload", "--lan",
                        "--code", "x"]) == 2


def test_other_devices_are_refused_without_lan_mode(app):
    c = raw_client(app, **PHONE)
    r = c.get("/")
    assert r.status_code == 403 and "--lan" in r.get_data(as_text=True)
    assert c.post("/api/score", json={"hand": []}).status_code == 403
    assert c.get("/join?code=anything").status_code == 403


def test_lan_mode_needs_the_table_code(lan_app):
    stranger = raw_client(lan_app, **STRANGER)
    for path in ["/", "/rules", "/tables/1", "/share", "/share/qr.svg"]:
        r = stranger.get(path)
        assert r.status_code == 403, path
        assert "table code" in r.get_data(as_text=True)
        assert 'name="code"' in r.get_data(as_text=True)  # the page says how to join
    r = stranger.post("/api/score", json={"hand": ["7H"]})
    assert r.status_code == 403 and "table code" in r.get_json()["error"]
    assert stranger.get("/static/css/app.css").status_code == 200  # the refusal page is styled
    # scripts may send the code in a header
    r = stranger.post("/api/score", json={"hand": ["7H"]}, headers={"X-Table-Code": "abc-234"})
    assert r.status_code == 200


def test_joining_with_the_form_and_with_the_qr_link(lan_app):
    phone = raw_client(lan_app, **PHONE)
    page = phone.get("/join")
    token = page_token(page)
    r = phone.post("/join", data={"csrf_token": token, "code": "ABC-999"})
    assert r.status_code == 403 and "not this table" in r.get_data(as_text=True)
    r = phone.post("/join", data={"csrf_token": token, "code": "abc 234"})
    assert r.status_code == 303
    assert phone.get("/").status_code == 200
    # it can now use the forms, with its own CSRF token
    token = page_token(phone.get("/"))
    r = phone.post("/tables", data={"csrf_token": token, "seat_0": "A", "seat_1": "B", "dealer": "0",
                                    "cards_dealt": "3", "going_out": "standard"})
    assert r.status_code == 303
    # the QR link joins in one step
    other = raw_client(lan_app, **STRANGER)
    r = other.get("/join?code=ABC234")
    assert r.status_code == 303 and other.get("/").status_code == 200


def test_a_restarted_companion_with_a_new_code_drops_old_devices(tmp_path):
    app = make_app(tmp_path, LAN_MODE=True, TABLE_CODE="ABC234")
    phone = raw_client(app, **PHONE)
    assert phone.get("/join?code=ABC234").status_code == 303
    app.config["TABLE_CODE"] = "XYZ789"
    assert phone.get("/").status_code == 403


def test_wrong_codes_are_rate_limited(lan_app):
    guesser = raw_client(lan_app, **STRANGER)
    codes = [s for s in ("AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF", "GGGGGG",
                         "HHHHHH", "JJJJJJ", "KKKKKK")]
    for code in codes:
        assert guesser.get(f"/join?code={code}").status_code == 403
    r = guesser.get("/join?code=ABC234")  # even the right code, now
    assert r.status_code == 429 and "wait" in r.get_data(as_text=True)
    assert raw_client(lan_app, **PHONE).get("/join?code=ABC234").status_code == 303


def test_the_host_sees_the_code_and_the_qr(lan_app):
    host = raw_client(lan_app)
    html = host.get("/").get_data(as_text=True)
    assert format_code("ABC234") in html and "http://192.168.1.5:5000" in html
    share = host.get("/share")
    assert share.status_code == 200 and "ABC-234" in share.get_data(as_text=True)
    svg = host.get("/share/qr.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    text = svg.get_data(as_text=True)
    assert text.lstrip().startswith("<svg") and "<path" in text and "<script" not in text
    # joined phones do not see the code
    phone = raw_client(lan_app, **PHONE)
    phone.get("/join?code=ABC234")
    assert "ABC-234" not in phone.get("/").get_data(as_text=True)
    assert phone.get("/share").status_code == 404


def test_qr_encodes_the_join_link():
    import segno
    from companion.web.security import join_url_for
    url = join_url_for("http://192.168.1.5:5000", "ABC234")
    assert url == "http://192.168.1.5:5000/join?code=ABC234"
    qr = segno.make(url, error="m")
    assert qr.designator  # a valid symbol was made, offline


def test_is_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("::ffff:127.0.0.1")
    assert not is_loopback("192.168.1.2") and not is_loopback("") and not is_loopback(None)
    assert not is_loopback("::ffff:10.0.0.1") and not is_loopback("garbage")


# --- photos ---------------------------------------------------------------------------------

def test_photos_not_kept_are_never_written(app, client, tmp_path):
    table = new_table(client)
    game = new_game(client, table)
    r = client.post(f"/tables/{table}/games/{game}/hands/0/photo",
                    data={"photo": (io.BytesIO(corpus("cmyk.jpg")), "../../../etc/passwd")},
                    content_type="multipart/form-data")
    assert r.status_code == 303
    photo_dir = tmp_path / "instance" / "photos"
    assert list(photo_dir.iterdir()) == []
    assert client.get(f"/tables/{table}/games/{game}/hands/0/photo").status_code == 404


def test_kept_photos_have_server_chosen_names_and_go_with_the_game(app, client, tmp_path):
    table = new_table(client, keep_photos=1)
    game = new_game(client, table)
    url = f"/tables/{table}/games/{game}/hands/0/photo"
    r = client.post(url, data={"photo": (io.BytesIO(corpus("cmyk.jpg")), "../../evil.html")},
                    content_type="multipart/form-data")
    assert r.status_code == 303
    photo_dir = tmp_path / "instance" / "photos"
    files = list(photo_dir.iterdir())
    assert len(files) == 1 and re.fullmatch(r"[0-9a-f]{32}\.jpg", files[0].name)
    got = client.get(url)
    assert got.status_code == 200 and got.mimetype == "image/jpeg"
    assert got.headers["X-Content-Type-Options"] == "nosniff"
    # a second photo replaces the first file
    client.post(url, data={"photo": (io.BytesIO(corpus("palette.gif")), "b.gif")},
                content_type="multipart/form-data")
    files = list(photo_dir.iterdir())
    assert len(files) == 1 and files[0].suffix == ".gif"
    # undoing the game deletes it
    assert client.post(f"/tables/{table}/games/{game}/delete").status_code == 303
    assert list(photo_dir.iterdir()) == []


def test_the_page_says_whether_photos_are_kept(client):
    table = new_table(client)
    html = client.get(f"/tables/{table}/games/{new_game(client, table)}").get_data(as_text=True)
    assert "not kept" in html
    table = new_table(client, keep_photos=1)
    html = client.get(f"/tables/{table}/games/{new_game(client, table)}").get_data(as_text=True)
    assert "keeps" in html


def test_uploads_are_kept_in_memory_not_in_temporary_files(app):
    with app.test_request_context("/api/detect", method="POST",
                                  data={"photo": (io.BytesIO(b"x" * 2_000_000), "p.jpg")},
                                  content_type="multipart/form-data"):
        from flask import request
        assert isinstance(request.files["photo"].stream, io.BytesIO)


def test_the_server_loads_the_reader_once_and_shares_it(monkeypatch, tmp_path):
    import vision.reader
    from companion.web.reader import get_reader
    from companion.web.server import make_app as server_app
    made = []

    class Once:
        def read(self, data):
            raise AssertionError("not called")

    def fake_get_reader():
        made.append(1)
        return Once()

    monkeypatch.setattr(vision.reader, "get_reader", fake_get_reader)
    app = server_app(str(tmp_path / "i"), preload=True)
    assert len(made) == 1
    first = get_reader(app)
    assert all(get_reader(app) is first for _ in range(5)) and len(made) == 1
    assert app.config["PHOTO_SLOTS"] >= 2
