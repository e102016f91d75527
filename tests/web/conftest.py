"""Fixtures for the web app (Flask tutorial style): a real SQLite file in a
temporary instance folder, a test client, a fake card reader for the flows
that do not test the reader itself, and the real reader (``real_reader``,
``real_app``) for those that do."""
from __future__ import annotations

import io
import socket
import threading
from dataclasses import dataclass, field

import pytest

from companion.web import create_app
from companion.web.testing import CsrfClient


@dataclass
class FakeCard:
    code: str
    confidence: float
    box: tuple


@dataclass
class FakeReading:
    cards: list
    warnings: list = field(default_factory=list)
    width: int = 800
    height: int = 600


class FakeReader:
    """Reads a photo by looking its bytes up in ``photos`` (set by the test)."""

    def __init__(self):
        self.photos: dict[bytes, list[tuple[str, float]]] = {}
        self.calls = 0

    def add(self, cards: list[tuple[str, float]]) -> bytes:
        """A drawn 800x600 'photo' of the cards (unique bytes per call)."""
        from PIL import Image, ImageDraw
        img = Image.new("RGB", (800, 600), (31, 107 + len(self.photos) % 20, 69))
        d = ImageDraw.Draw(img)
        for i, (code, _) in enumerate(cards):
            x1, y1, x2, y2 = self.box(i)
            d.rounded_rectangle((x1, y1, x2 + 40, y2 + 120), 12, fill=(250, 250, 245),
                                outline=(40, 40, 40), width=2)
            red = code[-1] in "DH"
            d.text((x1 + 10, y1 + 10), code, fill=(190, 30, 40) if red else (20, 20, 20),
                   font_size=34)
        buf = io.BytesIO()
        img.save(buf, "PNG")
        data = buf.getvalue()
        self.photos[data] = cards
        return data

    @staticmethod
    def box(i: int) -> tuple:
        x = 40 + 150 * (i % 5)
        y = 120 + 240 * (i // 5)
        return (x, y, x + 90, y + 70)

    def read(self, data: bytes):
        self.calls += 1
        if data not in self.photos:
            from vision.errors import PhotoError
            raise PhotoError("This file is not a photo the fake reader knows.")
        cards = [FakeCard(code, conf, self.box(i)) for i, (code, conf) in enumerate(self.photos[data])]
        return FakeReading(cards=cards, warnings=["fake warning"] if len(cards) > 9 else [])


@pytest.fixture
def fake_reader():
    return FakeReader()


@pytest.fixture(scope="session")
def real_reader():
    """The shared real card reader (``vision.reader.get_reader()``); skipped
    only when the vision package or its model cannot be loaded."""
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
def real_app(tmp_path, real_reader):
    # reader=None: the app uses vision.reader.get_reader(), the same shared reader
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")})
    app.test_client_class = CsrfClient
    yield app


@pytest.fixture
def app(tmp_path, fake_reader):
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance"),
                      "MAX_CONTENT_LENGTH": 2 * 1024 * 1024}, reader=fake_reader)
    app.test_client_class = CsrfClient  # sends the session's CSRF token, like the page's forms
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


def make_table(client, players=("Ann", "Bob", "Cat"), dealer=0, cards=3, **extra):
    form = {f"seat_{i}": p for i, p in enumerate(players)}
    form.update({"dealer": str(dealer), "cards_dealt": str(cards), "going_out": "standard"})
    form.update({k: str(v) for k, v in extra.items()})
    r = client.post("/tables", data=form)
    assert r.status_code == 303, r.data.decode()[:2000]
    return int(r.headers["Location"].rstrip("/").split("/")[-1])


def start_game(client, table_id):
    r = client.post(f"/tables/{table_id}/games")
    assert r.status_code == 303
    return int(r.headers["Location"].rstrip("/").split("/")[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """The app on waitress on 127.0.0.1:<free port>, in a background thread."""

    def __init__(self, app):
        from waitress.server import create_server
        self.port = free_port()
        self.server = create_server(app, host="127.0.0.1", port=self.port, threads=4)
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.close()
        self.thread.join(timeout=5)


@pytest.fixture
def live_server(app):
    with LiveServer(app) as srv:
        yield srv


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    pw = pytest.importorskip("playwright.sync_api")
    import shutil
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    with pw.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
