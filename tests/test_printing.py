"""Printable optional cards: faces, PDF page sizes and card size."""
from __future__ import annotations

import re

import numpy as np
import pytest

from vision.classes import OPTIONAL_CODES
from vision import optional_faces, printing

PT_PER_MM = 72 / 25.4


def _media_boxes(pdf: bytes):
    return [tuple(float(v) for v in m.split()) for m in re.findall(rb"/MediaBox \[\s*([^\]]*)\]", pdf)]


@pytest.mark.parametrize("paper,size_mm", [("a4", (210.0, 297.0)), ("letter", (215.9, 279.4))])
def test_pdf_page_size_and_card_width(paper, size_mm):
    pdf = printing.sheet_pdf(paper, dpi=100)
    assert pdf.startswith(b"%PDF")
    boxes = _media_boxes(pdf)
    assert len(boxes) == 2  # 12 cards, 9 per page
    for x0, y0, x1, y1 in boxes:
        assert abs((x1 - x0) / PT_PER_MM - size_mm[0]) < 0.5
        assert abs((y1 - y0) / PT_PER_MM - size_mm[1]) < 0.5
    # the embedded page image spans the page: mm per pixel from the PDF itself
    width_px = int(re.search(rb"/Width (\d+)", pdf).group(1))
    mm_per_px = (boxes[0][2] - boxes[0][0]) / PT_PER_MM / width_px
    # measure the first card on the rendered page: its printed width is 63 mm (within 1 mm)
    page = np.asarray(printing.sheet_pages(paper, dpi=100)[0].convert("RGB")).astype(int)
    lay = printing.page_layout(paper)
    sx, sy = lay["slots_mm"][0]
    # cut marks above the grid: consecutive marks are one card width apart
    mark_row = page[int((sy - 1.6) / mm_per_px)]
    dark = np.nonzero(mark_row.max(1) < 128)[0]
    groups = np.split(dark, np.nonzero(np.diff(dark) > 2)[0] + 1)
    marks = np.array([g.mean() for g in groups]) * mm_per_px
    assert len(marks) == printing.COLS + 1
    widths = np.diff(marks)
    assert np.all(np.abs(widths - 63.0) <= 1.0), widths
    # the faces fill the space between the marks
    row = page[int((sy + 44) / mm_per_px)]
    face = np.nonzero(np.abs(row - 255).max(1) > 10)[0] * mm_per_px
    assert abs(face.min() - marks[0]) <= 1.0 and abs(face.max() - marks[-1]) <= 1.0
    assert abs((face.max() - face.min()) / printing.COLS - 63.0) <= 1.0
    assert lay["card_mm"] == (63.0, 88.0)


def test_twelve_cards_with_three_wilds():
    assert len(printing.PRINT_CARDS) == 12
    assert printing.PRINT_CARDS.count("WILD") == 3
    assert set(printing.PRINT_CARDS) == set(OPTIONAL_CODES)


def test_faces_are_distinct_and_card_shaped():
    seen = []
    for code in OPTIONAL_CODES:
        bgra = optional_faces.render_face(code, 176)
        h, w, c = bgra.shape
        assert c == 4 and h == 176 and abs(w / h - 63 / 88) < 0.01
        assert bgra[0, 0, 3] == 0 and bgra[h // 2, w // 2, 3] == 255  # rounded, transparent corner
        seen.append(bgra[:, :, :3].astype(np.int16))
    for i in range(len(seen)):
        for j in range(i + 1, len(seen)):
            assert np.abs(seen[i] - seen[j]).mean() > 5
    texts = [optional_faces.index_text(c) for c in OPTIONAL_CODES]
    assert len(set(texts)) == len(texts)


def test_cards_command_writes_faces_and_pdfs(tmp_path, monkeypatch):
    monkeypatch.setattr(printing, "DPI", 60.0)
    assert printing.main(["--out", str(tmp_path), "--dpi", "60"]) == 0
    for code in OPTIONAL_CODES:
        assert (tmp_path / "faces" / f"{code}.png").exists()
    for paper in ("a4", "letter"):
        assert (tmp_path / f"optional-cards-{paper}.pdf").read_bytes().startswith(b"%PDF")
