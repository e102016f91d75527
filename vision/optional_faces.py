"""Faces of the game's 12 optional cards, drawn by the project's own code.

No artwork exists for COUNT 1/2/3/4/7/12, NO MELD 0/2, CAN'T DECLARE 0 and
WILDCARD, so the project designs them.  Each face is a regular-size
63 x 88 mm card with rounded corners:

* a distinct colour and border style per kind (COUNT: double line, NO MELD:
  dashes, CAN'T DECLARE: hazard stripes, WILDCARD: a ring of stars), with a
  colour of its own per code;
* a big name and value in a coloured middle panel, and the count the card
  adds when it is left unmelded;
* corner indices like a regular card's, top-left and bottom-right (rotated
  180 degrees): a short bold glyph string with a small symbol under it --
  ``C1 C2 C3 C4 C7 C12`` over a ring, ``N0 N2`` over a crossed circle,
  ``D0`` over a crossed square, ``W`` over a star.  Letters plus a symbol
  that no suit uses keep them apart from the regular ``A``/``10`` indices
  and from each other at 20 px.

Everything is drawn with Pillow from the DejaVu fonts shipped in
``vision/assets/fonts`` so the result does not depend on the machine.
``render_face`` returns BGRA pixels (OpenCV order); ``render_face_with_indices``
also returns each corner index's outline (convex hull of its ink) in face
pixel coordinates, which the synthetic scene generator turns into labels.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.classes import OPTIONAL_CODES

FONT_DIR = Path(__file__).resolve().parent / "assets" / "fonts"

CARD_W_MM = 63.0
CARD_H_MM = 88.0
CORNER_RADIUS_MM = 3.2

# code -> (index glyphs, symbol, colour RGB, kind, big name lines, big value, unmelded count)
_SPEC: dict[str, tuple] = {
    "COUNT1": ("C1", "ring", (21, 101, 192), "count", ("COUNT",), "1", 1),
    "COUNT2": ("C2", "ring", (0, 121, 133), "count", ("COUNT",), "2", 2),
    "COUNT3": ("C3", "ring", (46, 125, 50), "count", ("COUNT",), "3", 3),
    "COUNT4": ("C4", "ring", (106, 27, 154), "count", ("COUNT",), "4", 4),
    "COUNT7": ("C7", "ring", (173, 20, 87), "count", ("COUNT",), "7", 7),
    "COUNT12": ("C12", "ring", (40, 53, 147), "count", ("COUNT",), "12", 12),
    "NOMELD0": ("N0", "nocircle", (230, 81, 0), "nomeld", ("NO", "MELD"), "0", 0),
    "NOMELD2": ("N2", "nocircle", (121, 85, 72), "nomeld", ("NO", "MELD"), "2", 2),
    "NODECLARE0": ("D0", "xsquare", (198, 40, 40), "nodeclare", ("CAN'T", "DECLARE"), "0", 0),
    "WILD": ("W", "star", (150, 105, 0), "wild", ("WILD", "CARD"), "\u2605", 20),
}
assert set(_SPEC) == set(OPTIONAL_CODES)

PAPER = (252, 250, 243)


def index_text(code: str) -> str:
    """The glyph string printed in the corner index of an optional card."""
    return _SPEC[code][0]


def card_color(code: str) -> tuple[int, int, int]:
    """The card's main colour (RGB)."""
    return _SPEC[code][2]


@functools.lru_cache(maxsize=64)
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), max(1, int(size)))


def _star_points(cx: float, cy: float, r: float, inner: float = 0.45, n: int = 5, rot: float = -90.0):
    pts = []
    for k in range(2 * n):
        rr = r if k % 2 == 0 else r * inner
        a = np.deg2rad(rot + k * 180.0 / n)
        pts.append((cx + rr * np.cos(a), cy + rr * np.sin(a)))
    return pts


def draw_symbol(draw: ImageDraw.ImageDraw, kind: str, cx: float, cy: float, size: float, fill) -> None:
    """Draw an index symbol of ``size`` px centred on (cx, cy)."""
    r = size / 2.0
    w = max(1, int(round(size * 0.2)))
    box = (cx - r, cy - r, cx + r, cy + r)
    if kind == "ring":
        draw.ellipse(box, outline=fill, width=w)
        rd = r * 0.28
        draw.ellipse((cx - rd, cy - rd, cx + rd, cy + rd), fill=fill)
    elif kind == "nocircle":
        draw.ellipse(box, outline=fill, width=w)
        d = r * 0.72
        draw.line((cx - d, cy + d, cx + d, cy - d), fill=fill, width=w)
    elif kind == "xsquare":
        rr = r * 0.9
        w2 = max(1, int(round(size * 0.14)))
        draw.rectangle((cx - rr, cy - rr, cx + rr, cy + rr), outline=fill, width=w2)
        d = rr * 0.55
        draw.line((cx - d, cy - d, cx + d, cy + d), fill=fill, width=w2)
        draw.line((cx - d, cy + d, cx + d, cy - d), fill=fill, width=w2)
    elif kind == "star":
        draw.polygon(_star_points(cx, cy, r * 1.08), fill=fill)
    else:
        raise ValueError(kind)


