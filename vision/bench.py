"""``python -m vision bench [IMAGE...]``: time photo -> card list, model loaded.

With no images it times synthetic 12 MP JPEGs made from the shipped test
fixtures (upscaled), since the target is a whole phone photo.  Prints the
median and spread of several repeats: the machine is shared and noisy.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import cv2

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "photos"
# A fixed set, so medians stay comparable as fixtures are added (models/README.md quotes them).
BENCH_FIXTURES = ("realphotos_IMG_20220921_194046_jpg.jpg", "realphotos_IMG_20220921_194050_jpg.jpg",
                  "synthetic_hr_ts4242_0000109.jpg", "synthetic_ts4242_0000026.jpg")


def _twelve_mp(path: Path) -> bytes:
    img = cv2.imread(str(path))
    big = cv2.resize(img, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return buf.tobytes()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision bench")
    p.add_argument("images", nargs="*")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args(argv)
    from vision.reader import get_reader

    if a.images:
        photos = [(x, Path(x).read_bytes()) for x in a.images]
    else:
        srcs = [FIXTURES / name for name in BENCH_FIXTURES]
        photos = [(f"{s.name} at 4000x3000", _twelve_mp(s)) for s in srcs]
    t0 = time.perf_counter()
    reader = get_reader()
    print(f"model load: {1000 * (time.perf_counter() - t0):.0f} ms")
    reader.read(photos[0][1])  # warm-up
    all_times = []
    for name, data in photos:
        times = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            reading = reader.read(data)
            times.append(time.perf_counter() - t)
        all_times += times
        print(f"{name}: median {1000 * statistics.median(times):.0f} ms "
              f"(min {1000 * min(times):.0f}, max {1000 * max(times):.0f}); {len(reading.cards)} cards")
    print(f"overall median {1000 * statistics.median(all_times):.0f} ms per photo over {len(all_times)} reads")
    return 0
