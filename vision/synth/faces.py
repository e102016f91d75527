"""Card faces for the scene generator, with the outline of each corner index.

A ``Face`` is a card image (BGRA, transparent outside the rounded corners)
plus the two corner indices (top-left and bottom-right) as convex polygons
in face pixels.  Faces come from three sources:

* the seven art decks in ``../shared/cardart`` (index outlines found once
  from the ink inside a per-deck search window, see ``ART_INDEX_WINDOWS``);
* the project's optional cards (``vision.optional_faces``);
* procedurally drawn regular decks (``vision.synth.procedural``).

Each face is kept as a small pyramid (full, 1/2, 1/4 ...) so a card can be
warped into the scene from the level closest to its size in the photo.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.classes import OPTIONAL_CODES, REGULAR_CODES

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CARDART = REPO_ROOT.parent / "shared" / "cardart"

ART_DECKS = (
    "knoll",
    "kennard-2color",
    "kennard-2color-bf",
    "kennard-4color",
    "kennard-4color-bf",
    "saulspatz-vertical2",
    "saulspatz-vertical4",
)

# Where the top-left index lies in each art deck, as fractions of the card's
# width and height: (x_max, y_max).  Ink components whose centre lies inside
# the window (and that do not stretch far out of it) form the index.
ART_INDEX_WINDOWS = {
    "knoll": (0.20, 0.27),
    "kennard-2color": (0.18, 0.235),
    "kennard-4color": (0.18, 0.235),
    "kennard-2color-bf": (0.235, 0.38),
    "kennard-4color-bf": (0.235, 0.38),
    "saulspatz-vertical2": (0.32, 0.305),
    "saulspatz-vertical4": (0.32, 0.305),
}

# Pyramid level heights (px) kept in memory per face.
MAX_FACE_HEIGHT = 320

# Label boxes keep a little paper around the index ink, as the real photos'
# annotations do: the ink outline is grown by this fraction of its height.
INDEX_MARGIN = 0.12
_DIRS = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 12, endpoint=False)], np.float32)


def grow_outline(poly: np.ndarray, frac: float = INDEX_MARGIN) -> np.ndarray:
    """The convex outline ``poly`` grown by ``frac`` x its height on every side (Minkowski sum with a disc)."""
    r = frac * float(poly[:, 1].max() - poly[:, 1].min())
    pts = (poly[:, None, :] + r * _DIRS[None]).reshape(-1, 2).astype(np.float32)
    return cv2.convexHull(pts).reshape(-1, 2)


@dataclass
class Face:
    code: str
    deck: str
    levels: list[np.ndarray]  # BGRA, levels[0] largest; each half the previous
    polys: list[np.ndarray]  # corner-index outlines in levels[0] pixels (float32 N x 2)
    kind: str = "art"  # art | optional | procedural
    meta: dict = field(default_factory=dict)

    @property
    def label_polys(self) -> list[np.ndarray]:
        """The index outlines used for labels: ``polys`` grown by ``INDEX_MARGIN``."""
        lp = self.meta.get("_label_polys")
        if lp is None:
            w, h = self.size
            lp = self.meta["_label_polys"] = [np.clip(grow_outline(p), 0, [w, h]).astype(np.float32)
                                              for p in self.polys]
        return lp

    @property
    def size(self) -> tuple[int, int]:
        h, w = self.levels[0].shape[:2]
        return w, h

    def level_for(self, target_h: float) -> tuple[np.ndarray, float]:
        """The pyramid level to warp from for a card ``target_h`` px tall, and its scale vs level 0."""
        scale = 1.0
        img = self.levels[0]
        for lv in self.levels[1:]:
            if lv.shape[0] < target_h * 1.15:
                break
            img = lv
            scale *= 0.5
        return img, img.shape[0] / self.levels[0].shape[0]


def build_pyramid(bgra: np.ndarray, min_h: int = 40) -> list[np.ndarray]:
    levels = [bgra]
    while levels[-1].shape[0] // 2 >= min_h:
        prev = levels[-1]
        levels.append(cv2.resize(prev, (prev.shape[1] // 2, prev.shape[0] // 2), interpolation=cv2.INTER_AREA))
    return levels


def make_face(code: str, deck: str, bgra: np.ndarray, polys: list[np.ndarray], kind: str,
              max_h: int = MAX_FACE_HEIGHT, meta: dict | None = None) -> Face:
    h, w = bgra.shape[:2]
    if h > max_h:
        s = max_h / h
        nw = int(round(w * s))
        bgra = cv2.resize(bgra, (nw, max_h), interpolation=cv2.INTER_AREA)
        polys = [p * np.float32([nw / w, max_h / h]) for p in polys]
    return Face(code, deck, build_pyramid(np.ascontiguousarray(bgra)), [np.asarray(p, np.float32) for p in polys],
                kind, meta or {})


def ink_hull(mask: np.ndarray) -> np.ndarray:
    """Convex hull (float32 N x 2, pixel-area outline) of the nonzero pixels of ``mask``."""
    ys, xs = np.nonzero(mask)
    if xs.size == 0:
        raise ValueError("no ink")
    pts = np.stack([xs, ys], 1).astype(np.int32)
    hull = cv2.convexHull(pts).reshape(-1, 2).astype(np.float32)
    c = hull.mean(0)
    return hull + 0.5 + np.sign(hull - c) * 0.5


def find_corner_index(bgra: np.ndarray, window: tuple[float, float]) -> np.ndarray:
    """Outline of the top-left corner index of a card image, from its ink.

    Ink is whatever differs clearly from the paper colour (sampled at the
    middle of the left edge).  Connected ink components whose centroid lies in
    the window ``(x_max, y_max)`` (fractions of the card) and whose extent
    stays near the window make up the index.
    """
    h, w = bgra.shape[:2]
    xm, ym = int(w * window[0]), int(h * window[1])
    region = bgra[: int(ym * 1.25), : int(xm * 1.25)]
    paper = bgra[h // 2, max(3, int(w * 0.012)), :3].astype(np.int16)
    diff = np.abs(region[:, :, :3].astype(np.int16) - paper).max(2)
    ink = ((diff > 70) & (region[:, :, 3] > 200)).astype(np.uint8)
    # drop the card's own outline (thin dark border some decks draw)
    border = int(max(2, w * 0.012))
    ink[:border, :] = 0
    ink[:, :border] = 0
    n, lab, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    keep = np.zeros(n, bool)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        cx, cy = cents[i]
        if area < max(4, 0.00002 * w * h):
            continue
        if cx < xm and cy < ym and x + bw < xm * 1.15 and y + bh < ym * 1.15:
            keep[i] = True
    mask = keep[lab]
    return ink_hull(mask)


def load_art_face(path: Path, deck: str, code: str) -> Face:
    bgra = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if bgra is None or bgra.ndim != 3 or bgra.shape[2] != 4:
        raise ValueError(f"cannot read card art {path}")
    win = ART_INDEX_WINDOWS[deck]
    tl = find_corner_index(bgra, win)
    rot = bgra[::-1, ::-1]
    h, w = bgra.shape[:2]
    br = find_corner_index(np.ascontiguousarray(rot), win)
    br = np.float32([w, h]) - br
    return make_face(code, deck, bgra, [tl, br], "art")


def cardart_root(path: str | os.PathLike | None = None) -> Path:
    if path:
        return Path(path)
    env = os.environ.get("RUMMY_CARDART")
    return Path(env) if env else DEFAULT_CARDART


def load_art_decks(root: str | os.PathLike | None = None, decks=ART_DECKS) -> dict[str, dict[str, Face]]:
    """All available art decks: {deck: {code: Face}}.  Missing folders are skipped."""
    root = cardart_root(root)
    out: dict[str, dict[str, Face]] = {}
    for deck in decks:
        d = root / deck
        if not d.is_dir():
            continue
        faces = {}
        for code in REGULAR_CODES:
            p = d / f"{code}.png"
            if p.exists():
                faces[code] = load_art_face(p, deck, code)
        if faces:
            out[deck] = faces
    return out


def load_optional_faces(height_px: int = MAX_FACE_HEIGHT) -> dict[str, Face]:
    """The project's optional cards as printed: {code: Face}."""
    from vision.optional_faces import render_face_with_indices

    out = {}
    for code in OPTIONAL_CODES:
        bgra, polys = render_face_with_indices(code, height_px)
        out[code] = make_face(code, "optional", bgra, polys, "optional")
    return out


