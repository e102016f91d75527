"""How a corner-index crop is cut and what the classifier's outputs mean.

Shared by training (torch) and inference (onnxruntime) so both cut crops the
same way: the detector's box, grown by ``INPUT_EXPAND`` around its centre,
stretched to a square of the classifier's input size (``input_size`` reads
it from the model; ``INPUT_SIZE`` is the size new classifiers are trained at).
Training stores crops grown by
``STORE_EXPAND`` so it can jitter scale and position the way detector boxes
wobble, then cuts the same central window.

Two heads instead of 62 classes: rank (13 ranks, the 10 optional kinds, and
``JUNK`` for detector false alarms) and suit (4 suits, ``NONE`` for optional
cards and junk).  A rank learnt on one suit transfers to the others, so the
classifier needs far fewer examples per card.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.classes import OPTIONAL_CODES, RANKS, SUITS
from vision.blob import to_blob
from vision.resample import warp_window

INPUT_SIZE = 32
INPUT_EXPAND = 1.2
STORE_SIZE = 64
STORE_EXPAND = 1.6
# The stored crop holds STORE_SIZE * INPUT_EXPAND / STORE_EXPAND = 48 px of the
# classifier's window, so inputs up to 48 px are cut from stored pixels, not upsampled.
MAX_INPUT_SIZE = round(STORE_SIZE * INPUT_EXPAND / STORE_EXPAND)

JUNK = "JUNK"
RANK_LABELS = RANKS + OPTIONAL_CODES + (JUNK,)     # 24
SUIT_LABELS = SUITS + ("NONE",)                    # 5
NONE_SUIT = len(SUITS)
# every code decode_topk can name, in the order of its joint probability vector
ALL_OUTPUTS = tuple(f"{rank}{suit}" for rank in RANKS for suit in SUITS) + RANK_LABELS[len(RANKS):]


def code_to_targets(code: str) -> tuple[int, int]:
    """(rank index, suit index) for a card code, or JUNK/NONE."""
    if code == JUNK:
        return RANK_LABELS.index(JUNK), NONE_SUIT
    if code in OPTIONAL_CODES:
        return RANK_LABELS.index(code), NONE_SUIT
    return RANK_LABELS.index(code[:-1]), SUITS.index(code[-1])


def cut_crop(image: np.ndarray, box: tuple[float, float, float, float], expand: float, size: int) -> np.ndarray:
    """Cut ``box`` (x1, y1, x2, y2 in image pixels) grown by ``expand``; stretch to size x size.

    Pixels outside the image are filled by replicating the border, which is
    what an index at the photo's edge looks like to the detector anyway.
    """
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    hw, hh = max(x2 - x1, 2) * expand / 2, max(y2 - y1, 2) * expand / 2
    # the box's grown corner (cx - hw, cy - hh) lands on output (0, 0), its far corner on (size, size)
    sx, sy = size / (2 * hw), size / (2 * hh)
    tx, ty = (hw - cx) * sx, (hh - cy) * sy
    return warp_window(image, sx, sy, tx, ty, (size, size), cv2.BORDER_REPLICATE)


def input_size(session) -> int:
    """The square crop side an onnxruntime classifier session was exported for.

    Kept in the model rather than in a constant so that weights trained at
    another size (``python -m vision train classifier fit --input-size``) drop
    in without a code change.  A model exported with a dynamic side falls back
    to ``INPUT_SIZE``.
    """
    side = session.get_inputs()[0].shape[-1]
    return side if isinstance(side, int) and side > 0 else INPUT_SIZE


def to_input(crops: np.ndarray) -> np.ndarray:
    """uint8 BGR crops [N, S, S, 3] -> float32 NCHW in 0..1 (RGB order)."""
    return to_blob(crops)


def shifted_box(box: tuple[float, float, float, float], dx: float, dy: float) -> tuple[float, float, float, float]:
    """``box`` moved by ``dx`` of its width and ``dy`` of its height."""
    x1, y1, x2, y2 = box
    ox, oy = dx * (x2 - x1), dy * (y2 - y1)
    return (x1 + ox, y1 + oy, x2 + ox, y2 + oy)


def joint_probs(rank_logits: np.ndarray, suit_logits: np.ndarray) -> np.ndarray:
    """[N, len(ALL_OUTPUTS)] probability of each code per crop.

    Rank x suit for regular cards; the optional kinds and JUNK carry no suit,
    so their rank probability stands.  Each row sums to at most 1 (the suit
    head's NONE share of a regular rank is not a code).
    """
    rp = _softmax(rank_logits)
    sp = _softmax(suit_logits)
    n_ranks = len(RANKS)
    regular = (rp[:, :n_ranks, None] * sp[:, None, :NONE_SUIT]).reshape(len(rp), -1)
    return np.concatenate([regular, rp[:, n_ranks:]], axis=1)


def top_codes(probs: np.ndarray, k: int = 5) -> list[list[tuple[str, float]]]:
    """The ``k`` likeliest codes per row of ``joint_probs``, best first."""
    order = np.argsort(-probs, axis=1)[:, :k]
    return [[(ALL_OUTPUTS[i], float(row[i])) for i in idx] for row, idx in zip(probs, order)]


def decode_topk(rank_logits: np.ndarray, suit_logits: np.ndarray, k: int = 5) -> list[list[tuple[str, float]]]:
    """The ``k`` likeliest codes per crop with their probabilities, best first."""
    return top_codes(joint_probs(rank_logits, suit_logits), k)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
