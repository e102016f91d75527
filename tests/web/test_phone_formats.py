"""HEIC photos (the iPhone camera's default) and AVIF through the loader, the reader and the app.

The fixtures are made by ``tests/fixtures/make_heic.py`` (committed, so no
test pays for x265).  A HEIC reads like the JPEG it was made from; it comes
out upright for every EXIF orientation; a kept HEIC is stored as a JPEG the
size of the photo, so every browser shows it under the reader's boxes.
"""
from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, features

from vision import photo as photo_mod
from vision.errors import PhotoError, UnsupportedPhotoFormat
from vision.photo import browser_copy, heif_supported, load_photo

from .conftest import make_table, start_game

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HEIC = FIXTURES / "heic"
sys.path.insert(0, str(FIXTURES))
from make_heic import SOURCE  # noqa: E402
from make_malformed import BLUE, RED, UPRIGHT_SIZE, upright_image  # noqa: E402

EXPECTED = json.loads((FIXTURES / "photos" / "expected.json").read_text())[SOURCE.name]["cards"]


def test_heic_is_decodable_here():
    assert heif_supported(), "pillow-heif is a declared dependency: pip install -e ."


@pytest.mark.parametrize("orientation", range(1, 9))
def test_every_exif_orientation_comes_out_upright(orientation):
    photo = load_photo((HEIC / f"exif_orientation_{orientation}.heic").read_bytes())
    assert photo.format == "HEIF" and (photo.width, photo.height) == UPRIGHT_SIZE
    rgb = photo.image[:, :, ::-1].astype(int)
    assert np.abs(rgb - np.asarray(upright_image()).astype(int)).mean() < 3
    assert np.abs(rgb[5, 5] - RED).max() < 20 and np.abs(rgb[-5, -5] - BLUE).max() < 20


def test_a_heic_photo_reads_its_exact_cards(real_reader):
    reading = real_reader.read((HEIC / "cards.heic").read_bytes())
    assert sorted(reading.codes) == sorted(EXPECTED), reading.to_json()


def test_a_heic_taken_on_its_side_reads_as_the_upright_photo(real_reader):
    upright = {c.code: c.box for c in real_reader.read((HEIC / "cards.heic").read_bytes()).cards}
    turned = real_reader.read((HEIC / "cards_turned.heic").read_bytes())
    assert sorted(turned.codes) == sorted(EXPECTED)
    for card in turned.cards:  # boxes in the upright photo's pixels, as the page draws them
        assert np.abs(np.subtract(card.box, upright[card.code])).max() < 8, (card, upright[card.code])