def hand_cut_variants(face: Face, rng: np.random.Generator, n: int = 3) -> list[Face]:
    """Home-printed copies of ``face``: cut up to ~1.5 mm off the lines, square or rounded corners."""
    out = []
    src = face.levels[0]
    h, w = src.shape[:2]
    mm = h / 88.0
    for _ in range(n):
        dx, dy = (rng.uniform(-1.5, 1.5, 2) * mm).round().astype(int)
        dw, dh = (rng.uniform(-1.0, 1.0, 2) * mm).round().astype(int)
        nw, nh = w + dw, h + dh
        canvas = np.empty((nh, nw, 4), np.uint8)
        canvas[:] = (245, 248, 250, 255)  # the sheet's white paper
        # place the printed face at (-dx, -dy) on the cut piece
        x0, y0 = -dx, -dy
        sx0, sy0 = max(0, -x0), max(0, -y0)
        tx0, ty0 = max(0, x0), max(0, y0)
        cw, ch = min(w - sx0, nw - tx0), min(h - sy0, nh - ty0)
        piece = src[sy0:sy0 + ch, sx0:sx0 + cw].astype(np.float32)
        a = piece[:, :, 3:4] / 255.0
        region = canvas[ty0:ty0 + ch, tx0:tx0 + cw, :3].astype(np.float32)
        canvas[ty0:ty0 + ch, tx0:tx0 + cw, :3] = (region * (1 - a) + piece[:, :, :3] * a).astype(np.uint8)
        if rng.random() < 0.5:  # corners rounded with a corner punch, else square scissor cuts
            alpha = np.zeros((nh, nw), np.uint8)
            r = int(round(3.2 * mm))
            cv2.rectangle(alpha, (r, 0), (nw - 1 - r, nh - 1), 255, -1)
            cv2.rectangle(alpha, (0, r), (nw - 1, nh - 1 - r), 255, -1)
            for cx, cy in ((r, r), (nw - 1 - r, r), (r, nh - 1 - r), (nw - 1 - r, nh - 1 - r)):
                cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
            canvas[:, :, 3] = alpha
        polys = [np.clip(p + np.float32([x0, y0]), 0, [nw, nh]).astype(np.float32) for p in face.polys]
        out.append(Face(face.code, "optional-cut", build_pyramid(canvas), polys, "optional"))
    return out
