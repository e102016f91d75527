"""Printable optional cards: ``python -m vision cards --out DIR``.

Writes ``DIR/faces/<CODE>.png`` (300 dpi, 63 x 88 mm each),
``DIR/optional-cards-a4.pdf`` and ``DIR/optional-cards-letter.pdf`` (the 12
physical optional cards -- three WILDCARDs -- on two pages, 3 x 3 cards per
page, cut marks in the margins, printed at 100%) and ``DIR/optional_cards.png``
(a small preview of all faces).  ``sheet_pdf(paper)`` returns the PDF bytes
for the web page.  Everything is drawn by ``vision.optional_faces``; Pillow
writes the PDF.
"""
from __future__ import annotations

import argparse
import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from vision.classes import OPTIONAL_CODES
from vision.optional_faces import CARD_H_MM, CARD_W_MM, font, render_face

DPI = 300.0
PAPERS_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
# the 12 physical optional cards
PRINT_CARDS = [c for c in OPTIONAL_CODES if c != "WILD"] + ["WILD"] * 3
COLS, ROWS = 3, 3


def _px(mm: float, dpi: float) -> int:
    return int(round(mm * dpi / 25.4))


def page_layout(paper: str) -> dict:
    """Geometry of one sheet in mm: page size, card size and each slot's top-left corner."""
    paper = paper.lower()
    if paper not in PAPERS_MM:
        raise ValueError(f"paper must be one of {sorted(PAPERS_MM)}")
    pw, ph = PAPERS_MM[paper]
    gw, gh = COLS * CARD_W_MM, ROWS * CARD_H_MM
    x0, y0 = (pw - gw) / 2.0, (ph - gh) / 2.0
    slots = [(x0 + c * CARD_W_MM, y0 + r * CARD_H_MM) for r in range(ROWS) for c in range(COLS)]
    return {"page_mm": (pw, ph), "card_mm": (CARD_W_MM, CARD_H_MM), "origin_mm": (x0, y0), "slots_mm": slots}


def sheet_pages(paper: str, dpi: float = DPI) -> list[Image.Image]:
    """The printable pages (RGB, ``dpi``), 9 cards per page, with cut marks."""
    lay = page_layout(paper)
    pw, ph = lay["page_mm"]
    W, H = _px(pw, dpi), _px(ph, dpi)
    card_h_px = _px(CARD_H_MM, dpi)
    card_w_px = _px(CARD_W_MM, dpi)
    faces = {}
    pages = []
    per_page = COLS * ROWS
    n_pages = (len(PRINT_CARDS) + per_page - 1) // per_page
    x0, y0 = lay["origin_mm"]
    for p in range(n_pages):
        page = Image.new("RGB", (W, H), (255, 255, 255))
        d = ImageDraw.Draw(page)
        cards = PRINT_CARDS[p * per_page:(p + 1) * per_page]
        for k, code in enumerate(cards):
            if code not in faces:
                bgra = render_face(code, card_h_px)
                rgba = bgra[:, :, [2, 1, 0, 3]]
                img = Image.fromarray(np.ascontiguousarray(rgba), "RGBA")
                if img.width != card_w_px:
                    img = img.resize((card_w_px, card_h_px), Image.LANCZOS)
                faces[code] = img
            sx, sy = lay["slots_mm"][k]
            page.paste(faces[code], (_px(sx, dpi), _px(sy, dpi)), faces[code])
        # cut marks: every card edge, extended into the margins (never over a card)
        mark = _px(4.5, dpi)
        gap = _px(1.0, dpi)
        lw = max(1, _px(0.2, dpi))
        gx0, gy0 = _px(x0, dpi), _px(y0, dpi)
        gx1, gy1 = _px(x0 + COLS * CARD_W_MM, dpi), _px(y0 + ROWS * CARD_H_MM, dpi)
        for c in range(COLS + 1):
            x = _px(x0 + c * CARD_W_MM, dpi)
            d.line((x, gy0 - gap - mark, x, gy0 - gap), fill=(0, 0, 0), width=lw)
            d.line((x, gy1 + gap, x, gy1 + gap + mark), fill=(0, 0, 0), width=lw)
        for r in range(ROWS + 1):
            y = _px(y0 + r * CARD_H_MM, dpi)
            d.line((gx0 - gap - mark, y, gx0 - gap, y), fill=(0, 0, 0), width=lw)
            d.line((gx1 + gap, y, gx1 + gap + mark, y), fill=(0, 0, 0), width=lw)
        # notes and a 50 mm scale bar in the margins, between the cut marks
        f = font("DejaVuSans.ttf", _px(2.6, dpi))
        top_y = _px(max(1.5, y0 / 2.0 - 1.5), dpi)
        notes = [f"Optional cards, sheet {p + 1}/{n_pages} ({paper.upper()})",
                 "Print at 100% (no scaling)", "Cut on the marks; 63 x 88 mm"]
        for c, text in enumerate(notes):
            d.text((_px(x0 + c * CARD_W_MM + 2.0, dpi), top_y), text, font=f, fill=(70, 70, 70))
        bar_y = _px(y0 + ROWS * CARD_H_MM + max(2.0, y0 / 2.0), dpi)
        bx = _px(x0 + 6.0, dpi)
        d.line((bx, bar_y, bx + _px(50.0, dpi), bar_y), fill=(0, 0, 0), width=max(1, _px(0.5, dpi)))
        d.text((_px(x0 + CARD_W_MM + 2.0, dpi), bar_y - _px(1.5, dpi)), "<- this bar is 50 mm", font=f,
               fill=(70, 70, 70))
        pages.append(page)
    return pages


