"""``python -m vision eval DATA.yaml [--split val]``: card-level precision/recall.

Ground truth per photo is the multiset of cards whose corner index is
labelled (two corners of one card are one card; WILD corners are paired by
the same distance rule the reader uses, unless a ``.json`` sidecar lists the
cards).  A card read that is not in the truth is a false positive, a true
card not read is a false negative; a photo is 'exact' when both are zero.

Synthetic sets also say how much of each labelled index is in sight
(``visibility.jsonl``, see ``vision.synth.cli``); then recall is broken down
by how well each card shows (``VISIBILITY_BANDS``, by its best index), so a
card in full view that the reader misses is told apart from one whose only
visible index is 60-80 % out from under another card.  Scenes generated
since the generator recorded it also name each card's deck and colour look
(plain, tinted, permuted ink, grey, dark-faced): recall is broken down by
those too.

``--enlarge`` reads each photo enlarged to a phone's 4000 px long side
(``enlarged``): the labelled real photos are 640 px, users' photos are not.
``--turn 180`` (or 90, 270) reads each photo turned (``turned``), as it is
taken from another side of the table: the labelled real photos were mostly
taken from one side, users sit all round.  ``--shrink 4`` reads each photo
at a quarter of its size (``shrunk``), as if taken four times farther away:
how small the indices may get before cards are lost.

Every read card is also counted by its confidence (``by_confidence``): the
share of right cards in each band, the reader's "not sure" band
(``vision.reader.LOW_CONFIDENCE``) first, says whether that flag and the
confidences the pages show can be trusted.
"""
from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from vision.classes import CARD_CODES
from vision.cli_args import checked
from vision.merge import ReadCorner, merge_corners
from vision.yolo_data import dataset_images, label_path, read_boxes, read_hidden, read_visibility

# What synthetic scenes record of each card's deck (``vision.synth.scene.deck_name``,
# ``color_look``); recall is broken down by each, so a weak deck or colour
# style shows up by name.
STYLE_FIELDS = ("look", "deck")
# (name, lowest share, highest share) of a card's best-showing index; the
# labelling rule (vision.synth.scene.MIN_VISIBLE_FRACTION) starts at 0.6.
VISIBILITY_BANDS = (("in full view (95-100 %)", 0.95, 1.01), ("mostly in view (80-95 %)", 0.8, 0.95),
                    ("partly hidden (60-80 %)", 0.0, 0.8))


def truth_for(labels: Path, names: list[str], w: int, h: int) -> Counter:
    """The cards in a labelled photo, as a multiset of codes.

    Every code but WILD names one card.  How many WILDs there are comes from
    a ``.json`` sidecar if there is one; else from the ``CARD`` outlines the
    synthetic scenes label (one per card with a visible index: WILDs are the
    outlines left over once each other code has its card); else, by the
    reader's own pairing rule, from the WILD corners.  Counting outlines keeps
    the yardstick independent of the merging rules being measured.
    """
    sidecar = labels.with_suffix(".json")
    if sidecar.exists():
        return Counter(json.loads(sidecar.read_text())["cards"])
    boxes = read_boxes(labels, names, w, h)
    corners = [ReadCorner(box, name, 1.0) for name, box in boxes if name in CARD_CODES]
    outlines = sum(name == "CARD" for name, _ in boxes)
    truth = Counter({c.code: 1 for c in corners if c.code != "WILD"})
    if any(c.code == "WILD" for c in corners):
        wilds = outlines - len(truth) if outlines else 0
        if wilds <= 0:  # no outlines labelled (or too few to account for the WILDs): pair the corners
            wilds = sum(c.code == "WILD" for c in merge_corners(corners)[0])
        truth["WILD"] = wilds
    return truth


def best_showing(indices: list[dict]) -> dict[str, list[dict]]:
    """Each code's cards, as each card's best-showing labelled index (sorted, best showing first)."""
    best: dict[tuple[str, int], dict] = {}
    for ix in indices:
        key = (ix["card"], ix["card_index"])
        if key not in best or ix["fraction"] > best[key]["fraction"]:
            best[key] = ix
    out: dict[str, list[dict]] = {}
    for (code, _), ix in best.items():
        out.setdefault(code, []).append(ix)
    return {code: sorted(v, key=lambda ix: -ix["fraction"]) for code, v in out.items()}


