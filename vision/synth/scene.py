"""Synthetic table photos with exact corner-index labels.

How a scene is made (``SceneGenerator.generate``):

1. Cards are laid out on the table plane in millimetres (a neat row, a
   cascade showing only the corner indices, a fan put down, a loose spread,
   a grid, a messy pile, or several hands on one table), in z order.
2. A phone camera looks at the table at 30-90 degrees of elevation, any yaw,
   from a distance that makes cards 5-60% of the image's long side
   (biased so a typical corner index is 10-60 px tall).  Each card gets one
   homography, face pixels -> image pixels, and only its ROI is warped.
3. Clutter (card backs, coins, boxes, hand-like blobs) goes under or over the
   cards; an owner map records which card (or clutter) is on top at every
   pixel.
4. Photo effects: uneven light, shadows, glare, white balance, focus and
   motion blur, noise, low resolution, JPEG compression.

Labelling rule (visibility of a corner index): the index's outline (convex
hull of its ink, glyph plus the suit pip under it, grown by 12% of its
height so the box keeps the thin paper margin the real photos' boxes have)
is mapped into the image and rasterised.  The index is labelled when **at least 60% of its area is
visible** -- inside the image and not covered by a card or clutter above it
-- **and its box is at least 6 px tall**; otherwise it is left out.  The box
written is the axis-aligned box of the whole outline, clipped to the image.
Class 62 ("CARD") is the axis-aligned box of the card's quadrilateral,
clipped to the image, written for every card with at least one labelled
corner.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.classes import CARD_OUTLINE_CLASS, CODE_TO_CLASS, OPTIONAL_CODES, REGULAR_CODES
from vision.synth import faces as facemod
from vision.synth.textures import make_card_back, make_texture

MIN_VISIBLE_FRACTION = 0.6
MIN_INDEX_HEIGHT_PX = 6.0
CARD_W_MM, CARD_H_MM = 63.0, 88.0

N_TEXTURES = 48
N_BACKS = 12
NOISE_SIGMAS = (1.5, 3.0, 5.0, 8.0)
STYLE_BLOCK = 800  # images per block of live procedural deck styles
STYLES_PER_BLOCK = 8


@dataclass
class PlacedCard:
    face: "facemod.Face"
    cx: float  # table mm
    cy: float
    theta: float  # radians
    labelled: bool = True  # False for clutter (card backs)
    color_tf: np.ndarray | None = None  # 3x4 colour transform for the face (deck style)


def _rot(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s], [s, c]])


# ----------------------------------------------------------------- layouts (table mm)

def layout_row(rng, n):
    gap = rng.uniform(-12, 18)
    out = []
    for i in range(n):
        out.append((i * (CARD_W_MM + gap) + rng.normal(0, 1.5), rng.normal(0, 2.0), rng.normal(0, 0.04)))
    return out


def layout_cascade(rng, n):
    step = rng.uniform(11, 32)
    vertical = rng.random() < 0.2
    drift = rng.uniform(-4, 4)
    out = []
    for i in range(n):
        d = i * step + rng.normal(0, 1.0)
        e = i * drift + rng.normal(0, 1.0)
        out.append((e, d, rng.normal(0, 0.03)) if vertical else (d, e, rng.normal(0, 0.03)))
    return out


def layout_fan(rng, n):
    step = math.radians(rng.uniform(5, 16))
    radius = rng.uniform(45, 110)
    out = []
    for i in range(n):
        a = (i - (n - 1) / 2.0) * step + rng.normal(0, 0.02)
        out.append((radius * math.sin(a), -radius * math.cos(a) + radius, a))
    return out


def layout_spread(rng, n, spacing=None):
    spacing = spacing or rng.uniform(40, 110)
    side = math.sqrt(n) * spacing
    return [(rng.uniform(0, side), rng.uniform(0, side), rng.uniform(0, 2 * math.pi)) for _ in range(n)]


def layout_pile(rng, n):
    return layout_spread(rng, n, spacing=rng.uniform(15, 35))


def layout_grid(rng, n):
    cols = int(rng.integers(2, 6))
    gx, gy = rng.uniform(64, 85), rng.uniform(90, 115)
    return [((i % cols) * gx + rng.normal(0, 2), (i // cols) * gy + rng.normal(0, 2), rng.normal(0, 0.05))
            for i in range(n)]


HAND_LAYOUTS = {"row": layout_row, "cascade": layout_cascade, "fan": layout_fan}
SCENE_LAYOUTS = ("row", "cascade", "fan", "spread", "pile", "grid", "hands", "hands", "cascade")


# ----------------------------------------------------------------- camera

def camera_homography(rng, elev_deg: float, yaw: float) -> np.ndarray:
    """Table plane (mm, z=0, centred on the layout) -> normalised image plane, f=1, camera ~1000 mm away."""
    tilt = math.radians(90.0 - elev_deg)
    cz, sz = math.cos(yaw), math.sin(yaw)
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    ct, st = math.cos(tilt), math.sin(tilt)
    Rx = np.array([[1, 0, 0], [0, ct, -st], [0, st, ct]])
    R = Rx @ Rz
    D = 1000.0
    return np.column_stack([R[:, 0], R[:, 1], np.array([0.0, 0.0, D])])


def _apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64)
    q = p @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


# ----------------------------------------------------------------- colour styles

def deck_color_transform(rng) -> np.ndarray | None:
    """A 3x4 affine colour transform for a deck's faces (paper and ink), or None."""
    r = rng.random()
    if r < 0.58:
        return None
    if r < 0.72:  # cream / grey / tinted stock
        g = np.diag(rng.uniform([0.78, 0.88, 0.92], [0.98, 1.0, 1.02]))
        return np.hstack([g, np.zeros((3, 1))])
    if r < 0.82:  # re-coloured ink: permute channels
        perm = rng.permutation(3)
        m = np.eye(3)[perm]
        return np.hstack([m, np.zeros((3, 1))])
    if r < 0.87:  # greyscale
        m = np.tile(np.array([[0.114, 0.587, 0.299]]), (3, 1))
        return np.hstack([m, np.zeros((3, 1))])
    # dark-faced deck: inverted paper and ink, optionally tinted
    tint = rng.uniform(0.75, 1.0, 3)
    m = -np.diag(tint)
    b = 255 * tint - rng.uniform(0, 40)
    return np.hstack([m, b[:, None]])


