"""The corner-index detector, run with onnxruntime (no torch at run time).

The model is a one-class YOLO exported with dynamic input size; this module
letterboxes an image to a multiple of 32, runs it, and returns boxes in the
image's own pixels after non-maximum suppression.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.blob import to_blob
from vision.errors import ModelUnavailable

PAD_GREY = (114, 114, 114)  # what Ultralytics letterboxes with, so padding looks like training padding


@dataclass(frozen=True)
class Corner:
    """One detected corner index: box (x1, y1, x2, y2) in image pixels and its score."""

    box: tuple[float, float, float, float]
    score: float

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


def make_session(path: Path, threads: int = 0):
    try:
        import onnxruntime as ort
    except ImportError as exc:  # pragma: no cover - dependency of the package
        raise ModelUnavailable("onnxruntime is not installed; run: pip install onnxruntime") from exc
    if not Path(path).exists():
        raise ModelUnavailable(f"model file {path} is missing; reinstall the companion or retrain "
                               "with `python -m vision train`")
    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise ModelUnavailable(f"model file {path} could not be loaded ({exc.__class__.__name__})") from exc


class CornerDetector:
    def __init__(self, path: Path, threads: int = 0, conf: float = 0.2, iou: float = 0.5):
        self.session = make_session(path, threads)
        self.input_name = self.session.get_inputs()[0].name
        self.conf = conf
        self.iou = iou

    def detect(self, image: np.ndarray, size: int = 640) -> list[Corner]:
        """Corners in ``image`` (BGR), letterboxed so its long side is ``size``."""
        return self.detect_many([image], size)[0]

    def detect_many(self, images: list[np.ndarray], size: int = 640) -> list[list[Corner]]:
        """``detect`` for several images; those of one shape (a photo's tiles) go through in one batch.

        One batched run of nine tiles takes ~15 % less time than nine single runs on 2 cores.
        """
        out: list[list[Corner]] = [[] for _ in images]
        by_shape: dict[tuple[int, int], list[int]] = {}
        for i, image in enumerate(images):
            by_shape.setdefault(image.shape[:2], []).append(i)
        for (h, w), members in by_shape.items():
            r = size / max(h, w)
            canvases = np.stack([_letterbox(images[i], r) for i in members])
            for i, raw in zip(members, self.run(canvases)):
                out[i] = self._decode(raw, r, w, h)
        return out

    def _decode(self, out: np.ndarray, r: float, w: int, h: int) -> list[Corner]:
        """One image's raw output [5, N] to corners in its own pixels, after the score cut and NMS."""
        scores = out[4]
        keep = scores >= self.conf
        if not keep.any():
            return []
        cx, cy, bw, bh = out[0, keep], out[1, keep], out[2, keep], out[3, keep]
        scores = scores[keep]
        boxes_xywh = np.stack([cx - bw / 2, cy - bh / 2, bw, bh], 1)
        idx = cv2.dnn.NMSBoxes(boxes_xywh.tolist(), scores.tolist(), self.conf, self.iou)
        corners = []
        for i in np.array(idx).reshape(-1):
            x, y, bw_, bh_ = boxes_xywh[i] / r
            box = (max(0.0, float(x)), max(0.0, float(y)), min(float(w), float(x + bw_)), min(float(h), float(y + bh_)))
            if box[2] - box[0] >= 2 and box[3] - box[1] >= 2:
                corners.append(Corner(box, float(scores[i])))
        return corners

    def run(self, images: np.ndarray) -> np.ndarray:
        """Raw model output [B, 5, anchors] (cx, cy, w, h, score) for same-size BGR uint8 images [B, H, W, 3]."""
        return self.session.run(None, {self.input_name: to_blob(images)})[0]


def _letterbox(image: np.ndarray, r: float) -> np.ndarray:
    """``image`` scaled by ``r`` and padded right and bottom to a multiple of 32, as the model takes it."""
    h, w = image.shape[:2]
    nw, nh = max(32, int(round(w * r))), max(32, int(round(h * r)))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    return cv2.copyMakeBorder(resized, 0, (-nh) % 32, 0, (-nw) % 32, cv2.BORDER_CONSTANT, value=PAD_GREY)


def nms_corners(corners: list[Corner], iou: float = 0.5) -> list[Corner]:
    """Merge detections from overlapping tiles or passes."""
    if not corners:
        return []
    boxes = [[c.box[0], c.box[1], c.box[2] - c.box[0], c.box[3] - c.box[1]] for c in corners]
    idx = cv2.dnn.NMSBoxes(boxes, [c.score for c in corners], 0.0, iou)
    return [corners[i] for i in np.array(idx).reshape(-1)]