BREAKDOWN_FIELDS = ("fraction",) + STYLE_FIELDS  # what recall is broken down by, per labelled index


def missed_breakdown(indices: list[dict], missed: Counter) -> dict[str, tuple[list, list]]:
    """Per field of ``BREAKDOWN_FIELDS``: (that field of every labelled card, of the missed ones).

    Each card counts once, by its best-showing labelled index.  A missed code
    is charged to its best-showing card when the photo has several of that
    code (WILDs): the breakdown may wrong a card in full view, never flatter
    it.  ``fraction`` is the share of the index in sight; ``deck`` and
    ``look`` come only from scenes generated since the generator recorded
    them (a field some index lacks gives nothing rather than a wrong count).
    All fields charge the same cards, so the breakdowns agree.
    """
    cards = best_showing(indices)
    out = {}
    for field in BREAKDOWN_FIELDS:
        if any(field not in ix for ix in indices):
            out[field] = ([], [])
            continue
        every = [ix[field] for v in cards.values() for ix in v]
        out[field] = (every, [ix[field] for code, n in missed.items() for ix in cards.get(code, [])[:n]])
    return out


def by_style(every: list[str], missed: list[str]) -> list[dict]:
    """Recall per deck or colour look, most cards first."""
    n, m = Counter(every), Counter(missed)
    return [{"name": k, "cards": v, "missed": m[k], "recall": round((v - m[k]) / v, 4)}
            for k, v in sorted(n.items(), key=lambda kv: (-kv[1], kv[0]))]


def by_visibility(every: list[float], missed: list[float]) -> list[dict]:
    rows = []
    for name, lo, hi in VISIBILITY_BANDS:
        n = sum(lo <= s < hi for s in every)
        m = sum(lo <= s < hi for s in missed)
        rows.append({"band": name, "cards": n, "missed": m, "recall": round((n - m) / n, 4) if n else None})
    return rows


# Upper edges of the bands a read card's confidence is reported in, besides the
# reader's own "not sure" flag (vision.reader.LOW_CONFIDENCE), which is always an
# edge: how often a card in each band is right says whether the flag and the
# confidences shown on the page can be trusted.
CONFIDENCE_EDGES = (0.8, 0.95)


def right_or_wrong(cards: list[tuple[str, float]], truth: Counter) -> list[tuple[float, bool]]:
    """(confidence, whether it is right) for each read card, given as (code, confidence).

    A code read more often than the photo holds it (three WILDs read where
    there are two) is right that many times: the surest copies are counted
    right, so the band of the extra copy is the one charged.
    """
    out: list[tuple[float, bool]] = []
    by_code: dict[str, list[float]] = {}
    for code, conf in cards:
        by_code.setdefault(code, []).append(conf)
    for code, confs in by_code.items():
        confs.sort(reverse=True)
        out.extend((c, i < truth[code]) for i, c in enumerate(confs))
    return out


def by_confidence(marks: list[tuple[float, bool]], flagged_under: float) -> list[dict]:
    """How many read cards fall in each confidence band and the share of them that is right."""
    edges = sorted({flagged_under, *CONFIDENCE_EDGES} - {0.0})
    rows = []
    for lo, hi in zip([0.0, *edges], [*edges, float("inf")]):
        inside = [right for conf, right in marks if lo <= conf < hi]
        rows.append({"band": f"{lo:.2f}-{hi:.2f}" if hi != float("inf") else f"{lo:.2f} and up",
                     "flagged": hi <= flagged_under, "cards": len(inside), "wrong": inside.count(False),
                     "right": round(inside.count(True) / len(inside), 4) if inside else None})
    return rows


PHONE_LONG_SIDE = 4000  # a phone's 12 MP photo is 4000 x 3000
# Quarter turns clockwise that ``--turn`` takes, by degrees (cv2 rotate codes).
TURNS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}
MIN_EXPOSURE, MAX_EXPOSURE = 0.05, 4.0  # what ``--exposure`` takes: from near black to blown out
MAX_SHRINK = 16.0  # what ``--shrink`` takes: 1 (as taken) to a sixteenth of the photo's size