def color_look(tf: np.ndarray | None) -> str:
    """The name of what ``deck_color_transform`` did to a face: plain, tinted, permuted, grey or dark.

    Read back from the matrix rather than kept beside it, so the scenes'
    random draws stay exactly as they were (a channel permutation that
    happens to be the identity is plain, as it looks).  ``python -m vision
    eval`` breaks recall down by it (``visibility.jsonl``'s ``look``).
    """
    if tf is None:
        return "plain"
    m = np.asarray(tf, np.float64)[:, :3]
    if (np.diag(m) < 0).all():
        return "dark"
    if np.allclose(m, m[0]):
        return "grey"
    if np.allclose(m, np.eye(3)):
        return "plain"
    if set(np.unique(m).tolist()) <= {0.0, 1.0}:
        return "permuted"
    return "tinted"


def deck_name(face: "facemod.Face") -> str:
    """Where a face comes from, for breaking results down: the art deck's name, 'procedural' or 'optional'."""
    return face.deck if face.kind == "art" else face.kind


# ----------------------------------------------------------------- generator

class SceneGenerator:
    """Makes labelled table photos.  Deterministic per (seed, index)."""

    def __init__(self, seed: int = 0, imgsz: int = 640, cardart=None, procedural: bool = True,
                 art_decks=None):
        self.seed = int(seed)
        self.imgsz = int(imgsz)
        self.art = facemod.load_art_decks(cardart) if art_decks is None else art_decks
        self.optional = facemod.load_optional_faces()
        vr = np.random.default_rng([self.seed, 7004])
        self.optional_variants = {c: [f] + facemod.hand_cut_variants(f, vr) for c, f in self.optional.items()}
        self.procedural = None
        if procedural:
            try:
                from vision.synth.procedural import ProceduralDecks

                self.procedural = ProceduralDecks(self.seed)
            except ImportError:
                self.procedural = None
        self._textures: dict[int, np.ndarray] = {}
        self._backs: dict[int, facemod.Face] = {}
        self._noise = None
        self._index = 0

    # ------------------------------------------------------------ cached assets
    def texture(self, k: int) -> np.ndarray:
        if k not in self._textures:
            self._textures[k] = make_texture(np.random.default_rng([self.seed, 7001, k]))
        return self._textures[k]

    def back(self, k: int) -> "facemod.Face":
        if k not in self._backs:
            img = make_card_back(np.random.default_rng([self.seed, 7002, k]))
            self._backs[k] = facemod.Face("BACK", f"back{k}", facemod.build_pyramid(img), [], "back")
        return self._backs[k]

    def noise(self, level: int) -> np.ndarray:
        """A cached field of Gaussian noise (int16) at ``NOISE_SIGMAS[level]``."""
        if self._noise is None:
            self._noise = {}
        if level not in self._noise:
            r = np.random.default_rng([self.seed, 7003, level])
            n = r.normal(0, NOISE_SIGMAS[level], (self.imgsz + 64, self.imgsz + 64, 3))
            self._noise[level] = np.round(n).astype(np.int16)
        return self._noise[level]

    # ------------------------------------------------------------ face choice
    def _deck_source(self, rng):
        """Pick where this hand's regular faces come from: ('art', deck) or ('proc', style)."""
        if self.procedural is not None and (not self.art or rng.random() < 0.4):
            # a few styles are live at a time (faces are drawn once per block of images)
            block = self._index // STYLE_BLOCK
            return ("proc", (block * STYLES_PER_BLOCK + int(rng.integers(STYLES_PER_BLOCK))) % self.procedural.n_styles)
        names = sorted(self.art)
        return ("art", names[int(rng.integers(len(names)))])

    def _face(self, src, code) -> "facemod.Face":
        if code in OPTIONAL_CODES:
            v = self.optional_variants[code]
            return v[int(self._rng_variant.integers(len(v)))]
        if src[0] == "art":
            return self.art[src[1]][code]
        return self.procedural.face(src[1], code)

    def _pick_codes(self, rng, n: int) -> list[str]:
        pool = list(REGULAR_CODES) + list(OPTIONAL_CODES) + ["WILD", "WILD"]
        idx = rng.permutation(len(pool))[:n]
        return [pool[i] for i in idx]

    # ------------------------------------------------------------ layout
    def _layout(self, rng, card_px: float) -> list[PlacedCard]:
        S = self.imgsz
        px_mm = card_px / CARD_H_MM
        small = card_px < 0.13 * S
        if small and rng.random() < 0.55:
            kind = "hands"
        else:
            kind = SCENE_LAYOUTS[int(rng.integers(len(SCENE_LAYOUTS)))]
        placed: list[tuple] = []  # (cx, cy, theta, hand_id)
        if kind == "hands":
            nh = int(rng.integers(2, 6 if small else 5))
            ring = rng.uniform(0.22, 0.42) * S / px_mm if small else rng.uniform(160, 300)
            a0 = rng.uniform(0, 2 * math.pi)
            for h in range(nh):
                n = int(rng.integers(2, 9))
                sub = HAND_LAYOUTS[rng.choice(list(HAND_LAYOUTS))](rng, n)
                ang = a0 + 2 * math.pi * h / nh + rng.normal(0, 0.15)
                pts = np.array([(x, y) for x, y, _ in sub])
                pts -= pts.mean(0)
                R = _rot(ang + math.pi / 2)
                pts = pts @ R.T + ring * np.array([math.cos(ang), math.sin(ang)])
                for (x, y), (_, _, t) in zip(pts, sub):
                    placed.append((x, y, t + ang + math.pi / 2, h))
        else:
            if kind in ("row", "cascade", "fan"):
                n = int(rng.integers(2, 11))
            elif kind == "grid":
                n = int(rng.integers(2, 16))
            else:
                n = int(rng.integers(1, 12))
            if kind == "spread" and small:
                n = int(rng.integers(6, 16))
            fn = {"row": layout_row, "cascade": layout_cascade, "fan": layout_fan, "spread": layout_spread,
                  "pile": layout_pile, "grid": layout_grid}[kind]
            for x, y, t in fn(rng, n):
                placed.append((x, y, t, 0))
            if kind in ("cascade", "row", "fan") and rng.random() < 0.3:
                placed = placed[::-1]  # the other z order: later cards underneath
        codes = self._pick_codes(rng, len(placed))
        sources: dict[int, tuple] = {}
        tfs: dict[int, np.ndarray | None] = {}
        cards = []
        for (x, y, t, h), code in zip(placed, codes):
            if h not in sources:
                sources[h] = self._deck_source(rng)
                tfs[h] = deck_color_transform(rng)
            face = self._face(sources[h], code)
            tf = tfs[h] if face.kind != "optional" else (tfs[h] if rng.random() < 0.5 else None)
            cards.append(PlacedCard(face, x, y, t, True, tf))
        return cards

    # ------------------------------------------------------------ main
    def compose(self, items, background=(60, 110, 60), size: int | None = None):
        """Draw ``items`` [(face, H)] bottom to top on a plain table, no effects (for tests and checks).

        ``H`` maps face pixels (pyramid level 0) to image pixels.  Returns
        (BGR image, YOLO labels, owner map).
        """
        S = int(size or self.imgsz)
        img = np.empty((S, S, 3), np.uint8)
        img[:] = background
        owner = np.full((S, S), -1, np.int16)
        rng = np.random.default_rng(0)
        infos = []
        for i, (face, H) in enumerate(items):
            fw, fh = face.size
            quad = _apply_h(H, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64))
            self._draw_card(rng, img, owner, i, face, H, quad, None, np.zeros(2), 0.0)
            infos.append((PlacedCard(face, 0, 0, 0, face.kind != "back"), H, quad))
        return img, self._labels(infos, owner), owner

    def generate(self, index: int, effects: bool = True) -> tuple[np.ndarray, list[tuple[int, float, float, float, float]], dict]:
        """Return (BGR image before JPEG, YOLO labels [(cls, xc, yc, w, h) normalised], info)."""
        rng = np.random.default_rng([self.seed, int(index)])
        self._index = int(index)
        self._rng_variant = np.random.default_rng([self.seed, int(index), 2])
        S = self.imgsz
        # size: typical card long side in px, log-uniform with tails
        u = rng.random()
        if u < 0.88:  # index ~ 0.2 x card: 11..87 px at 640
            card_px = math.exp(rng.uniform(math.log(0.085 * S), math.log(0.62 * S)))
        else:
            card_px = rng.uniform(0.05 * S, 0.085 * S)
        cards = self._layout(rng, card_px)

        # clutter cards (backs) placed around the layout
        pts = np.array([(c.cx, c.cy) for c in cards])
        centre = pts.mean(0)
        extent = max(60.0, float(np.abs(pts - centre).max()) + 60)
        n_backs = int(rng.integers(0, 4)) if rng.random() < 0.35 else 0
        backs = []
        for _ in range(n_backs):
            f = self.back(int(rng.integers(N_BACKS)))
            backs.append(PlacedCard(f, centre[0] + rng.uniform(-1.3, 1.3) * extent,
                                    centre[1] + rng.uniform(-1.3, 1.3) * extent, rng.uniform(0, 2 * math.pi), False))
        for b in backs:
            cards.insert(int(rng.integers(0, len(cards) + 1)), b)

        # camera
        elev = 90.0 - abs(rng.normal(0, 22)) if rng.random() < 0.8 else rng.uniform(30, 90)
        elev = float(np.clip(elev, 30, 90))
        yaw = rng.uniform(0, 2 * math.pi)
        Hc = camera_homography(rng, elev, yaw)
        T0 = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1.0]])
        Hc = Hc @ T0
        # measured projected long side of a card at the layout centre
        c0 = np.array([[-CARD_W_MM / 2, -CARD_H_MM / 2], [CARD_W_MM / 2, -CARD_H_MM / 2],
                       [CARD_W_MM / 2, CARD_H_MM / 2], [-CARD_W_MM / 2, CARD_H_MM / 2]])
        q = _apply_h(Hc, c0 + centre)
        proj_long = max(np.linalg.norm(q[0] - q[2]), np.linalg.norm(q[1] - q[3])) / 1.16
        k = card_px / proj_long
        aspect = 1.0 if rng.random() < 0.7 else math.exp(rng.uniform(-0.25, 0.25))
        A = np.diag([k * aspect, k / aspect, 1.0])
        Hi = A @ Hc
        # translate: layout centre to a random point (mostly central); when the
        # layout is larger than the frame, centre on a random card instead
        allpts = np.concatenate([_apply_h(Hi, np.array([[c.cx, c.cy]])) for c in cards])
        lo, hi = allpts.min(0), allpts.max(0)
        span = hi - lo + card_px * 0.8
        if span.max() <= S:
            mid = (lo + hi) / 2
            t = S / 2 - mid + (rng.random(2) - 0.5) * (S - span) + rng.normal(0, 0.04 * S, 2)
        else:
            labelled_idx = [i for i, c in enumerate(cards) if c.labelled]
            anchor = allpts[labelled_idx[int(rng.integers(len(labelled_idx)))]]
            t = rng.uniform(0.25 * S, 0.75 * S, 2) - anchor
        Hi = np.array([[1, 0, t[0]], [0, 1, t[1]], [0, 0, 1.0]]) @ Hi
        # drop cards far outside the frame (saves time, keeps the z order)
        allpts = allpts + t
        keep = (allpts > -0.6 * card_px).all(1) & (allpts < S + 0.6 * card_px).all(1)
        cards = [c for c, k_ in zip(cards, keep) if k_]

        # background
        tex = self.texture(int(rng.integers(N_TEXTURES)))
        tscale = rng.uniform(0.6, 3.0)  # texture px per mm
        ang = rng.uniform(0, 2 * math.pi)
        Tt = np.array([[tscale * math.cos(ang), -tscale * math.sin(ang), rng.uniform(0, 512)],
                       [tscale * math.sin(ang), tscale * math.cos(ang), rng.uniform(0, 512)], [0, 0, 1]])
        Mbg = Tt @ np.linalg.inv(Hi)  # image -> texture
        # the table is warped at half resolution (it is out of focus anyway) and scaled up
        half = S // 2
        Mbg = Mbg @ np.diag([2.0, 2.0, 1.0])
        img = cv2.warpPerspective(tex, Mbg, (half, half), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REFLECT_101)
        if rng.random() < 0.5:  # colour jitter of the table
            img = cv2.transform(img, np.hstack([np.diag(rng.uniform(0.7, 1.25, 3)), np.zeros((3, 1))]))
        img = cv2.resize(img, (S, S), interpolation=cv2.INTER_LINEAR)

        owner = np.full((S, S), -1, np.int16)
        # clutter under the cards
        px_mm = card_px / CARD_H_MM
        self._clutter(rng, img, owner, Hi, centre, extent, px_mm, over=False)

        shadow_dir = rng.normal(0, 1, 2)
        shadow_dir = shadow_dir / (np.linalg.norm(shadow_dir) + 1e-9)
        shadow_len = rng.uniform(0.0, 0.04) * card_px if rng.random() < 0.7 else 0.0
        shadow_strength = rng.uniform(0.15, 0.5)

        infos = []
        for i, c in enumerate(cards):
            face = c.face
            fw, fh = face.size
            Af = np.array([[CARD_W_MM / fw, 0, -CARD_W_MM / 2], [0, CARD_H_MM / fh, -CARD_H_MM / 2], [0, 0, 1]])
            ct, st = math.cos(c.theta), math.sin(c.theta)
            Rt = np.array([[ct, -st, c.cx], [st, ct, c.cy], [0, 0, 1]])
            H = Hi @ Rt @ Af  # face px (level 0) -> image px
            corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64)
            quad = _apply_h(H, corners)
            infos.append((c, H, quad))
            self._draw_card(rng, img, owner, i, face, H, quad, c.color_tf,
                            shadow_dir * shadow_len, shadow_strength)

        self._clutter(rng, img, owner, Hi, centre, extent, px_mm, over=True)

        labels = self._labels(infos, owner)
        if effects:
            img = self._photo_effects(rng, img)
        info = {"n_cards": sum(1 for c in cards if c.labelled), "elev": elev, "indices": self.last_indices,
                "hidden": self.last_hidden}
        return img, labels, info

    # ------------------------------------------------------------ drawing
    def _draw_card(self, rng, img, owner, idx, face, H, quad, color_tf, shadow_off, shadow_strength):
        S = img.shape[0]
        x0 = int(math.floor(max(0, quad[:, 0].min() - 1)))
        y0 = int(math.floor(max(0, quad[:, 1].min() - 1)))
        x1 = int(math.ceil(min(S, quad[:, 0].max() + 1)))
        y1 = int(math.ceil(min(S, quad[:, 1].max() + 1)))
        if x1 <= x0 or y1 <= y0:
            return
        target_h = float(np.max(np.linalg.norm(quad - np.roll(quad, 1, 0), axis=1)))
        src, s = face.level_for(target_h)
        M = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ H @ np.diag([1 / s, 1 / s, 1.0])
        rw, rh = x1 - x0, y1 - y0
        patch = cv2.warpPerspective(src, M, (rw, rh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                    borderValue=(0, 0, 0, 0))
        a = patch[:, :, 3]
        if not a.any():
            return
        rgb = cv2.cvtColor(patch, cv2.COLOR_BGRA2BGR)
        if color_tf is not None:
            rgb = cv2.transform(rgb, color_tf)
        roi = img[y0:y1, x0:x1]
        # soft drop shadow (the card's own alpha, shifted and box-blurred)
        dx, dy = int(round(shadow_off[0])), int(round(shadow_off[1]))
        if shadow_strength > 0 and (dx or dy) and rw > abs(dx) + 2 and rh > abs(dy) + 2:
            sh = np.zeros_like(a)
            sh[max(0, dy):rh + min(0, dy), max(0, dx):rw + min(0, dx)] = \
                a[max(0, -dy):rh - max(0, dy), max(0, -dx):rw - max(0, dx)]
            k = 1 + 2 * max(1, (abs(dx) + abs(dy)) // 2)
            sh = cv2.blur(sh, (k, k))
            w = sh.astype(np.float32) * (shadow_strength / 255.0)
            roi[:] = cv2.blendLinear(roi, np.zeros_like(roi), 1.0 - w, w)
        w = a.astype(np.float32) * (1 / 255.0)
        roi[:] = cv2.blendLinear(roi, np.ascontiguousarray(rgb), 1.0 - w, w)
        own = owner[y0:y1, x0:x1]
        own[a > 127] = idx

    def _clutter(self, rng, img, owner, Hi, centre, extent, px_mm: float, over: bool):
        S = img.shape[0]
        n = int(rng.poisson(0.5 if over else 1.0))
        for _ in range(n):
            kind = rng.choice(["coin", "box", "hand", "blob"], p=[0.4, 0.35, 0.0, 0.25] if not over else
                              [0.3, 0.1, 0.5, 0.1])
            mask = np.zeros((S, S), np.uint8)
            col = rng.uniform(20, 235, 3)
            if kind == "coin":
                p = _apply_h(Hi, centre[None] + rng.uniform(-1.2, 1.2, 2) * extent)[0]
                r = float(np.clip(px_mm * rng.uniform(8, 14), 3, S * 0.1))
                cv2.ellipse(mask, (int(p[0]), int(p[1])), (int(r), int(r * rng.uniform(0.6, 1))),
                            float(rng.uniform(0, 180)), 0, 360, 255, -1, cv2.LINE_AA)
                col = np.array([40, 130, 190]) * rng.uniform(0.6, 1.2) if rng.random() < 0.5 else \
                    np.array([170, 170, 170]) * rng.uniform(0.6, 1.2)
            elif kind == "box":
                c = rng.uniform(0, S, 2)
                wh = rng.uniform(0.1, 0.4, 2) * S
                box = cv2.boxPoints(((float(c[0]), float(c[1])), (float(wh[0]), float(wh[1])),
                                     float(rng.uniform(0, 180))))
                cv2.fillPoly(mask, [box.astype(np.int32)], 255, cv2.LINE_AA)
            elif kind == "hand":
                # palm ellipse entering from an edge with finger capsules
                side = int(rng.integers(4))
                t = rng.uniform(0.1, 0.9) * S
                depth = rng.uniform(0.08, 0.3) * S
                pos = [(t, S + depth * 0.3), (t, -depth * 0.3), (-depth * 0.3, t), (S + depth * 0.3, t)][side]
                ang = [-90, 90, 0, 180][side] + rng.normal(0, 20)
                ra = math.radians(ang)
                pw = rng.uniform(0.08, 0.18) * S
                cv2.ellipse(mask, (int(pos[0]), int(pos[1])), (int(depth), int(pw)), ang, 0, 360, 255, -1,
                            cv2.LINE_AA)
                tip = np.array(pos) + depth * np.array([math.cos(ra), math.sin(ra)])
                perp = np.array([-math.sin(ra), math.cos(ra)])
                for fidx in range(4):
                    base = tip + perp * (fidx - 1.5) * pw * 0.45
                    L = rng.uniform(0.4, 0.9) * pw
                    end = base + L * np.array([math.cos(ra), math.sin(ra)])
                    cv2.line(mask, (int(base[0]), int(base[1])), (int(end[0]), int(end[1])), 255,
                             max(2, int(pw * 0.32)), cv2.LINE_AA)
                skin = np.array([[120, 160, 220], [90, 130, 190], [60, 90, 140], [40, 60, 90], [150, 180, 230]])
                col = skin[int(rng.integers(len(skin)))] * rng.uniform(0.85, 1.1)
            else:
                pts = (rng.random((6, 2)) * rng.uniform(0.05, 0.25) * S + rng.uniform(0, S, 2)).astype(np.int32)
                cv2.fillPoly(mask, [cv2.convexHull(pts)], 255, cv2.LINE_AA)
            bx, by, bw, bh = cv2.boundingRect(mask)
            if bw == 0 or bh == 0:
                continue
            pad = 8
            y0, y1 = max(0, by - pad), min(S, by + bh + pad)
            x0, x1 = max(0, bx - pad), min(S, bx + bw + pad)
            msk = mask[y0:y1, x0:x1]
            soft = cv2.GaussianBlur(msk, (0, 0), rng.uniform(0.5, 2.0)).astype(np.float32)[..., None] / 255.0
            # edge-darkening term, blurred at 1/4 resolution (cheap for big objects)
            hh, ww = msk.shape
            small = cv2.resize(msk, (max(1, ww // 4), max(1, hh // 4)), interpolation=cv2.INTER_AREA)
            small = cv2.GaussianBlur(small, (0, 0), max(0.6, 0.03 * min(bw, bh)))
            inner = cv2.resize(small, (ww, hh), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0
            roi = img[y0:y1, x0:x1].astype(np.float32)
            # contact shadow, then the object shaded darker towards its edges and across
            sh = np.roll(soft, (int(rng.integers(1, 6)), int(rng.integers(-4, 5))), axis=(0, 1))
            roi *= 1 - rng.uniform(0.2, 0.5) * sh
            shade = (0.6 + 0.5 * inner)[..., None] * np.linspace(rng.uniform(0.75, 1.0), rng.uniform(0.9, 1.15),
                                                                 x1 - x0, dtype=np.float32)[None, :, None]
            obj = col[None, None, :].astype(np.float32) * shade
            obj += rng.normal(0, 3, (1, 1, 1)).astype(np.float32)
            img[y0:y1, x0:x1] = np.clip(roi * (1 - soft) + obj * soft, 0, 255).astype(np.uint8)
            if over:
                owner[y0:y1, x0:x1][msk > 127] = -2

    # ------------------------------------------------------------ labels
    def _labels(self, infos, owner):
        S = owner.shape[0]
        out = []
        self.last_indices = []  # every labelled index of the last scene, with the share of it in sight
        # the cards of the last scene that are in it but unlabelled: no index passes the labelling rule,
        # yet some share of one is in sight (a reader that names one has read a real card, not a ghost)
        self.last_hidden = []
        for idx, (c, H, quad) in enumerate(infos):
            if not c.labelled:
                continue
            cls = CODE_TO_CLASS[c.face.code]
            any_corner = False
            best_hidden = 0.0
            for poly in c.face.label_polys:
                box, fraction = index_visible_part(poly, H, owner, idx)
                if box is None:
                    best_hidden = max(best_hidden, fraction)
                    continue
                any_corner = True
                out.append((cls, *box))
                self.last_indices.append({"card": c.face.code, "card_index": idx, "fraction": round(fraction, 4),
                                          "box": [round(float(v), 1) for v in box],
                                          "deck": deck_name(c.face), "look": color_look(c.color_tf)})
            if not any_corner and best_hidden > 0:
                self.last_hidden.append({"card": c.face.code, "card_index": idx, "fraction": round(best_hidden, 4)})
            if any_corner:
                x0, y0 = np.clip(quad.min(0), 0, S)
                x1, y1 = np.clip(quad.max(0), 0, S)
                out.append((CARD_OUTLINE_CLASS, x0, y0, x1, y1))
        # to YOLO normalised xc, yc, w, h
        res = []
        for cls, x0, y0, x1, y1 in out:
            res.append((cls, (x0 + x1) / 2 / S, (y0 + y1) / 2 / S, (x1 - x0) / S, (y1 - y0) / S))
        return res

    # ------------------------------------------------------------ effects
    def _photo_effects(self, rng, img):
        S = img.shape[0]
        # blur first, on 8-bit pixels
        r = rng.random()
        if r < 0.3:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.6))
        elif r < 0.42:
            L = int(rng.integers(3, 10))
            k = np.zeros((L, L), np.float32)
            k[L // 2, :] = 1.0 / L
            Mk = cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
            k = cv2.warpAffine(k, Mk, (L, L))
            k /= max(1e-6, k.sum())
            img = cv2.filter2D(img, -1, k)
        # low resolution (webcam-like)
        if rng.random() < 0.12:
            d = rng.uniform(1.5, 3.0)
            small = cv2.resize(img, (int(S / d), int(S / d)), interpolation=cv2.INTER_AREA)
            img = cv2.resize(small, (S, S), interpolation=cv2.INTER_LINEAR)
        # gain field at low resolution: uneven light x cast shadow x white balance
        g = 32
        gain = cv2.resize(rng.uniform(0.55, 1.25, (3, 3)).astype(np.float32), (g, g), interpolation=cv2.INTER_CUBIC)
        gain = np.clip(gain, 0.35, 1.4)
        if rng.random() < 0.35:  # a soft cast shadow (a person's arm, the phone)
            sm = np.zeros((g, g), np.float32)
            pts = (rng.random((5, 2)) * g * rng.uniform(0.4, 1.0) + rng.uniform(-g / 4, g * 0.75, 2)).astype(np.int32)
            cv2.fillPoly(sm, [cv2.convexHull(pts)], 1.0)
            sm = cv2.GaussianBlur(sm, (0, 0), rng.uniform(0.5, 2.5))
            gain *= 1 - rng.uniform(0.25, 0.6) * sm
        wb = rng.uniform(0.8, 1.2, 3).astype(np.float32) if rng.random() < 0.7 else np.ones(3, np.float32)
        gain3 = cv2.resize(gain[..., None] * wb, (S, S), interpolation=cv2.INTER_LINEAR)
        img = cv2.multiply(img, gain3, dtype=cv2.CV_8U)  # saturating
        if rng.random() < 0.3:  # glare on the gloss
            gl = np.zeros((g, g), np.float32)
            cv2.ellipse(gl, (int(rng.integers(0, g)), int(rng.integers(0, g))),
                        (int(rng.integers(2, 10)), int(rng.integers(1, 5))), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
            gl = cv2.GaussianBlur(gl, (0, 0), rng.uniform(0.8, 2.5)) * rng.uniform(60, 200)
            gl = cv2.resize(gl, (S, S), interpolation=cv2.INTER_LINEAR).astype(np.uint8)
            img = cv2.add(img, cv2.merge([gl, gl, gl]))
        # sensor noise from a cached field, random level and offset
        if rng.random() < 0.8:
            nz = self.noise(int(rng.integers(len(NOISE_SIGMAS))))
            ox, oy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
            img = cv2.add(img, nz[oy:oy + S, ox:ox + S], dtype=cv2.CV_8U)
        return img


def card_homography(face, cx: float, cy: float, height_px: float, theta: float = 0.0) -> np.ndarray:
    """Face pixels -> image pixels for a card centred at (cx, cy), ``height_px`` tall, rotated ``theta`` radians."""
    fw, fh = face.size
    s = height_px / fh
    c, si = math.cos(theta), math.sin(theta)
    return np.array([[c * s, -si * s, cx], [si * s, c * s, cy], [0, 0, 1.0]]) @ np.array(
        [[1, 0, -fw / 2], [0, 1, -fh / 2], [0, 0, 1.0]])


def index_visibility(poly: np.ndarray, H: np.ndarray, owner: np.ndarray, idx: int,
                     min_fraction: float = MIN_VISIBLE_FRACTION, min_height: float = MIN_INDEX_HEIGHT_PX):
    """Apply the labelling rule to one corner index: its clipped box, or None (see ``index_visible_part``)."""
    return index_visible_part(poly, H, owner, idx, min_fraction, min_height)[0]


def index_visible_part(poly: np.ndarray, H: np.ndarray, owner: np.ndarray, idx: int,
                       min_fraction: float = MIN_VISIBLE_FRACTION, min_height: float = MIN_INDEX_HEIGHT_PX):
    """Apply the labelling rule to one corner index: (box or None, share of its outline in sight).

    ``poly`` is the index outline in face pixels, ``H`` maps face pixels to
    image pixels, ``owner`` holds the index of the top-most card per pixel.
    Returns the clipped box (x0, y0, x1, y1) when at least ``min_fraction``
    of the outline's area is visible (in the image and owned by card
    ``idx``) and the clipped box is at least ``min_height`` px tall; else None.
    """
    S_h, S_w = owner.shape
    pts = _apply_h(H, poly)
    x0f, y0f = pts.min(0)
    x1f, y1f = pts.max(0)
    cy0, cy1 = max(0.0, y0f), min(float(S_h), y1f)
    cx0, cx1 = max(0.0, x0f), min(float(S_w), x1f)
    if cy1 - cy0 < min_height or cx1 <= cx0:
        return None, 0.0
    bx0, by0 = int(math.floor(x0f)), int(math.floor(y0f))
    bw, bh = int(math.ceil(x1f)) - bx0 + 1, int(math.ceil(y1f)) - by0 + 1
    local = np.zeros((bh, bw), np.uint8)
    shift = 4
    cv2.fillPoly(local, [np.round((pts - [bx0, by0]) * (1 << shift)).astype(np.int32)], 1, cv2.LINE_8, shift)
    total = int(local.sum())
    if total == 0:
        return None, 0.0
    ix0, iy0 = max(0, bx0), max(0, by0)
    ix1, iy1 = min(S_w, bx0 + bw), min(S_h, by0 + bh)
    if ix1 <= ix0 or iy1 <= iy0:
        return None, 0.0
    sub = local[iy0 - by0:iy1 - by0, ix0 - bx0:ix1 - bx0]
    vis = int(np.count_nonzero(sub & (owner[iy0:iy1, ix0:ix1] == idx)))
    if vis < min_fraction * total:
        return None, vis / total
    return (cx0, cy0, cx1, cy1), vis / total
