"""Fixtures for the robustness and security tests.

``LoadingReader`` is the card reader minus the model: it runs the real photo
loader (``vision.photo.load_photo``: header checks, size caps, decoding,
EXIF) and reports no cards, so every malformed photo meets the same code
path as in production without needing ``models/*.onnx``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from companion.web import create_app
from companion.web.testing import CsrfClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MALFORMED = FIXTURES / "malformed"
sys.path.insert(0, str(FIXTURES))
import make_malformed  # noqa: E402

CASES = make_malformed.CASES


@dataclass
class Reading:
    cards: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    width: int = 0
    height: int = 0


class LoadingReader:
    def __init__(self):
        self.calls = 0

    def read(self, data: bytes):
        from vision.photo import load_photo
        self.calls += 1
        photo = load_photo(data)
        return Reading(width=photo.width, height=photo.height)


def corpus(name: str) -> bytes:
    return (MALFORMED / name).read_bytes()


@pytest.fixture
def loading_reader():
    return LoadingReader()


def make_app(tmp_path, reader=None, **config):
    cfg = {"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")}
    cfg.update(config)
    app = create_app(cfg, reader=reader or LoadingReader())
    app.test_client_class = CsrfClient
    return app


@pytest.fixture
def app(tmp_path, loading_reader):
    return make_app(tmp_path, loading_reader)


@pytest.fixture
def client(app):
    return app.test_client()


def new_table(client, players=("Ann", "Bob", "Cat"), **extra) -> int:
    form = {f"seat_{i}": p for i, p in enumerate(players)}
    form.update({"dealer": "0", "cards_dealt": "3", "going_out": "standard"})
    form.update({k: str(v) for k, v in extra.items()})
    r = client.post("/tables", data=form)
    assert r.status_code == 303, r.data[:500]
    return int(r.headers["Location"].rstrip("/").split("/")[-1])


def new_game(client, table_id: int, **form) -> int:
    r = client.post(f"/tables/{table_id}/games", data=form)
    assert r.status_code == 303
    return int(r.headers["Location"].rstrip("/").split("/")[-1])
