"""Procedurally drawn regular decks, for the variety real decks have.

Each *style* (a seeded random draw) fixes a deck's look: paper (white,
off-white, cream, or a dark face with light ink), suit colours (two- or
four-colour), the index font (DejaVu Sans/Serif/Mono, condensed or not, or
an OpenCV Hershey font), the index size (regular to jumbo), pips as font
glyphs or drawn shapes, an optional border line and worn edges.  Courts are
simple: a frame with a big letter.  Faces are drawn on demand and cached.

The corner index (rank glyph + the pip under it) is drawn on its own mask,
so its outline is exact; the bottom-right index is the top-left one rotated
by 180 degrees, as on a real card.
"""
from __future__ import annotations

import functools
from collections import OrderedDict

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.optional_faces import FONT_DIR
from vision.synth import faces as facemod

FACE_H = 256
FACE_W = int(round(FACE_H * 63 / 88))

PIL_FONTS = ("DejaVuSans-Bold.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSerif-Bold.ttf",
             "DejaVuSerifCondensed-Bold.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSans.ttf")
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
           cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN)
SUIT_GLYPH = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}
PIP_LAYOUT = {
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)],
}


@functools.lru_cache(maxsize=256)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), max(4, int(size)))


def _stamp(mask: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    """max-composite ``src`` into ``mask`` with its top-left at (x, y), clipped."""
    h, w = src.shape
    H, W = mask.shape
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    np.maximum(mask[y0:y1, x0:x1], src[y0 - y:y1 - y, x0 - x:x1 - x], out=mask[y0:y1, x0:x1])


def text_mask(text: str, style: dict, height: float) -> np.ndarray:
    """The rank text rendered so its ink is ``height`` px tall (cropped tight), uint8 mask."""
    if style["font_kind"] == "pil":
        fnt = _font(style["font"], height * 1.45)
        l, t, r, b = fnt.getbbox(text)
        im = Image.new("L", (r - l + 4, b - t + 4), 0)
        ImageDraw.Draw(im).text((2 - l, 2 - t), text, font=fnt, fill=255)
        m = np.asarray(im)
    else:
        face = style["font"]
        thick = style["hershey_thick"]
        scale = 1.0
        (tw, th), base = cv2.getTextSize(text, face, scale, thick)
        scale = height / max(1, th)
        thick_px = max(1, int(round(thick * scale * 0.9)))
        (tw, th), base = cv2.getTextSize(text, face, scale, thick_px)
        m = np.zeros((th + base + 2 * thick_px + 4, tw + 2 * thick_px + 4), np.uint8)
        cv2.putText(m, text, (thick_px + 2, th + thick_px + 2), face, scale, 255, thick_px, cv2.LINE_AA)
    ys, xs = np.nonzero(m > 40)
    if xs.size == 0:
        return np.zeros((int(height), int(height * 0.6)), np.uint8)
    m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    sx = style["squeeze"] if len(text) > 1 else 1.0
    h_now = m.shape[0]
    s = height / h_now
    nw, nh = max(1, int(round(m.shape[1] * s * sx))), max(1, int(round(h_now * s)))
    return cv2.resize(m, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)


def suit_mask(suit: str, size: float, style: dict, flip: bool = False) -> np.ndarray:
    """A suit pip ``size`` px tall, uint8 mask (tight); cached per style."""
    key = (suit, int(round(size * 4)), flip)
    cache = style.setdefault("_pips", {})
    if key not in cache:
        cache[key] = _suit_mask(suit, size, style, flip)
    return cache[key]


def _suit_mask(suit: str, size: float, style: dict, flip: bool = False) -> np.ndarray:
    size = max(3.0, size)
    if style["pip_kind"] == "glyph":
        fnt = _font(style["pip_font"], size * 1.5)
        ch = SUIT_GLYPH[suit]
        l, t, r, b = fnt.getbbox(ch)
        im = Image.new("L", (r - l + 4, b - t + 4), 0)
        ImageDraw.Draw(im).text((2 - l, 2 - t), ch, font=fnt, fill=255)
        m = np.asarray(im)
        ys, xs = np.nonzero(m > 40)
        m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        s = size / m.shape[0]
        m = cv2.resize(m, (max(1, int(round(m.shape[1] * s))), max(1, int(round(size)))),
                       interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    else:
        ss = 4  # draw big, scale down
        S = int(round(size * ss))
        W = int(round(S * 0.9))
        m = np.zeros((S + 2, W + 2), np.uint8)
        cx = (W + 2) / 2.0
        r = W * 0.26
        if suit == "D":
            pts = np.array([[cx, 1], [cx + W * 0.4, S / 2], [cx, S], [cx - W * 0.4, S / 2]])
            cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
        elif suit == "H":
            cv2.circle(m, (int(cx - r * 0.95), int(r + 1)), int(r * 1.05), 255, -1, cv2.LINE_AA)
            cv2.circle(m, (int(cx + r * 0.95), int(r + 1)), int(r * 1.05), 255, -1, cv2.LINE_AA)
            pts = np.array([[cx - 2 * r, r * 1.35], [cx + 2 * r, r * 1.35], [cx, S]])
            cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
        elif suit == "S":
            body = S * 0.8
            cv2.circle(m, (int(cx - r * 0.95), int(body - r)), int(r * 1.05), 255, -1, cv2.LINE_AA)
            cv2.circle(m, (int(cx + r * 0.95), int(body - r)), int(r * 1.05), 255, -1, cv2.LINE_AA)
            pts = np.array([[cx - 2 * r, body - r * 1.35], [cx + 2 * r, body - r * 1.35], [cx, 1]])
            cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
            stem = np.array([[cx, body - r], [cx + r * 0.8, S], [cx - r * 0.8, S]])
            cv2.fillPoly(m, [stem.astype(np.int32)], 255, cv2.LINE_AA)
        else:  # C
            rc = W * 0.22
            cv2.circle(m, (int(cx), int(rc + 1)), int(rc), 255, -1, cv2.LINE_AA)
            cv2.circle(m, (int(cx - rc * 1.15), int(S * 0.55)), int(rc), 255, -1, cv2.LINE_AA)
            cv2.circle(m, (int(cx + rc * 1.15), int(S * 0.55)), int(rc), 255, -1, cv2.LINE_AA)
            cv2.circle(m, (int(cx), int(S * 0.45)), int(rc * 0.6), 255, -1, cv2.LINE_AA)
            stem = np.array([[cx, S * 0.45], [cx + rc * 0.7, S], [cx - rc * 0.7, S]])
            cv2.fillPoly(m, [stem.astype(np.int32)], 255, cv2.LINE_AA)
        m = cv2.resize(m, ((W + 2) // ss, (S + 2) // ss), interpolation=cv2.INTER_AREA)
        ys, xs = np.nonzero(m > 40)
        m = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return m[::-1] if flip else m


def random_style(rng: np.random.Generator) -> dict:
    st: dict = {"seed": int(rng.integers(2**31))}
    r = rng.random()
    if r < 0.55:
        paper = (250, 250, 250) - rng.uniform(0, 12, 3)
        dark = False
    elif r < 0.82:  # off-white / cream / grey stock
        paper = np.array([rng.uniform(200, 235), rng.uniform(225, 248), rng.uniform(235, 252)])
        dark = False
    else:  # dark-faced deck, light ink
        paper = rng.uniform(10, 70, 3)
        dark = True
    st["paper"] = np.asarray(paper, np.float32)
    st["dark"] = dark
    four = rng.random() < 0.35
    if dark:
        black = (235, 235, 235) - rng.uniform(0, 40, 3)
        red = np.array([rng.uniform(60, 140), rng.uniform(80, 160), rng.uniform(220, 255)])
        green = np.array([rng.uniform(90, 160), rng.uniform(200, 255), rng.uniform(90, 160)])
        blue = np.array([rng.uniform(220, 255), rng.uniform(160, 220), rng.uniform(60, 140)])
        orange = np.array([40.0, 170.0, 250.0])
    else:
        black = rng.uniform(0, 50, 3)
        red = np.array([rng.uniform(0, 60), rng.uniform(0, 50), rng.uniform(150, 230)])
        green = np.array([rng.uniform(0, 60), rng.uniform(110, 160), rng.uniform(0, 60)])
        blue = np.array([rng.uniform(140, 210), rng.uniform(40, 90), rng.uniform(0, 40)])
        orange = np.array([rng.uniform(0, 40), rng.uniform(110, 150), rng.uniform(210, 245)])
    st["ink"] = {"S": black, "H": red, "C": green if four else black,
                 "D": (blue if rng.random() < 0.7 else orange) if four else red}
    if rng.random() < 0.7:
        st["font_kind"] = "pil"
        st["font"] = PIL_FONTS[int(rng.integers(len(PIL_FONTS)))]
        st["hershey_thick"] = 1
    else:
        st["font_kind"] = "hershey"
        st["font"] = HERSHEY[int(rng.integers(len(HERSHEY)))]
        st["hershey_thick"] = int(rng.integers(1, 4))
    jumbo = rng.random() < 0.25
    st["rank_h"] = FACE_H * (rng.uniform(0.12, 0.17) if jumbo else rng.uniform(0.065, 0.11))
    st["pip_h"] = st["rank_h"] * rng.uniform(0.55, 0.95) if not jumbo else st["rank_h"] * rng.uniform(0.5, 0.75)
    st["squeeze"] = rng.uniform(0.6, 1.0)
    st["gap"] = rng.uniform(0.08, 0.3)
    st["margin_x"] = FACE_W * rng.uniform(0.035, 0.08)
    st["margin_y"] = FACE_H * rng.uniform(0.03, 0.06)
    st["pip_kind"] = "glyph" if rng.random() < 0.5 else "shape"
    st["pip_font"] = "DejaVuSans.ttf" if rng.random() < 0.6 else "DejaVuSerif-Bold.ttf"
    st["border"] = rng.random() < 0.35
    st["border_col"] = black if rng.random() < 0.5 else rng.uniform(0, 255, 3)
    st["wear"] = rng.uniform(0, 1) if rng.random() < 0.5 else 0.0
    st["court_cols"] = [rng.uniform(0, 255, 3) for _ in range(3)]
    st["ten"] = "10" if rng.random() < 0.85 else "IO"
    st["center_pip_scale"] = rng.uniform(0.75, 1.1)
    return st


def draw_face(code: str, st: dict, rng: np.random.Generator) -> tuple[np.ndarray, list[np.ndarray]]:
    """Draw one regular card in style ``st``: (BGRA, [tl_outline, br_outline])."""
    rank, suit = code[:-1], code[-1]
    H, W = FACE_H, FACE_W
    ink = st["ink"][suit]
    # ---- corner index mask (top-left)
    idx = np.zeros((H, W), np.uint8)
    txt = text_mask(st["ten"] if rank == "10" else rank, st, st["rank_h"])
    pip = suit_mask(suit, st["pip_h"], st)
    colw = max(txt.shape[1], pip.shape[1])
    x0, y0 = int(st["margin_x"]), int(st["margin_y"])
    _stamp(idx, txt, x0 + (colw - txt.shape[1]) // 2, y0)
    py = y0 + txt.shape[0] + int(st["gap"] * st["rank_h"])
    _stamp(idx, pip, x0 + (colw - pip.shape[1]) // 2, py)
    idx_right = x0 + colw
    idx_bottom = py + pip.shape[0]

    # ---- centre art mask(s)
    centre = np.zeros((H, W), np.uint8)
    extra = []  # (mask, colour) for court decoration
    cx0 = idx_right + W * 0.06
    cx1 = W - cx0
    cy0, cy1 = H * 0.09, H * 0.91
    if cx1 - cx0 < W * 0.25:
        cx0, cx1 = W * 0.375, W * 0.625
    if rank in ("J", "Q", "K"):
        frame = np.zeros((H, W), np.uint8)
        fx0, fy0, fx1, fy1 = int(cx0), int(min(cy0, idx_bottom * 0.3 + H * 0.05)), int(cx1), int(H - min(cy0, idx_bottom * 0.3 + H * 0.05))
        cv2.rectangle(frame, (fx0, fy0), (fx1, fy1), 255, max(1, H // 160), cv2.LINE_AA)
        deco = np.zeros((H, W), np.uint8)
        for k in range(int(rng.integers(3, 8))):
            c = (int(rng.uniform(fx0, fx1)), int(rng.uniform(fy0, (fy0 + fy1) / 2)))
            ax = (int(rng.uniform(4, (fx1 - fx0) / 3)), int(rng.uniform(4, (fy1 - fy0) / 5)))
            cv2.ellipse(deco, c, ax, float(rng.uniform(0, 180)), 0, 360, 255, -1, cv2.LINE_AA)
        deco = np.maximum(deco, deco[::-1, ::-1])
        clip = np.zeros_like(deco)
        clip[fy0:fy1, fx0:fx1] = 1
        deco *= clip
        extra.append((deco, st["court_cols"][int(rng.integers(3))]))
        big = text_mask(rank, st, (fy1 - fy0) * 0.28)
        _stamp(centre, big, (fx0 + fx1) // 2 - big.shape[1] // 2, (fy0 + fy1) // 2 - big.shape[0] - 2)
        centre = np.maximum(centre, centre[::-1, ::-1])
        centre = np.maximum(centre, frame)
    elif rank == "A":
        p = suit_mask(suit, H * rng.uniform(0.18, 0.32), st)
        _stamp(centre, p, W // 2 - p.shape[1] // 2, H // 2 - p.shape[0] // 2)
    else:
        n = int(rank)
        ph = min(H * 0.12, (cy1 - cy0) / 5.2) * st["center_pip_scale"]
        for fx, fy in PIP_LAYOUT[n]:
            flip = fy > 0.5
            p = suit_mask(suit, ph, st, flip=flip)
            x = cx0 + fx * (cx1 - cx0 - p.shape[1]) if (cx1 - cx0) > p.shape[1] else W / 2 - p.shape[1] / 2
            y = cy0 + fy * (cy1 - cy0 - p.shape[0])
            _stamp(centre, p, int(round(x)), int(round(y)))

    # ---- compose on the style's cached paper (wear, border line, rounded corners)
    base, alpha = style_base(st)
    face = base
    for m_, col in extra:
        w = m_.astype(np.float32) * (0.85 / 255)
        face = cv2.blendLinear(face, np.full_like(face, np.uint8(np.clip(col, 0, 255))), 1 - w, w)
    both_idx = np.maximum(idx, idx[::-1, ::-1])
    w = np.maximum(centre, both_idx).astype(np.float32) * (1 / 255)
    bgr = cv2.blendLinear(face, np.full_like(face, np.uint8(np.clip(ink, 0, 255))), 1 - w, w)
    tl = facemod.ink_hull(idx > 96)
    br = np.float32([W, H]) - tl
    return np.dstack([bgr, alpha]), [tl, br]


def style_base(st: dict) -> tuple[np.ndarray, np.ndarray]:
    """The style's blank face (paper, worn edges, border line) and its rounded-corner alpha, cached."""
    if "_base" in st:
        return st["_base"]
    H, W = FACE_H, FACE_W
    rng = np.random.default_rng(st["seed"])
    face = np.empty((H, W, 3), np.float32)
    face[:] = st["paper"]
    if st["wear"] > 0:
        n = rng.random((H // 4, W // 4)).astype(np.float32)
        n = cv2.resize(n, (W, H), interpolation=cv2.INTER_LINEAR)
        yy = np.minimum(np.arange(H), H - 1 - np.arange(H))[:, None]
        xx = np.minimum(np.arange(W), W - 1 - np.arange(W))[None, :]
        edge = np.exp(-np.minimum(yy, xx) / (W * 0.025)).astype(np.float32)
        wear_col = np.float32([200, 200, 200]) if st["dark"] else np.float32([120, 130, 140])
        w = (edge * n * st["wear"] * 0.8)[..., None]
        face = face * (1 - w) + wear_col * w
    if st["border"]:
        bm = np.zeros((H, W), np.uint8)
        m = max(2, int(st["margin_x"] * 0.45))
        cv2.rectangle(bm, (m, m), (W - 1 - m, H - 1 - m), 255, 1, cv2.LINE_AA)
        a = bm.astype(np.float32)[..., None] / 255
        face = face * (1 - a) + np.float32(st["border_col"]) * a
    alpha = np.zeros((H, W), np.uint8)
    r = int(round(H * 3.2 / 88))
    cv2.rectangle(alpha, (r, 0), (W - 1 - r, H - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (W - 1, H - 1 - r), 255, -1)
    for cx, cy in ((r, r), (W - 1 - r, r), (r, H - 1 - r), (W - 1 - r, H - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    st["_base"] = (np.clip(face, 0, 255).astype(np.uint8), alpha)
    return st["_base"]


class ProceduralDecks:
    """Seeded procedural deck styles with an LRU cache of drawn faces.

    Styles are numbered; style ``k`` is the same for a given seed whatever
    order faces are asked for in.
    """

    def __init__(self, seed: int = 0, n_styles: int = 4096, cache_faces: int = 600):
        self.seed = int(seed)
        self.n_styles = int(n_styles)
        self.cache_faces = int(cache_faces)
        self._styles: dict[int, dict] = {}
        self._faces: OrderedDict = OrderedDict()

    def style(self, k: int) -> dict:
        if k not in self._styles:
            if len(self._styles) > 256:
                self._styles.clear()
            self._styles[k] = random_style(np.random.default_rng([self.seed, 8001, k]))
        return self._styles[k]

    def face(self, k: int, code: str) -> "facemod.Face":
        key = (k, code)
        f = self._faces.get(key)
        if f is not None:
            self._faces.move_to_end(key)
            return f
        rng = np.random.default_rng([self.seed, 8002, k, facemod_code_id(code)])
        bgra, polys = draw_face(code, self.style(k), rng)
        f = facemod.Face(code, f"proc{k}", facemod.build_pyramid(bgra), polys, "procedural")
        self._faces[key] = f
        if len(self._faces) > self.cache_faces:
            self._faces.popitem(last=False)
        return f


def facemod_code_id(code: str) -> int:
    from vision.classes import CODE_TO_CLASS

    return CODE_TO_CLASS[code]