def test_a_truncated_heic_says_so():
    data = (HEIC / "cards.heic").read_bytes()
    with pytest.raises(PhotoError, match="HEIC photo is damaged or truncated") as info:
        load_photo(data[: len(data) // 3])
    assert not isinstance(info.value, UnsupportedPhotoFormat)


def test_without_pillow_heif_a_heic_gets_the_fix(monkeypatch):
    monkeypatch.setattr(photo_mod, "heif_supported", lambda: False)
    with pytest.raises(UnsupportedPhotoFormat, match="pillow-heif") as info:
        load_photo((HEIC / "cards.heic").read_bytes())
    assert info.value.status == 415 and "Most Compatible" in str(info.value)


def test_the_browser_copy_is_a_full_size_upright_jpeg():
    copy = browser_copy((HEIC / "exif_orientation_6.heic").read_bytes())
    with Image.open(io.BytesIO(copy)) as im:
        assert im.format == "JPEG" and im.size == UPRIGHT_SIZE
        assert np.abs(np.asarray(im.convert("RGB"))[5, 5].astype(int) - RED).max() < 25
    assert browser_copy((FIXTURES / "photos" / SOURCE.name).read_bytes()) is None  # browsers show JPEG


def test_api_detect_reads_a_heic(real_app):
    data = (HEIC / "cards.heic").read_bytes()
    r = real_app.test_client().post("/api/detect", data={"photo": (io.BytesIO(data), "IMG_0001.HEIC")})
    assert r.status_code == 200, r.get_json()
    assert sorted(c["card"] for c in r.get_json()["cards"]) == sorted(EXPECTED)


def test_a_kept_heic_is_stored_and_served_as_jpeg(real_app, monkeypatch):
    """One HEIC decode per upload: the reader reads the JPEG that is kept (~1 s saved per 12 MP photo)."""
    formats = []

    def counting(data, *args, **kwargs):
        photo = load_photo(data, *args, **kwargs)
        formats.append(photo.format)
        return photo

    import vision.reader
    monkeypatch.setattr(photo_mod, "load_photo", counting)
    monkeypatch.setattr(vision.reader, "load_photo", counting)
    client = real_app.test_client()
    tid = make_table(client, keep_photos="1")
    gid = start_game(client, tid)
    data = (HEIC / "cards_turned.heic").read_bytes()
    st = client.post(f"/tables/{tid}/games/{gid}/hands/0/photo",
                     data={"photo": (io.BytesIO(data), "IMG_0002.HEIC")},
                     headers={"X-Requested-With": "fetch"}).get_json()
    assert sorted(st["hands"][0]["cards"]) == sorted(EXPECTED)
    assert formats == [photo_mod.HEIF_FORMAT, "JPEG"], formats
    files = os.listdir(real_app.config["PHOTO_DIR"])
    assert len(files) == 1 and files[0].endswith(".jpg")
    r = client.get(st["hands"][0]["photo_url"])
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    with Image.open(io.BytesIO(r.data)) as im:
        assert im.format == "JPEG" and im.size == (st["reading"]["width"], st["reading"]["height"])


@pytest.mark.skipif(not features.check("avif"), reason="this Pillow was built without AVIF")
def test_a_kept_avif_is_served_as_avif(real_app):
    """AVIF (Pillow decodes it; browsers show it) is kept as it came, with its own type."""
    buf = io.BytesIO()
    Image.open(FIXTURES / "photos" / SOURCE.name).convert("RGB").save(buf, "AVIF", quality=85)
    data = buf.getvalue()
    client = real_app.test_client()
    tid = make_table(client, keep_photos="1")
    gid = start_game(client, tid)
    st = client.post(f"/tables/{tid}/games/{gid}/hands/0/photo",
                     data={"photo": (io.BytesIO(data), "PXL_0003.avif")},
                     headers={"X-Requested-With": "fetch"}).get_json()
    assert sorted(st["hands"][0]["cards"]) == sorted(EXPECTED)
    r = client.get(st["hands"][0]["photo_url"])
    assert r.status_code == 200 and r.mimetype == "image/avif" and r.data == data


def test_detect_command_reads_and_annotates_a_heic(tmp_path):
    import subprocess
    photo = HEIC / "cards_turned.heic"
    res = subprocess.run([sys.executable, "-m", "vision", "detect", "--json", "--annotate", str(tmp_path),
                          str(photo)], cwd=FIXTURES.parents[1], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout)
    assert sorted(c["card"] for c in out[0]["cards"]) == sorted(EXPECTED)
    (annotated,) = tmp_path.glob("*")
    with Image.open(annotated) as im:  # drawn on the upright photo, in a format anything opens
        assert im.format == "JPEG" and im.size == (640, 640)


def test_heic_has_its_own_whole_decode_cap(monkeypatch):
    from vision.errors import PhotoTooLarge
    assert 8064 * 6048 <= photo_mod.MAX_HEIF_PIXELS  # an iPhone's 48 MP "HEIF Max" photo reads
    monkeypatch.setattr(photo_mod, "MAX_HEIF_PIXELS", 400_000)  # the 640 x 640 fixture is 409,600
    with pytest.raises(PhotoTooLarge, match="HEIF image is 640x640 pixels") as info:
        load_photo((HEIC / "cards.heic").read_bytes())
    assert info.value.status == 413 and "the limit is 0.4 MP" in str(info.value)
