"""Both shipped models quantized to 8-bit integers, and how much faster they run.

onnxruntime's static quantization (QDQ, weights per channel, activation
ranges by MinMax) calibrated on the exact inputs the shipped reader feeds
each model while it reads some training photos: whole photos and tiles at
416 px and refining windows for the detector, index crops for the classifier.
The detector's box decoding (DFL, anchors, the output concat) stays float32:
quantized with the rest, its pixel coordinates and scores share one 8-bit
output and every score rounds to 0.  Histogram calibrations (entropy,
percentile) need inputs of one shape, which the reader's mixed sizes are not.

Writes ``corner_detector_int8.onnx`` and ``index_classifier_int8.onnx`` to
``--out`` and prints one call's median time, float32 against int8.  Score
them with ``python -m vision eval DATA --detector ... / --classifier ...``;
models/README.md (Limits and next steps) has what they read.  Calibrate on
training scenes only, e.g. the first 40 of ``synth_hr_c`` regenerated from
its seed::

    python -m vision synth --out /tmp/calib_hr --count 40 --seed 300 --imgsz 2048 --prefix c --workers 2
    python scripts/int8_models.py /tmp/calib_hr/data.yaml datasets/work/real_codes/data.yaml --out /tmp/int8

Needs the training extra (``onnx``) besides onnxruntime.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from vision.evaluate import photo_bytes  # noqa: E402
from vision.reader import CLASSIFIER_PATH, DETECTOR_PATH, CardReader  # noqa: E402
from vision.yolo_data import dataset_images  # noqa: E402

CHUNK = 16            # calibration inputs are kept in batches of at most this many
MAX_CHUNKS = 300      # per model: bounds memory (a 416 px chunk is 33 MB)
DETECTOR_HEAD = "/model.23/"  # the YOLO head; its convolutions (cv2, cv3) are quantized, its decoding is not


class _Recorder:
    """Stands in for an onnxruntime session and keeps a copy of every input it is given."""

    def __init__(self, session, name: str, sink: list[np.ndarray]):
        self.session, self.name, self.sink = session, name, sink

    def run(self, outputs, feeds):
        x = feeds[self.name]
        self.sink.extend(x[i:i + CHUNK].copy() for i in range(0, len(x), CHUNK))
        return self.session.run(outputs, feeds)

    def __getattr__(self, attr):
        return getattr(self.session, attr)


def calibration_inputs(photos: list[Path]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(detector inputs, classifier inputs) of the shipped reader reading ``photos``."""
    reader = CardReader()
    det, cls = [], []
    reader.detector.session = _Recorder(reader.detector.session, reader.detector.input_name, det)
    reader.classifier = _Recorder(reader.classifier, "crops", cls)
    for p in photos:
        reader.read(photo_bytes(p))
    rng = np.random.default_rng(0)

    def pick(xs: list[np.ndarray]) -> list[np.ndarray]:
        return [xs[i] for i in sorted(rng.choice(len(xs), min(MAX_CHUNKS, len(xs)), replace=False))]

    return pick(det), pick(cls)


def quantize(src: Path, out: Path, inputs: list[np.ndarray], exclude: list[str]) -> None:
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.detector import make_session

    name = make_session(src).get_inputs()[0].name

    class Feed(CalibrationDataReader):
        def __init__(self):
            self.it = iter({name: x} for x in inputs)

        def get_next(self):
            return next(self.it, None)

    pre = out.with_suffix(".pre.onnx")
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)  # the symbolic pass fails on YOLO's reshapes
    quantize_static(str(pre), str(out), Feed(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=exclude)
    pre.unlink()


def detector_decoding(path: Path) -> list[str]:
    """The detector's nodes after its last convolutions: kept float32 (see the module docstring)."""
    import onnx

    return [n.name for n in onnx.load(str(path)).graph.node
            if n.name.startswith(DETECTOR_HEAD) and "/cv2." not in n.name and "/cv3." not in n.name]


def call_ms(path: Path, x: np.ndarray, repeat: int = 9) -> float:
    """Median time of one call on ``x``, in ms."""
    from vision.detector import make_session

    session = make_session(path)
    feed = {session.get_inputs()[0].name: x}
    session.run(None, feed)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        session.run(None, feed)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="+", type=Path, help="data.yaml of training photos to calibrate on")
    ap.add_argument("--limit", type=int, default=40, help="photos from each data.yaml")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    photos = [p for d in a.data for p in dataset_images(d, "train")[0][:a.limit]]
    det, cls = calibration_inputs(photos)
    print(f"{len(photos)} photos: {len(det)} detector and {len(cls)} classifier input batches")
    a.out.mkdir(parents=True, exist_ok=True)
    det_out, cls_out = a.out / "corner_detector_int8.onnx", a.out / "index_classifier_int8.onnx"
    quantize(DETECTOR_PATH, det_out, det, detector_decoding(DETECTOR_PATH))
    quantize(CLASSIFIER_PATH, cls_out, cls, [])
    rng = np.random.default_rng(1)
    side = cls[0].shape[-1]
    for label, src, q, x in (("detector, one 416 px photo", DETECTOR_PATH, det_out, rng.random((1, 3, 416, 416))),
                             ("detector, 64 refining windows", DETECTOR_PATH, det_out, rng.random((64, 3, 128, 128))),
                             ("classifier, 400 crops", CLASSIFIER_PATH, cls_out, rng.random((400, 3, side, side)))):
        x = x.astype(np.float32)
        f32, i8 = call_ms(src, x), call_ms(q, x)
        print(f"{label}: float32 {f32:.1f} ms, int8 {i8:.1f} ms ({f32 / i8:.1f}x faster); "
              f"{q.name} {q.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