def _rounded_mask(w: int, h: int, radius: float) -> Image.Image:
    m = Image.new("L", (w, h), 0)
    ImageDraw.Draw(m).rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=255)
    return m


def _draw_border(draw: ImageDraw.ImageDraw, kind: str, w: int, h: int, mm: float, color) -> None:
    inset = 1.6 * mm
    box = (inset, inset, w - 1 - inset, h - 1 - inset)
    lw = max(1, int(round(0.7 * mm)))
    rad = 2.2 * mm
    if kind == "count":
        draw.rounded_rectangle(box, radius=rad, outline=color, width=lw)
        i2 = inset + 1.3 * mm
        draw.rounded_rectangle((i2, i2, w - 1 - i2, h - 1 - i2), radius=rad * 0.7, outline=color,
                               width=max(1, lw // 2))
    elif kind == "nomeld":
        # dashed border: short segments along each side
        dash, gap = 3.0 * mm, 2.0 * mm
        x0, y0, x1, y1 = box
        for a, b, fixed, horiz in ((x0 + rad, x1 - rad, y0, True), (x0 + rad, x1 - rad, y1, True),
                                   (y0 + rad, y1 - rad, x0, False), (y0 + rad, y1 - rad, x1, False)):
            t = a
            while t < b:
                e = min(b, t + dash)
                if horiz:
                    draw.line((t, fixed, e, fixed), fill=color, width=lw + 1)
                else:
                    draw.line((fixed, t, fixed, e), fill=color, width=lw + 1)
                t = e + gap
        for cx, cy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            draw.ellipse((cx - lw, cy - lw, cx + lw, cy + lw), fill=color)
    elif kind == "nodeclare":
        # hazard stripes along top and bottom edges, plain line on the sides
        draw.rounded_rectangle(box, radius=rad, outline=color, width=lw)
        band = 2.2 * mm
        step = 3.0 * mm
        for y_top in (inset, h - 1 - inset - band):
            x = inset + 16 * mm
            while x < w - inset - 16 * mm:
                draw.polygon([(x, y_top + band), (x + step * 0.5, y_top + band), (x + step, y_top),
                              (x + step * 0.5, y_top)], fill=color)
                x += step
    elif kind == "wild":
        draw.rounded_rectangle(box, radius=rad, outline=color, width=lw)
        n = 7
        for k in range(n):
            x = inset + 16 * mm + k * (w - 2 * inset - 32 * mm) / (n - 1)
            for y in (inset + 1.9 * mm, h - 1 - inset - 1.9 * mm):
                draw.polygon(_star_points(x, y, 1.2 * mm), fill=color)
        for k in range(4):
            y = inset + 28 * mm + k * (h - 2 * inset - 56 * mm) / 3
            for x in (inset + 1.9 * mm, w - 1 - inset - 1.9 * mm):
                draw.polygon(_star_points(x, y, 1.2 * mm), fill=color)


def _text_center(draw, xy, text, fnt, fill):
    l, t, r, b = draw.textbbox((0, 0), text, font=fnt)
    draw.text((xy[0] - (l + r) / 2.0, xy[1] - (t + b) / 2.0), text, font=fnt, fill=fill)


def _draw_index(layer: Image.Image, code: str, mm: float, fill) -> None:
    """Draw the top-left corner index of ``code`` onto the RGBA ``layer``."""
    glyphs, symbol = _SPEC[code][0], _SPEC[code][1]
    fnt = font("DejaVuSansCondensed-Bold.ttf", 10.5 * mm)
    draw = ImageDraw.Draw(layer)
    l, t, r, b = draw.textbbox((0, 0), glyphs, font=fnt)
    x_left, y_top = 2.6 * mm, 3.0 * mm
    tw, th = r - l, b - t
    max_w = 11.0 * mm
    if tw > max_w:  # "C12": squeeze horizontally so the index column stays narrow
        tmp = Image.new("L", (int(tw) + 4, int(th) + 4), 0)
        ImageDraw.Draw(tmp).text((2 - l, 2 - t), glyphs, font=fnt, fill=255)
        tmp = tmp.resize((int(max_w) + 4, tmp.height), Image.LANCZOS)
        solid = Image.new("RGBA", tmp.size, fill)
        layer.paste(solid, (int(x_left) - 2, int(y_top) - 2), tmp)
        tw = max_w
    else:
        draw.text((x_left - l, y_top - t), glyphs, font=fnt, fill=fill)
    cx = x_left + tw / 2.0
    sym = 6.4 * mm
    cy = y_top + th + 1.4 * mm + sym / 2.0
    draw_symbol(draw, symbol, cx, cy, sym, fill)


def _render(code: str, height_px: int, ss: int) -> tuple[Image.Image, Image.Image]:
    """Return (RGBA face, L index mask) at ``ss`` times ``height_px``."""
    glyphs, symbol, color, kind, name_lines, value, adds = _SPEC[code]
    H = int(round(height_px * ss))
    W = int(round(H * CARD_W_MM / CARD_H_MM))
    mm = H / CARD_H_MM
    face = Image.new("RGBA", (W, H), PAPER + (255,))
    d = ImageDraw.Draw(face)
    _draw_border(d, kind, W, H, mm, color)

    # middle panel: name and big value
    px0, py0, px1, py1 = 6.0 * mm, 21.0 * mm, W - 6.0 * mm, H - 21.5 * mm
    d.rounded_rectangle((px0, py0, px1, py1), radius=3.0 * mm, fill=color)
    inner = 1.1 * mm
    d.rounded_rectangle((px0 + inner, py0 + inner, px1 - inner, py1 - inner), radius=2.4 * mm,
                        outline=PAPER, width=max(1, int(round(0.35 * mm))))
    pw = px1 - px0
    cx = (px0 + px1) / 2.0
    y = py0 + 6.0 * mm
    for line in name_lines:
        fnt = font("DejaVuSansCondensed-Bold.ttf", 6.2 * mm)
        tw = d.textlength(line, font=fnt)
        if tw > pw * 0.84:
            fnt = font("DejaVuSansCondensed-Bold.ttf", 6.2 * mm * pw * 0.84 / tw)
        _text_center(d, (cx, y), line, fnt, PAPER)
        y += 6.6 * mm
    vy = (y - 3.3 * mm + py1) / 2.0
    if value == "\u2605":
        d.polygon(_star_points(cx, vy + 0.8 * mm, 10.5 * mm), fill=PAPER)
    else:
        size = (22.0 if len(value) == 1 else 18.0) * mm
        if len(name_lines) > 1:
            size *= 0.85
        _text_center(d, (cx, vy), value, font("DejaVuSans-Bold.ttf", size), PAPER)
    # what it does and adds, under the panel (left of the bottom-right index)
    lines = {
        "count": ["melds with COUNT cards", f"adds {adds} if unmelded"],
        "nomeld": ["never melds", f"adds {adds} if unmelded"],
        "nodeclare": ["you can't declare with it", f"adds {adds} if unmelded"],
        "wild": ["any card, 0 in a meld", f"adds {adds} if unmelded"],
    }[kind]
    small = font("DejaVuSansCondensed-Bold.ttf", 3.3 * mm)
    tx = 4.5 * mm + (W - 19.0 * mm - 4.5 * mm) / 2.0
    ly = py1 + 4.6 * mm
    for line in lines:
        _text_center(d, (tx, ly), line, small, color)
        ly += 4.4 * mm

    # corner indices: draw top-left on a layer, paste it rotated for bottom-right
    layer = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    _draw_index(layer, code, mm, color + (255,))
    layer_rot = layer.rotate(180)
    face.alpha_composite(layer)
    face.alpha_composite(layer_rot)
    mask_tl = layer.getchannel("A")
    mask_br = layer_rot.getchannel("A")
    mask = Image.merge("RGB", (mask_tl, mask_br, Image.new("L", (W, H), 0)))

    face.putalpha(_rounded_mask(W, H, CORNER_RADIUS_MM * mm))
    return face, mask


def _hull(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 96)
    if xs.size == 0:
        raise ValueError("empty index mask")
    pts = np.stack([xs, ys], 1).astype(np.int32)
    import cv2

    hull = cv2.convexHull(pts).reshape(-1, 2).astype(np.float32)
    # pixel centres -> pixel-area outline
    c = hull.mean(0)
    hull = hull + 0.5 + np.sign(hull - c) * 0.5
    return hull


@functools.lru_cache(maxsize=128)
def _cached(code: str, height_px: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    ss = 2 if height_px < 1200 else 1
    face, mask = _render(code, height_px, ss)
    if ss != 1:
        W = int(round(height_px * CARD_W_MM / CARD_H_MM))
        face = face.resize((W, height_px), Image.LANCZOS)
        mask = mask.resize((W, height_px), Image.BILINEAR)
    rgba = np.asarray(face)
    bgra = rgba[:, :, [2, 1, 0, 3]].copy()
    m = np.asarray(mask)
    polys = (_hull(m[:, :, 0]), _hull(m[:, :, 1]))
    bgra.setflags(write=False)
    return bgra, polys


def render_face(code: str, height_px: int = 880) -> np.ndarray:
    """BGRA pixels (H x W x 4, uint8) of the optional card ``code``; transparent outside the rounded corners."""
    if code not in _SPEC:
        raise KeyError(f"not an optional card: {code!r}")
    return _cached(code, int(height_px))[0].copy()


def render_face_with_indices(code: str, height_px: int = 880) -> tuple[np.ndarray, list[np.ndarray]]:
    """``render_face`` plus the two corner indices' outlines (float32 N x 2 polygons, x/y in face pixels)."""
    if code not in _SPEC:
        raise KeyError(f"not an optional card: {code!r}")
    bgra, polys = _cached(code, int(height_px))
    return bgra.copy(), [p.copy() for p in polys]
