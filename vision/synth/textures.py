"""Procedural table textures, card backs and small drawing helpers (all numpy/cv2, seeded)."""
from __future__ import annotations

import cv2
import numpy as np


def smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int, octaves: int = 3) -> np.ndarray:
    """Fractal value noise in [0, 1], float32 (h x w)."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    c = max(2, cells)
    for _ in range(octaves):
        small = rng.random((c, c), dtype=np.float32)
        out += amp * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
        c *= 2
    out /= total
    lo, hi = out.min(), out.max()
    return (out - lo) / max(1e-6, hi - lo)


def _palette(rng, kind: str) -> np.ndarray:
    if kind == "wood":
        base = np.array([rng.uniform(20, 90), rng.uniform(50, 130), rng.uniform(90, 200)])  # BGR browns
        if rng.random() < 0.25:  # pale wood
            base = np.array([rng.uniform(120, 170), rng.uniform(160, 200), rng.uniform(190, 230)])
        return base
    if kind == "felt":
        choices = [(40, 110, 20), (90, 60, 20), (30, 30, 140), (60, 60, 60), (110, 70, 30), (50, 90, 90)]
        b = np.array(choices[rng.integers(len(choices))], float)
        return b * rng.uniform(0.6, 1.3)
    return rng.uniform(20, 235, 3)


def make_texture(rng: np.random.Generator, size: int = 512) -> np.ndarray:
    """One random table surface, BGR uint8 (size x size)."""
    kind = rng.choice(["wood", "wood", "felt", "cloth", "check", "stripes", "dots", "shapes", "plain", "speckle",
                       "marble"])
    h = w = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = _palette(rng, "wood")
        n = smooth_noise(rng, h, w, 4)
        freq = rng.uniform(0.05, 0.25)
        warp = smooth_noise(rng, h, w, 3) * rng.uniform(10, 60)
        along = xx if rng.random() < 0.5 else yy
        across = yy if along is xx else xx
        rings = 0.5 + 0.5 * np.sin((across + warp) * freq + n * 6)
        grain = rng.random((h, w), dtype=np.float32)
        grain = cv2.blur(grain, (1, 25) if along is yy else (25, 1))
        v = 0.75 + 0.22 * rings + 0.12 * (grain - 0.5)
        img = v[..., None] * base[None, None, :]
        if rng.random() < 0.6:  # plank seams
            period = rng.integers(60, 200)
            seam = (np.mod(across, period) < 2).astype(np.float32)
            img *= (1 - 0.45 * seam)[..., None]
    elif kind == "felt":
        base = _palette(rng, "felt")
        n = rng.random((h, w), dtype=np.float32)
        n = cv2.GaussianBlur(n, (0, 0), 0.8)
        v = 0.85 + 0.3 * (n - 0.5) + 0.15 * (smooth_noise(rng, h, w, 3) - 0.5)
        img = v[..., None] * base[None, None, :]
    elif kind == "cloth":
        base = _palette(rng, "x")
        p = rng.uniform(2.5, 6)
        weave = 0.5 + 0.25 * np.sin(xx * np.pi / p) * np.sin(yy * np.pi / p)
        v = 0.8 + 0.3 * (weave - 0.5) + 0.2 * (smooth_noise(rng, h, w, 6) - 0.5)
        img = v[..., None] * base[None, None, :]
    elif kind == "check":
        c1, c2 = _palette(rng, "x"), _palette(rng, "x")
        if rng.random() < 0.5:
            c2 = np.full(3, 235.0)
        p = rng.uniform(12, 60)
        a = (np.floor(xx / p) % 2)
        b = (np.floor(yy / p) % 2)
        m = (a + b) / 2.0  # gingham: 0, 0.5, 1
        img = c1[None, None] * (1 - m[..., None]) + c2[None, None] * m[..., None]
    elif kind == "stripes":
        c1, c2 = _palette(rng, "x"), _palette(rng, "x")
        p = rng.uniform(8, 50)
        ang = rng.uniform(0, np.pi)
        t = xx * np.cos(ang) + yy * np.sin(ang)
        m = (np.mod(t, p) < p * rng.uniform(0.2, 0.6)).astype(np.float32)
        img = c1[None, None] * (1 - m[..., None]) + c2[None, None] * m[..., None]
    elif kind == "dots":
        c1, c2 = _palette(rng, "x"), _palette(rng, "x")
        img = np.empty((h, w, 3), np.float32)
        img[:] = c1
        p = rng.uniform(15, 50)
        r = p * rng.uniform(0.15, 0.35)
        for y in np.arange(0, h + p, p):
            off = p / 2 if int(y / p) % 2 else 0
            for x in np.arange(0, w + p, p):
                cv2.circle(img, (int(x + off), int(y)), int(r), c2.tolist(), -1, cv2.LINE_AA)
    elif kind == "shapes":
        img = np.empty((h, w, 3), np.float32)
        img[:] = _palette(rng, "x")
        cols = [_palette(rng, "x") for _ in range(4)]
        for _ in range(rng.integers(40, 160)):
            c = cols[rng.integers(4)].tolist()
            x, y = rng.integers(0, w), rng.integers(0, h)
            if rng.random() < 0.5:
                cv2.ellipse(img, (int(x), int(y)), (int(rng.integers(4, 30)), int(rng.integers(4, 30))),
                            float(rng.uniform(0, 180)), 0, 360, c, -1, cv2.LINE_AA)
            else:
                pts = (rng.random((5, 2)) * rng.uniform(10, 50) + [x, y]).astype(np.int32)
                cv2.fillPoly(img, [pts], c, cv2.LINE_AA)
    elif kind == "speckle":
        base = _palette(rng, "x") * rng.uniform(0.3, 1.0)
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        n = rng.random((h, w), dtype=np.float32)
        sp = (n > rng.uniform(0.85, 0.97)).astype(np.float32)
        sp = cv2.GaussianBlur(sp, (0, 0), 0.7)
        img += (sp * rng.uniform(-120, 120))[..., None]
    elif kind == "marble":
        base = _palette(rng, "x")
        n = smooth_noise(rng, h, w, 3, octaves=5)
        veins = np.abs(np.sin((xx + yy) * rng.uniform(0.01, 0.04) + n * 12))
        v = 0.75 + 0.3 * veins
        img = v[..., None] * base[None, None, :]
    else:  # plain with soft variation
        base = _palette(rng, "x")
        v = 0.9 + 0.2 * (smooth_noise(rng, h, w, 4) - 0.5)
        img = v[..., None] * base[None, None, :]
    # fine noise for all
    img = img + rng.normal(0, rng.uniform(1, 6), (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def make_card_back(rng: np.random.Generator, h: int = 320) -> np.ndarray:
    """A procedurally drawn card back, BGRA with rounded corners (no index, never labelled)."""
    w = int(round(h * 63 / 88))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (250, 250, 250) if rng.random() < 0.7 else rng.integers(0, 255, 3).tolist()
    c1 = rng.integers(0, 200, 3).tolist()
    c2 = rng.integers(60, 256, 3).tolist()
    m = int(h * rng.uniform(0.03, 0.07))
    inner = img[m:h - m, m:w - m]
    inner[:] = c1
    ih, iw = inner.shape[:2]
    style = rng.integers(4)
    p = int(rng.integers(6, 18) * h / 320)
    if style == 0:  # diamond lattice
        for k in range(-ih, iw + ih, p):
            cv2.line(inner, (k, 0), (k + ih, ih), c2, max(1, p // 5), cv2.LINE_AA)
            cv2.line(inner, (k, ih), (k + ih, 0), c2, max(1, p // 5), cv2.LINE_AA)
    elif style == 1:  # dots
        for y in range(p // 2, ih, p):
            for x in range(p // 2, iw, p):
                cv2.circle(inner, (x, y), max(1, p // 3), c2, -1, cv2.LINE_AA)
    elif style == 2:  # concentric rounded frames
        for k in range(0, min(ih, iw) // 2, p):
            cv2.rectangle(inner, (k, k), (iw - 1 - k, ih - 1 - k), c2, max(1, p // 4))
    else:  # swirl rings
        cx, cy = iw // 2, ih // 2
        for r in range(p, max(ih, iw), p):
            cv2.ellipse(inner, (cx, cy), (r, int(r * 1.3)), 0, 0, 360, c2, max(1, p // 4), cv2.LINE_AA)
    alpha = np.zeros((h, w), np.uint8)
    r = int(h * 3.2 / 88)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return np.dstack([img, alpha])
