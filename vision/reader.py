"""Photo in, list of physical cards out: the card reader the companion uses.

Two passes keep small cards readable without paying for a huge input every
time: the whole photo at ``DETECT_SIZE``, then, when the indices found are
tiny (or none were found), overlapping tiles at higher resolution, and
finer tiles still for cards so far away that their indices stay tiny.  Each
corner's box is tightened by a close second look (``vision.refine``), the
corner is classified from the photo's higher-resolution pixels, from its box
and a wider crop and, when those leave it unsure, from a few slightly shifted
views too, the readings averaged; and corners are merged into cards
(``vision.merge``).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.detector import Corner, CornerDetector, make_session, nms_corners
from vision.index_crops import INPUT_EXPAND, cut_crop, input_size, joint_probs, shifted_box, to_input, top_codes
from vision.merge import MergedCard, ReadCorner, counts_as_read, merge_corners
from vision.levels import BRIGHTEN_DIM_PHOTOS, brightened
from vision.photo import load_photo
from vision.refine import refine_corners
from vision.quality import photo_warnings, small_cards_warning
from vision.yolo_data import box_iou

MODELS = Path(__file__).resolve().parents[1] / "models"
DETECTOR_PATH = MODELS / "corner_detector.onnx"
CLASSIFIER_PATH = MODELS / "index_classifier.onnx"
DETECT_SIZE = 416         # the detector's training size: indices ~8-60 px there
# Tile when the median index height at DETECT_SIZE is under this.  Tiles
# enlarge indices by up to MAX_TILE_FACTOR / (1 + TILE_OVERLAP) = 2.5x, so
# 24 px indices land at 60 px, the top of the detector's training range:
# below it the tiles only help.  At 12 (until 2026-11-30) photos whose
# indices were mid-sized (12-24 px) got the whole-photo pass alone, which
# misses turned and dark-faced indices that a tile finds (21 of the 65
# cards missed on synth_hr_val had no proposal at all).  On the tuning
# views, 53f25cb's weights, threshold 0.45: synth_hr_val 0.9553 -> 0.9611,
# synth_val 0.7670 -> 0.7695, the real training photos enlarged to 12 MP
# 0.9941 -> 0.9953; as stored (640 px) 0.9941 -> 0.9929 (one card more found,
# two more read: an unlabelled spade cut by the photo's edge, and a second
# box on a J of clubs read JS 0.49 / JC 0.49).  Costs a 3 x 3 tiling on the
# photos with mid-sized indices.
SMALL_INDEX_PX = 24
# Tiles per side when indices are small (``tile_factor_for``): each tile
# (1/factor of the long side, plus overlap) is detected at DETECT_SIZE, so
# its indices grow by about factor / (1 + TILE_OVERLAP).  As many tiles as
# keep each tile at least DETECT_SIZE across (finer tiles would only enlarge
# pixels that carry no more detail), from 2 up to MAX_TILE_FACTOR, which
# bounds the time: 3 x 3 tiles on photos of 1040 px and up, 2 x 2 below.
# On the tuning sets, against 2 x 2 everywhere: synth_hr_val (2048 px)
# 0.9460 -> 0.9532; synth_val and the real training photos (640 px) unchanged,
# as they keep 2 x 2 (forced 3 x 3 there: 0.7544 -> 0.7526 and
# 0.9929 -> 0.9917).  `python -m vision eval --tile-factor N` forces N.
MIN_TILE_FACTOR = 2
MAX_TILE_FACTOR = 3
MAX_FORCED_TILE_FACTOR = 6  # the most a measuring command may force (36 tiles a photo)
LARGE_INDEX_PX = 72       # ... above which we look again at a smaller size
TARGET_INDEX_PX = 36      # the index height the second look aims for
MIN_DETECT_SIZE = 224
# The second look for close-ups.  When indices are huge the detector at
# DETECT_SIZE often finds only some of them (or proposes only boxes on court
# art, all turned down as JUNK), so the rescue above, which needs the
# found indices to be huge, never fires.  So whenever the indices read so far
# are tall at DETECT_SIZE, or none was read at all, the photo is detected
# again at SECOND_LOOK_SIZE and the corners found there that the first pass
# missed are read too.  Photos of a table with ordinary indices never pay
# for it.
SECOND_LOOK_SIZE = 288
SECOND_LOOK_INDEX_PX = 48  # median read-index height at DETECT_SIZE above which the second look runs
TILE_OVERLAP = 0.2
# The fine tiles.  A 2048 px photo (every phone photo is decoded to that,
# vision/photo.py) gets at most 3 x 3 tiles, each 820 px shrunk to
# DETECT_SIZE, so cards laid far from the camera keep indices of a few
# pixels there and some are never proposed (dark-faced and tinted decks
# mostly).  When the indices read after the 3 x 3 pass are still tiny
# (median under FINE_TILE_INDEX_PX at DETECT_SIZE) or none was read, the
# photo is detected again on as many tiles as keep each tile DETECT_SIZE
# across (5 x 5 at 2048 px, ``fine_tile_factor_for``), and the corners found
# only there are kept when read at FINE_TILE_MIN_PROB or more: new proposals
# of a denser search are likelier false alarms than the first pass's.
# Photos of 640 px (4 tiles a side would enlarge pixels) never take it.
# Only the fine tiles that hold some corner of the passes before (any
# proposal, JUNK included) are detected: a far card's index that the coarse
# tiles shrank to a few pixels still draws a faint proposal near it.  On the
# 20 synth_hr_val scenes that take the pass, that skips 317 of 500 tiles and
# none of the 19 corners the pass keeps (median read of those scenes
# 670 -> 848 ms with the pass, 1169 ms detecting all 25 tiles).
# Chosen on synth_hr_val (2026-12-04, cached corners): 0.9736 -> 0.9767
# (7 more cards found, 1 more false) for a median-index gate anywhere from
# 6 to 16 px and a bar of 0.6 (0.9761-0.9762 at 0.5-0.7; 6 x 6 tiles 0.9762;
# a gate of 5 finds one card fewer).  The gate is the plateau's lowest, so
# the fewest photos pay for the extra tiles: 20 of the 150
# scenes at 6, 39 at 8; the 20-card bench photo (6.9 px at 12 MP) does not.
# The other tuning views tie (the real photos' indices are far larger;
# synth_val is 640 px).
# The tiles detected: only those holding a corner the whole-photo pass
# proposed (any score from DETECT_CONF up, JUNK included), or all of them
# when it proposed none.  Cards lie in clusters, and an index the whole photo
# shrank past reading still draws a faint proposal; the tiles of empty table
# cost a detector run each for nothing.  On the tuning views (2026-12-04):
# synth_hr_val 0.9767 -> 0.9771 (one false card fewer), real train 0.9953,
# enlarged 0.9953 and synth_val 0.7940 tie; the one-card real bench photo
# 509 -> 430 ms (interleaved medians), the 20-card one 833 -> 791 ms.
TILES_NEAR_PROPOSALS = True
FINE_TILE_INDEX_PX = 6
FINE_TILE_MIN_PROB = 0.6
FINE_NEW_IOU = 0.3  # a fine-tile corner overlapping a read one this much is the same corner
LOW_CONFIDENCE = 0.6      # cards under this are flagged for a person to check
# The detector only proposes: a low threshold finds faint and small indices,
# and the classifier's JUNK class turns down what is not an index.
DETECT_CONF = 0.05
# The refining second look (vision.refine): each corner's box re-detected in
# a close window before it is read.  On with the current classifier: on the
# tuning sets it reads more (real training photos 0.975 -> 0.977, synthetic
# scenes at phone resolution 0.890 -> 0.925), and on the evaluation sets it
# ties on the real validation photos (0.966) and gains on the synthetic ones
# (0.899 -> 0.924 at 2048 px).  `python -m vision eval --no-refine` measures
# the reader without it.
REFINE_BOXES = True
# Each corner is read from its box and from four copies shifted by 8 % of a
# side, and the five readings are averaged.  A detector box strays from the
# true index by ~9 % of a side (std), and a crop that cuts off part of the
# rank, or takes in a neighbour's pip, is misread; the average of a few
# wobbled views is steadier than any one.  On the tuning sets (with the
# previous classifier, before refinement was on): real training photos
# 0.974 -> 0.975, phone-resolution synthetic scenes 0.862 -> 0.873.  It costs
# ~1.5 ms per corner (120 ms on a 20-card photo with 80 corner proposals).
VIEW_SHIFTS = ((0.0, 0.0), (0.08, 0.0), (-0.08, 0.0), (0.0, 0.08), (0.0, -0.08))
# ... and from one wider crop of the unshifted box (a margin of 1.3 box sides
# instead of INPUT_EXPAND's 1.2), averaged in as a sixth view: a little more
# of the pip and the card edge, for indices the box cuts short.  Chosen on the
# tuning views with cached corner boxes and 701ae62's models (margins
# 1.0-1.6 tried, alone and in pairs; 1.25-1.35 is the plateau where every view
# ties or gains): synth_hr_val 0.9726 -> 0.9736 (13 -> 12 false, 42 -> 41
# missed), synth_val 0.7909 -> 0.7938 (108 -> 101, 634 -> 630), the real
# training photos as stored and enlarged to 12 MP 0.9953 both (unchanged).
# A margin replacing one of the shifted views instead gained on one view and
# lost on another.  It costs a sixth of the classifier's time.
WIDE_VIEW_EXPANDS = (1.3,)
# The shifted views only where the unshifted ones leave a corner unsure.
# Each corner is first read from its unshifted views (the box itself and the
# wide one); when their averaged top reading is at least SURE_UNSHIFTED
# (a code or JUNK alike), that reading stands and the four shifted views are
# not cut.  The shifts are there to steady a box that strays off its index,
# and a sure unshifted reading is one whose box did not.  On the cached
# corners of the tuning views (2026-12-07, stop 57; each view's readings of
# every corner cached once, cutoffs 0.7-0.95 tried, with the unshifted crop
# alone or with the wide one as the first look), at 0.85 against every view
# for every corner: synth_hr_val 0.9791 tie, synth_hr_tune 0.9584 -> 0.9589
# (two cards more found), synth_val 0.7951 -> 0.7954, the real training
# photos as stored and enlarged to 12 MP 0.9953 both (tie), with 45-71 % of
# the crops cut.  0.8-0.9 is the plateau (every view within a card); the
# crop alone as the first look lost a card on synth_hr_val at every cutoff.
# Read after the choice: real train at 1/6 size (`eval --shrink 6`) loses one
# card at 0.85 (0.9114 -> 0.9100), at 2x the light ties; in the cached
# readings 0.95 ties every tuning view, shrunk included, but cuts fewer crops.
# On the 20-card bench photo: see the model card's Speed.
# ``python -m vision eval --every-view`` measures the reader without it.
SURE_UNSHIFTED = 0.85


@dataclass(frozen=True)
class DetectedCard:
    code: str
    confidence: float
    box: tuple[float, float, float, float]

    def to_json(self) -> dict:
        return {"card": self.code, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box]}


@dataclass(frozen=True)
class Reading:
    cards: tuple[DetectedCard, ...]
    warnings: tuple[str, ...]
    width: int
    height: int
    corners: tuple[ReadCorner, ...] = field(default=(), repr=False)

    @property
    def codes(self) -> list[str]:
        return [c.code for c in self.cards]

    def to_json(self) -> dict:
        return {"cards": [c.to_json() for c in self.cards], "warnings": list(self.warnings),
                "width": self.width, "height": self.height}


class CardReader:
    def __init__(self, detector_path: Path = DETECTOR_PATH, classifier_path: Path = CLASSIFIER_PATH,
                 threads: int = 0, refine: bool = REFINE_BOXES,
                 views: tuple[tuple[float, float], ...] = VIEW_SHIFTS, tile_factor: int | None = None,
                 wide_views: tuple[float, ...] = WIDE_VIEW_EXPANDS, fine_tiles: bool = True,
                 sure_unshifted: float | None = SURE_UNSHIFTED):
        if tile_factor is not None:
            check_tile_factor(tile_factor)
        self.detector = CornerDetector(detector_path, threads, conf=DETECT_CONF)
        self.refine = refine
        self.fine_tiles = fine_tiles  # the fine pass for far-away cards (FINE_TILE_INDEX_PX)
        self.tile_factor = tile_factor  # None: tile_factor_for each photo
        self.wide_views = tuple(wide_views)
        self.views = tuple(views) or (() if self.wide_views else ((0.0, 0.0),))
        self.sure_unshifted = sure_unshifted  # None: every corner is read from every view
        self.classifier = make_session(classifier_path, threads)
        self.input_size = input_size(self.classifier)
        self._lock = threading.Lock()

    # -------------------------------------------------------------- public
    def read(self, data: bytes) -> Reading:
        """Read the cards in an encoded photo (JPEG, PNG, ...)."""
        photo = load_photo(data)
        return self.read_image(photo.image, 1.0 / photo.scale, photo.width, photo.height)

    def read_image(self, image: np.ndarray, to_photo: float = 1.0, width: int | None = None,
                   height: int | None = None) -> Reading:
        """Read an upright BGR image; boxes are multiplied by ``to_photo`` into photo pixels."""
        width = width or int(round(image.shape[1] * to_photo))
        height = height or int(round(image.shape[0] * to_photo))
        shown = image  # the photo checks judge the photo as taken
        if BRIGHTEN_DIM_PHOTOS:
            image = brightened(image)
        corners = self.find_corners(image)
        read = self.classify(image, corners)
        if self._wants_second_look(image, read):
            seen = [r.box for r in read]
            extra = [c for c in self.find_corners(image, SECOND_LOOK_SIZE)
                     if all(box_iou(c.box, b) < 0.5 for b in seen)]
            read = read + self.classify(image, extra)
        long_side = max(image.shape[:2])
        fine = fine_tile_factor_for(long_side) if self.fine_tiles else None
        if fine and wants_fine_tiles(read, long_side):
            read = read + self._fine_corners(image, fine, read)
        merged, warnings = merge_corners(read)
        cards = tuple(self._to_card(m, to_photo) for m in merged)
        warnings = list(warnings)
        if not cards:
            warnings.append("no cards found in this photo: lay the cards face up with their corners "
                            "visible and take the photo from closer")
            warnings.extend(photo_warnings(shown))
        else:
            low = [c.code for c in cards if c.confidence < LOW_CONFIDENCE]
            if low:
                warnings.append("not sure about " + ", ".join(low) + ": please check these cards")
            warnings.extend(w for w in photo_warnings(shown) if "dark" in w)
            small = small_cards_warning([max(r.box[2] - r.box[0], r.box[3] - r.box[1])
                                         for r in read if counts_as_read(r)], to_photo)
            if small:
                warnings.append(small)
        return Reading(cards, tuple(warnings), width, height, tuple(read))

    # -------------------------------------------------------------- steps
    def find_corners(self, image: np.ndarray, size: int | None = None) -> list[Corner]:
        """Corner proposals in image pixels; ``size`` forces one detector input size (no rescue, no tiles)."""
        with self._lock:  # onnxruntime sessions are thread-safe, but one inference at a time is faster on 2 cores
            if size is not None:
                corners = self.detector.detect(image, size)
                return refine_corners(self.detector, image, corners) if self.refine else corners
            long_side = max(image.shape[:2])
            corners = self.detector.detect(image, DETECT_SIZE)
            median = _median_height(corners, DETECT_SIZE / long_side)
            if corners and median > LARGE_INDEX_PX:
                # huge indices (a close-up): shrink the photo so they look like the training data
                size = max(MIN_DETECT_SIZE, int(DETECT_SIZE * TARGET_INDEX_PX / median) // 32 * 32)
                again = self.detector.detect(image, size)
                if len(again) >= len(corners) * 0.8:
                    corners = again
            elif wants_tiles(long_side, median, bool(corners)):
                factor = self.tile_factor or tile_factor_for(long_side)
                near = [c.box for c in corners] if corners and TILES_NEAR_PROPOSALS else None
                corners = nms_corners(corners + self._tiled(image, factor, near=near))
            return refine_corners(self.detector, image, corners) if self.refine else corners

    def _tiled(self, image: np.ndarray, factor: int,
               near: list[tuple[float, float, float, float]] | None = None) -> list[Corner]:
        """Detect on overlapping square tiles, each ``1/factor`` of the long side (plus overlap).

        ``near``: only the tiles that hold the centre of one of these boxes.
        """
        tile, origins = tile_windows(*image.shape[:2], factor)
        if near is not None:
            origins = [o for o in origins if any(_centre_in(b, o, tile) for b in near)]
            if not origins:
                return []
        found = self.detector.detect_many([image[y0:y0 + tile, x0:x0 + tile] for x0, y0 in origins], DETECT_SIZE)
        out: list[Corner] = []
        for (x0, y0), corners in zip(origins, found):
            for c in corners:
                b = c.box
                out.append(Corner((b[0] + x0, b[1] + y0, b[2] + x0, b[3] + y0), c.score))
        return out

    def _fine_corners(self, image: np.ndarray, factor: int, read: list[ReadCorner]) -> list[ReadCorner]:
        """Corners that only the fine tiles find, read surely enough to keep (see FINE_TILE_INDEX_PX)."""
        with self._lock:
            seen = [r.box for r in read]
            new = [c for c in nms_corners(self._tiled(image, factor, near=seen))
                   if all(box_iou(c.box, b) < FINE_NEW_IOU for b in seen)]
            if not new:
                return []
            new = refine_corners(self.detector, image, new) if self.refine else new
        return [r for r in self.classify(image, new) if r.prob >= FINE_TILE_MIN_PROB]

    @staticmethod
    def _wants_second_look(image: np.ndarray, read: list[ReadCorner]) -> bool:
        if max(image.shape[:2]) < SECOND_LOOK_SIZE * 1.25:
            return False
        median = _median_read_height(read, max(image.shape[:2]))
        return median is None or median > SECOND_LOOK_INDEX_PX

    def classify(self, image: np.ndarray, corners: list[Corner]) -> list[ReadCorner]:
        if not corners:
            return []
        windows = self.view_windows()
        first = [w for w in windows if w[:2] == (0.0, 0.0)]
        if self.sure_unshifted is None or not first or len(first) == len(windows):
            probs = self._view_probs(image, corners, windows).mean(axis=0)
        else:  # SURE_UNSHIFTED: the shifted views only for the corners the unshifted ones leave unsure
            seen = self._view_probs(image, corners, first)
            probs = seen.mean(axis=0)
            unsure = np.flatnonzero(probs.max(axis=1) < self.sure_unshifted)
            if len(unsure):
                rest = [w for w in windows if w[:2] != (0.0, 0.0)]
                shifted = self._view_probs(image, [corners[i] for i in unsure], rest)
                by_window = dict(zip(first, seen[:, unsure])) | dict(zip(rest, shifted))
                probs[unsure] = np.mean([by_window[w] for w in windows], axis=0)  # every view, in order
        return [ReadCorner(c.box, top[0][0], top[0][1], c.score, tuple(top))
                for c, top in zip(corners, top_codes(probs, 5))]

    def _view_probs(self, image: np.ndarray, corners: list[Corner],
                    windows: list[tuple[float, float, float]]) -> np.ndarray:
        """[views, corners, codes]: each corner's code probabilities in each of ``windows``."""
        crops = np.stack([cut_crop(image, shifted_box(c.box, dx, dy), expand, self.input_size)
                          for dx, dy, expand in windows for c in corners])
        rank, suit = self.classifier.run(None, {"crops": to_input(crops)})
        return joint_probs(rank, suit).reshape(len(windows), len(corners), -1)

    def view_windows(self) -> list[tuple[float, float, float]]:
        """Each view a corner is read from: (shift x, shift y, margin), the readings averaged."""
        return [(dx, dy, INPUT_EXPAND) for dx, dy in self.views] + [(0.0, 0.0, e) for e in self.wide_views]

    @staticmethod
    def _to_card(m: MergedCard, k: float) -> DetectedCard:
        return DetectedCard(m.code, m.confidence, tuple(round(v * k, 1) for v in m.box))


