"""``python -m vision detect [--json] [--annotate DIR] IMAGE...``"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision detect", description="read the cards in photos")
    p.add_argument("images", nargs="+")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per image")
    p.add_argument("--annotate", metavar="DIR", help="write a copy of each photo with the cards drawn")
    a = p.parse_args(argv)

    from vision.errors import ReaderError
    from vision.reader import get_reader

    try:
        reader = get_reader()
    except ReaderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    results, failed = [], 0
    for path in a.images:
        entry: dict = {"image": path}
        try:
            data = Path(path).read_bytes()
            reading = reader.read(data)
            entry.update(cards=[c.to_json() for c in reading.cards], warnings=list(reading.warnings))
            if a.annotate:
                _write_annotated(data, reading, Path(a.annotate), Path(path))
        except (OSError, ReaderError) as exc:
            failed += 1
            entry.update(cards=[], warnings=[], error=str(exc))
        results.append(entry)
        if not a.json:
            if "error" in entry:
                print(f"{path}: error: {entry['error']}")
            else:
                cards = " ".join(f"{c['card']}({c['confidence']:.2f})" for c in entry["cards"]) or "no cards"
                print(f"{path}: {cards}")
                for w in entry["warnings"]:
                    print(f"  warning: {w}")
    if a.json:
        print(json.dumps(results, indent=1))
    return 1 if failed else 0


def _write_annotated(data: bytes, reading, out_dir: Path, src: Path) -> None:
    from vision.annotate import annotate
    from vision.photo import load_photo

    photo = load_photo(data)
    out_dir.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out_dir / f"{src.stem}_read.jpg"), annotate(photo.image, reading, photo.scale))