def photo_bytes(img_path: Path, enlarge: bool = False, turn: int = 0, exposure: float = 1.0,
                shrink: float = 1.0) -> bytes:
    """What the reader is given for one labelled photo: its own bytes, or a turned, re-exposed, shrunk and/or enlarged copy.

    A copy that is only turned, re-exposed or shrunk is stored as PNG, so those
    are the only changes against the photo as labelled (no second JPEG loss).
    """
    if enlarge:
        return enlarged(img_path, turn, exposure, shrink)
    if turn or exposure != 1.0 or shrink != 1.0:
        img = shrunk(exposed(turned(cv2.imread(str(img_path)), turn), exposure), shrink)
        return cv2.imencode(".png", img)[1].tobytes()
    return img_path.read_bytes()


def shrunk(img, shrink: float):
    """``img`` at ``1 / shrink`` of its size (area-averaged, as a camera's sensor sums light): cards farther away."""
    if check_shrink(shrink) == 1.0:
        return img
    h, w = img.shape[:2]
    size = (max(1, round(w / shrink)), max(1, round(h / shrink)))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


def check_shrink(shrink: float) -> float:
    if not 1.0 <= shrink <= MAX_SHRINK:
        raise ValueError(f"shrink {shrink!r}: choose 1 (the photo as taken) to {MAX_SHRINK:g} (a sixteenth of its size)")
    return shrink


def exposed(img, exposure: float):
    """``img`` as if taken with ``exposure`` times the light (0.3: a dim room; clipped at white)."""
    if exposure == 1.0:
        return img
    return np.clip(img.astype(np.float32) * check_exposure(exposure), 0, 255).astype(np.uint8)


def check_exposure(exposure: float) -> float:
    if not MIN_EXPOSURE <= exposure <= MAX_EXPOSURE:
        raise ValueError(f"exposure {exposure!r}: choose {MIN_EXPOSURE} to {MAX_EXPOSURE} times the light")
    return exposure


def turned(img, turn: int):
    """``img`` turned ``turn`` degrees clockwise (0, 90, 180 or 270): a photo taken from another side of the table."""
    return cv2.rotate(img, TURNS[check_turn(turn)]) if turn else img


def check_turn(turn: int) -> int:
    if turn not in (0, *TURNS):
        raise ValueError(f"turn {turn!r}: a photo turns by 0, 90, 180 or 270 degrees")
    return turn