def _centre_in(box: tuple[float, float, float, float], origin: tuple[int, int], tile: int) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return origin[0] <= cx < origin[0] + tile and origin[1] <= cy < origin[1] + tile


def _median_read_height(read: list[ReadCorner], long_side: int) -> float | None:
    """Median height at DETECT_SIZE of the corners read as indices, None when none was."""
    indices = [r for r in read if counts_as_read(r)]
    return _median_height(indices, DETECT_SIZE / long_side) if indices else None


def _median_height(corners: list[Corner] | list[ReadCorner], scale: float) -> float:
    heights = sorted((c.box[3] - c.box[1]) * scale for c in corners)
    return heights[len(heights) // 2] if heights else 0.0


def wants_tiles(long_side: int, median_index_px: float, found_any: bool) -> bool:
    """Whether a photo gets the tiled pass after the whole-photo one.

    Only photos large enough that tiles hold more detail than the whole
    photo at DETECT_SIZE, and only when the indices found there are small
    enough (``median_index_px``, at DETECT_SIZE) that tiles keep them within
    the detector's training range, or none was found at all.
    """
    return long_side > DETECT_SIZE * 1.5 and (not found_any or median_index_px < SMALL_INDEX_PX)


def fine_tile_factor_for(long_side: int) -> int | None:
    """Tiles per side for the fine pass, or None when the photo is too small for more than 3 x 3."""
    fits = _tiles_that_fit(long_side)
    return min(fits, MAX_FORCED_TILE_FACTOR) if fits > MAX_TILE_FACTOR else None


def wants_fine_tiles(read: list[ReadCorner], long_side: int) -> bool:
    """Whether the indices read so far are tiny at DETECT_SIZE (or none was read): see FINE_TILE_INDEX_PX."""
    median = _median_read_height(read, long_side)
    return median is None or median < FINE_TILE_INDEX_PX


def check_tile_factor(factor: int) -> int:
    """A forced tile factor, or ValueError: under 2 is no tiling, over 6 is 36+ detector runs a photo."""
    if not MIN_TILE_FACTOR <= factor <= MAX_FORCED_TILE_FACTOR:
        raise ValueError(f"tile_factor {factor}: choose {MIN_TILE_FACTOR} to {MAX_FORCED_TILE_FACTOR} tiles per side")
    return factor


def _tiles_that_fit(long_side: int) -> int:
    """The most tiles per side (with their overlap) that keep each tile DETECT_SIZE across."""
    return int(long_side * (1 + TILE_OVERLAP) // DETECT_SIZE)


def tile_factor_for(long_side: int) -> int:
    """Tiles per side for a photo: the most that keep a tile DETECT_SIZE across, within the bounds."""
    return max(MIN_TILE_FACTOR, min(MAX_TILE_FACTOR, _tiles_that_fit(long_side)))


def tile_windows(h: int, w: int, factor: int) -> tuple[int, list[tuple[int, int]]]:
    """The tiles of an h x w photo: their side and (x0, y0) origins (the detector trains on the same)."""
    tile = int(max(h, w) / factor * (1 + TILE_OVERLAP))
    return tile, [(x0, y0) for y0 in _tile_starts(h, tile) for x0 in _tile_starts(w, tile)]


def _tile_starts(length: int, tile: int) -> list[int]:
    """Evenly spaced tile origins that cover ``length`` completely."""
    if length <= tile:
        return [0]
    n = int(np.ceil((length - tile) / (tile / (1 + TILE_OVERLAP)))) + 1
    return [int(round(i * (length - tile) / (n - 1))) for i in range(n)]


def reader_with(refine: bool | None = None, views: bool | None = None, detector: Path | None = None,
                classifier: Path | None = None, tile_factor: int | None = None,
                fine_tiles: bool | None = None, every_view: bool | None = None) -> CardReader:
    """The shared reader, or a new one with settings forced or candidate weights swapped in.

    ``None`` keeps the shipped setting or model; measuring commands use this
    to compare settings, and candidate weights before they replace the shipped ones.
    """
    if (refine is None and views is None and detector is None and classifier is None and tile_factor is None
            and fine_tiles is None and every_view is None):
        return get_reader()
    all_views = views in (None, True)  # the shifted and the wide views, or the plain crop alone
    return CardReader(detector or DETECTOR_PATH, classifier or CLASSIFIER_PATH,
                      refine=REFINE_BOXES if refine is None else refine,
                      views=VIEW_SHIFTS if all_views else ((0.0, 0.0),),
                      tile_factor=tile_factor,
                      wide_views=WIDE_VIEW_EXPANDS if all_views else (),
                      fine_tiles=True if fine_tiles is None else fine_tiles,
                      sure_unshifted=None if every_view else SURE_UNSHIFTED)


_READER: CardReader | None = None
_READER_LOCK = threading.Lock()


def get_reader() -> CardReader:
    """The process-wide reader, loaded on first use and shared by all requests."""
    global _READER
    with _READER_LOCK:
        if _READER is None:
            _READER = CardReader()
        return _READER