def sheet_pdf(paper: str = "a4", dpi: float = DPI) -> bytes:
    """Print-ready PDF (bytes) of the 12 optional cards for ``paper`` ('a4' or 'letter')."""
    pages = sheet_pages(paper, dpi)
    pw_mm, _ = PAPERS_MM[paper.lower()]
    # resolution chosen so the page is exactly the paper's size in points
    res = pages[0].width / (pw_mm / 25.4)
    buf = io.BytesIO()
    pages[0].save(buf, "PDF", resolution=res, save_all=True, append_images=pages[1:], quality=95,
                  title="Declaration Rummy optional cards", author="Declaration Rummy Companion")
    return buf.getvalue()


def preview(height_px: int = 330, cols: int = 5) -> Image.Image:
    """All 10 optional faces in a grid (RGB), for docs."""
    ims = []
    for code in OPTIONAL_CODES:
        bgra = render_face(code, height_px)
        ims.append(Image.fromarray(np.ascontiguousarray(bgra[:, :, [2, 1, 0, 3]]), "RGBA"))
    w, h = ims[0].size
    pad = 12
    rows = (len(ims) + cols - 1) // cols
    sheet = Image.new("RGB", (cols * (w + pad) + pad, rows * (h + pad) + pad), (70, 90, 70))
    for k, im in enumerate(ims):
        r, c = divmod(k, cols)
        sheet.paste(im, (pad + c * (w + pad), pad + r * (h + pad)), im)
    return sheet


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision cards", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--dpi", type=float, default=DPI)
    a = ap.parse_args(argv)
    out = Path(a.out)
    (out / "faces").mkdir(parents=True, exist_ok=True)
    h = _px(CARD_H_MM, a.dpi)
    for code in OPTIONAL_CODES:
        bgra = render_face(code, h)
        Image.fromarray(np.ascontiguousarray(bgra[:, :, [2, 1, 0, 3]]), "RGBA").save(
            out / "faces" / f"{code}.png", dpi=(a.dpi, a.dpi))
    for paper in PAPERS_MM:
        (out / f"optional-cards-{paper}.pdf").write_bytes(sheet_pdf(paper, a.dpi))
    preview().save(out / "optional_cards.png")
    print(f"wrote {len(OPTIONAL_CODES)} faces, optional-cards-a4.pdf, optional-cards-letter.pdf and "
          f"optional_cards.png to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