def enlarged(img_path: Path, turn: int = 0, exposure: float = 1.0, shrink: float = 1.0) -> bytes:
    """The photo (``turned``, ``exposed``, ``shrunk`` first, if asked) enlarged to a phone's long side, as a JPEG.

    Labelled photos are small, users' are not.  Shrunk and then enlarged, a
    photo is a phone's photo of cards far away: many pixels, little detail.

    The real photos are 640 px; the reader tiles and refines a 4000 px photo
    differently, and a setting safe on the small photos once added false cards
    on the large ones, so candidates are also scored on the photos enlarged.
    Unlike ``vision.bench._twelve_mp``, which fills exactly 4000 x 3000 so every
    benchmark photo costs the same, this keeps the aspect ratio: square photos
    are not stretched, so their indices keep their shape.
    """
    img = shrunk(exposed(turned(cv2.imread(str(img_path)), turn), exposure), shrink)
    k = PHONE_LONG_SIDE / max(img.shape[:2])
    big = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    return cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def evaluate(data_yaml: Path, split: str, limit: int | None = None, show_errors: int = 0,
             refine: bool | None = None, views: bool | None = None, detector: Path | None = None,
             classifier: Path | None = None, tile_factor: int | None = None, enlarge: bool = False,
             fine_tiles: bool | None = None, turn: int = 0, exposure: float = 1.0, shrink: float = 1.0,
             every_view: bool = False) -> dict:
    """Card-level figures of the reader (or candidate weights) on one split.

    ``enlarge`` reads each photo as ``enlarged``, ``turn`` turned by that many
    degrees clockwise (``turned``), ``exposure`` with that much of its light
    (``exposed``), ``shrink`` at that fraction of its size (``shrunk``); the
    labels are of cards, not places, so they hold for a turned, re-exposed or
    shrunk photo as they are.
    """
    check_turn(turn)  # a wrong turn, exposure or shrink fails here, before the reader loads
    check_exposure(exposure)
    check_shrink(shrink)
    from vision.reader import LOW_CONFIDENCE, reader_with

    reader = reader_with(refine, views, detector, classifier, tile_factor, fine_tiles, every_view or None)
    images, names = dataset_images(data_yaml, split)
    if limit:
        images = images[:limit]
    visibility = read_visibility(Path(data_yaml).parent)
    hidden = read_hidden(Path(data_yaml).parent)
    fp_hidden = 0  # extra cards that are in the scene, unlabelled because their indices are mostly covered
    breakdown = {f: ([], []) for f in BREAKDOWN_FIELDS}  # field -> (every card's, the missed ones')
    tp, fp, fn = Counter(), Counter(), Counter()
    marks: list[tuple[float, bool]] = []  # (confidence, right) of every card read
    exact = 0
    times = []
    errors = []
    for img_path in images:
        data = photo_bytes(img_path, enlarge, turn, exposure, shrink)
        with Image.open(img_path) as header:  # the size is in the header: no second decode
            w, h = header.size
        truth = truth_for(label_path(img_path), names, w, h)
        t0 = time.perf_counter()
        reading = reader.read(data)
        times.append(time.perf_counter() - t0)
        got = Counter(reading.codes)
        marks.extend(right_or_wrong([(c.code, c.confidence) for c in reading.cards], truth))
        extra = got - truth
        tp.update(got & truth)
        fp.update(extra)
        if img_path.stem in hidden:
            fp_hidden += sum((extra & Counter(h["card"] for h in hidden[img_path.stem])).values())
        fn.update(truth - got)
        if img_path.stem in visibility:
            for f, (every, missed) in missed_breakdown(visibility[img_path.stem], truth - got).items():
                breakdown[f][0].extend(every)
                breakdown[f][1].extend(missed)
        if got == truth:
            exact += 1
        elif len(errors) < show_errors:
            errors.append(f"{img_path.name}: missed {sorted((truth - got).elements())} "
                          f"extra {sorted((got - truth).elements())}")
    n_tp, n_fp, n_fn = sum(tp.values()), sum(fp.values()), sum(fn.values())
    prec = n_tp / max(n_tp + n_fp, 1)
    rec = n_tp / max(n_tp + n_fn, 1)
    f1 = 2 * prec * rec / max(prec + rec, 1e-9)
    per_class = {}
    for code in CARD_CODES:
        t, p_, n_ = tp[code], fp[code], fn[code]
        if t + p_ + n_:
            per_class[code] = {"precision": round(t / max(t + p_, 1), 3), "recall": round(t / max(t + n_, 1), 3),
                               "support": t + n_}
    times.sort()
    return {"images": len(images), "precision": round(prec, 4), "recall": round(rec, 4), "f1": round(f1, 4),
            "exact_photos": round(exact / max(len(images), 1), 4), "tp": n_tp, "fp": n_fp, "fn": n_fn,
            "median_ms": round(1000 * times[len(times) // 2], 1) if times else None,
            "fp_hidden": fp_hidden if hidden else None,
            "by_confidence": by_confidence(marks, LOW_CONFIDENCE),
            "per_class": per_class, "errors": errors,
            "by_visibility": by_visibility(*breakdown["fraction"]) if breakdown["fraction"][0] else None,
            **{f"by_{f}": by_style(*breakdown[f]) if breakdown[f][0] else None for f in STYLE_FIELDS}}


def _check_tile_factor(n: int) -> int:
    from vision.reader import check_tile_factor  # the reader (and cv2) load only once an option names tiles

    return check_tile_factor(n)


_tile_factor = checked(int, _check_tile_factor, "{text!r} is not a whole number of tiles per side")
_exposure = checked(float, check_exposure, "{text!r} is not a number")
_shrink = checked(float, check_shrink, "{text!r} is not a number")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision eval")
    p.add_argument("data", help="data.yaml of a YOLO dataset labelled with card codes")
    p.add_argument("--split", default="val")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--per-class", action="store_true")
    p.add_argument("--errors", type=int, default=10, help="list this many misread photos")
    p.add_argument("--json", action="store_true")
    p.add_argument("--refine", action=argparse.BooleanOptionalAction, default=None,
                   help="force the refining second look on corner boxes on or off (default: the reader's)")
    p.add_argument("--views", action=argparse.BooleanOptionalAction, default=None,
                   help="read each corner from several shifted views and a wider one (default) or from its box alone")
    p.add_argument("--detector", type=Path, default=None,
                   help="score candidate detector weights (ONNX) instead of models/corner_detector.onnx")
    p.add_argument("--classifier", type=Path, default=None,
                   help="score candidate classifier weights (ONNX) instead of models/index_classifier.onnx")
    p.add_argument("--tile-factor", type=_tile_factor, default=None,
                   help="tiles per side when indices are tiny (default: by photo size, vision.reader.tile_factor_for)")
    p.add_argument("--fine-tiles", action=argparse.BooleanOptionalAction, default=None,
                   help="the fine tiled pass for far-away cards on or off (default: on; vision.reader.FINE_TILE_INDEX_PX)")
    p.add_argument("--every-view", action="store_true",
                   help="read every corner from all its views, sure or not (default: the shifted views only for "
                        "corners the unshifted ones leave unsure, vision.reader.SURE_UNSHIFTED)")
    p.add_argument("--enlarge", action="store_true",
                   help=f"read each photo enlarged to a {PHONE_LONG_SIDE} px long side, as a phone takes it")
    p.add_argument("--turn", type=int, choices=sorted((0, *TURNS)), default=0,
                   help="read each photo turned this many degrees clockwise, as taken from another side of the table")
    p.add_argument("--exposure", type=_exposure, default=1.0,
                   help="read each photo as if taken with this many times the light (0.3: a dim room)")
    p.add_argument("--shrink", type=_shrink, default=1.0,
                   help="read each photo at 1/F of its size, as if taken F times farther away (4: a quarter)")
    a = p.parse_args(argv)
    for flag, path in (("--detector", a.detector), ("--classifier", a.classifier)):
        if path is not None and not path.is_file():
            p.error(f"{flag} {path}: no such file")
    if not Path(a.data).is_file():
        p.error(f"{a.data}: no such file")
    if not dataset_images(Path(a.data), a.split)[0]:
        # a wrong `path:` once scored an empty folder as "0 photos ... F1 0.0000", which reads like a result
        p.error(f"{a.data}: its {a.split!r} split holds no photos (check the yaml's path: and {a.split}: entries)")
    r = evaluate(Path(a.data), a.split, a.limit, a.errors, a.refine, a.views, a.detector, a.classifier,
                 a.tile_factor, a.enlarge, fine_tiles=a.fine_tiles, turn=a.turn, exposure=a.exposure,
                 shrink=a.shrink, every_view=a.every_view)
    if a.json:
        print(json.dumps(r, indent=1))
        return 0
    print(f"{r['images']} photos: card-level precision {r['precision']:.4f} recall {r['recall']:.4f} "
          f"F1 {r['f1']:.4f}; photos read exactly right {r['exact_photos']:.1%}; "
          f"median {r['median_ms']} ms/photo")
    shown = [b for b in r.get("by_confidence") or [] if b["cards"]]
    if shown:
        print("  read cards by confidence: " + "; ".join(
            f"{b['band']}{' (flagged to check)' if b['flagged'] else ''}: {b['cards']} cards, {b['right']:.1%} right"
            for b in shown))
    for band in r["by_visibility"] or []:
        if band["cards"]:
            print(f"  cards {band['band']}: {band['cards']}, missed {band['missed']}, recall {band['recall']:.4f}")
    if r.get("fp_hidden") is not None:
        print(f"  extra cards that are in the scene, unlabelled as their indices are mostly covered: "
              f"{r['fp_hidden']} of {r['fp']}")
    for f in STYLE_FIELDS:
        rows = r[f"by_{f}"] or []
        if rows:
            print(f"  recall by {f}: " + ", ".join(f"{x['name']} {x['recall']:.3f} ({x['missed']}/{x['cards']} missed)"
                                              for x in rows))
    if a.per_class:
        for code, m in r["per_class"].items():
            print(f"  {code:<11} P {m['precision']:.3f} R {m['recall']:.3f} n={m['support']}")
    for e in r["errors"]:
        print("  " + e)
    return 0
