"""Every photo in the malformed corpus gets a specific 4xx or is read correctly,
through the loader, ``POST /api/detect`` and the per-player photo route; the
process's memory stays bounded while refusing bombs and huge canvases."""
from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vision.errors import PhotoError
from vision.photo import MAX_FILE_BYTES, load_photo

from .conftest import CASES, MALFORMED, corpus, make_app, make_malformed, new_game, new_table

NAMES = sorted(CASES)


def test_corpus_is_committed_small_and_reproducible(tmp_path):
    on_disk = {p.name for p in MALFORMED.iterdir()}
    assert on_disk == set(CASES)
    for name in CASES:
        assert (MALFORMED / name).stat().st_size < 200_000, name
    # the generator makes the same bytes (spot-check the cheap ones)
    built = make_malformed.build()
    for name in ("truncated.jpg", "bomb.png", "exif_orientation_6.jpg", "huge_20000x20000.png"):
        assert built[name] == corpus(name), name


@pytest.mark.parametrize("name", NAMES)
def test_load_photo(name):
    status, words = CASES[name]
    data = corpus(name)
    if status == 200:
        photo = load_photo(data)
        assert photo.image.dtype == np.uint8 and photo.image.ndim == 3 and photo.image.shape[2] == 3
        assert max(photo.image.shape[:2]) <= 2048
        assert photo.width >= 32 and photo.height >= 32
        return
    with pytest.raises(PhotoError) as info:
        load_photo(data)
    assert info.value.status == status, str(info.value)
    assert words.lower() in str(info.value).lower()


@pytest.mark.parametrize("name", NAMES)
def test_api_detect(client, name):
    status, words = CASES[name]
    r = client.post("/api/detect", data={"photo": (io.BytesIO(corpus(name)), name)},
                    content_type="multipart/form-data")
    assert r.status_code == status, r.get_data(as_text=True)
    body = r.get_json()
    if status == 200:
        assert body["cards"] == [] and body["width"] >= 32
    else:
        assert words.lower() in body["error"].lower()
        assert "Traceback" not in r.get_data(as_text=True)


@pytest.mark.parametrize("name", NAMES)
def test_player_photo_route(client, name):
    status, words = CASES[name]
    table = new_table(client)
    game = new_game(client, table)
    url = f"/tables/{table}/games/{game}/hands/1/photo"
    r = client.post(url, data={"photo": (io.BytesIO(corpus(name)), name)},
                    headers={"X-Requested-With": "fetch", "Accept": "application/json"},
                    content_type="multipart/form-data")
    assert r.status_code == status, r.get_data(as_text=True)
    body = r.get_json()
    if status == 200:
        hand = next(h for h in body["hands"] if h["seat"] == 1)
        assert hand["reading"]["width"] >= 32 and hand["cards"] == []
    else:
        assert words.lower() in body["error"].lower()
    # and the plain form (no script): an HTML page with the same status and message
    r = client.post(url, data={"photo": (io.BytesIO(corpus(name)), name)},
                    content_type="multipart/form-data")
    if status == 200:
        assert r.status_code == 303
    else:
        assert r.status_code == status
        assert "text/html" in r.content_type
        page = r.get_data(as_text=True)
        assert words.lower() in page.lower() and "Traceback" not in page


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_turns_the_photo_upright(orientation):
    photo = load_photo(corpus(f"exif_orientation_{orientation}.jpg"))
    _assert_upright(photo)


@pytest.mark.parametrize("name", ["exif_orientation_bad_0.jpg", "exif_orientation_bad_9.jpg",
                                  "exif_orientation_bad_65535.jpg", "exif_garbage_block.jpg"])
def test_odd_exif_is_ignored(name):
    _assert_upright(load_photo(corpus(name)))  # stored upright; the odd tag changes nothing


def _assert_upright(photo):
    w, h = make_malformed.UPRIGHT_SIZE
    assert (photo.width, photo.height) == (w, h)
    img = photo.image[:, :, ::-1].astype(int)  # back to RGB
    top_left = img[: h // 2 - 4, : w // 2 - 4].reshape(-1, 3).mean(0)
    bottom_right = img[h // 2 + 4:, w // 2 + 4:].reshape(-1, 3).mean(0)
    top_right = img[: h // 2 - 4, w // 2 + 4:].reshape(-1, 3).mean(0)
    assert np.abs(top_left - make_malformed.RED).max() < 40, top_left
    assert np.abs(bottom_right - make_malformed.BLUE).max() < 40, bottom_right
    assert np.abs(top_right - make_malformed.GREY).max() < 40, top_right


def test_cmyk_and_16_bit_colours_survive():
    cmyk = load_photo(corpus("cmyk.jpg")).image
    assert abs(int(cmyk[10, 10, 1]) - 107) < 30  # the green felt stays green (BGR)
    gray = load_photo(corpus("gray16.png")).image
    assert gray[5, 5, 0] > 100 and gray[5, 100, 0] < 20  # 40000/65535 of white, then black
    rgba = load_photo(corpus("rgba.png")).image
    assert tuple(rgba[5, 5]) == (255, 255, 255)  # transparent -> white, not black
    assert tuple(rgba[5, 100]) == (255, 0, 0)    # opaque blue (BGR)


def test_over_the_size_limit_is_413(tmp_path):
    big = make_malformed.oversize_bytes(MAX_FILE_BYTES)
    with pytest.raises(PhotoError) as info:
        load_photo(big)
    assert info.value.status == 413 and "limit" in str(info.value)
    # the app's own upload limit answers before anything is decoded
    app = make_app(tmp_path, MAX_CONTENT_LENGTH=1024 * 1024)
    client = app.test_client()
    for url in ("/api/detect", None):
        if url is None:
            table = new_table(client)
            url = f"/tables/{table}/games/{new_game(client, table)}/hands/0/photo"
        r = client.post(url, data={"photo": (io.BytesIO(make_malformed.oversize_bytes(1024 * 1024)),
                                             "big.jpg")},
                        headers={"X-Requested-With": "fetch"}, content_type="multipart/form-data")
        assert r.status_code == 413
        assert "too large" in r.get_json()["error"]


def test_memory_stays_bounded():
    """In a fresh process (ru_maxrss is a high-water mark): refusing the bomb and the
    20000x20000 image costs almost nothing, and a 48 MP JPEG is decoded at a capped
    size instead of the ~150 MB a full decode would take."""
    script = textwrap.dedent(f"""
        import json, resource, sys
        from pathlib import Path
        from vision.photo import load_photo
        from vision.errors import PhotoError
        d = Path({str(MALFORMED)!r})
        def rss():
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MB on Linux
        load_photo((d / "cmyk.jpg").read_bytes())  # warm up the decoders
        out = {{}}
        for name in ["bomb.png", "bomb.jpg", "bomb.gif", "bomb_bmp.bmp",
                     "huge_20000x20000.png", "big_png_50mp.png", "big_jpeg_48mp.jpg"]:
            before = rss()
            try:
                load_photo((d / name).read_bytes())
            except PhotoError:
                pass
            out[name] = rss() - before
        print(json.dumps(out))
    """)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    grew = json.loads(res.stdout.strip().splitlines()[-1])
    for name in ("bomb.png", "bomb.jpg", "bomb.gif", "bomb_bmp.bmp", "huge_20000x20000.png",
                 "big_png_50mp.png"):
        assert grew[name] < 10, grew  # MB: refused from the header alone
    assert grew["big_jpeg_48mp.jpg"] < 80, grew  # a full 48 MP decode would be 150+ MB
