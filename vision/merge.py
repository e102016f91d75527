"""From read corner indices to physical cards.

A regular card shows the same index in two opposite corners, so all corners
read as one code are one card; since every card but WILD exists once, the
same code far apart in one photo is never counted twice: the fainter reading
is re-read as its next-likeliest code that no other card took, or dropped,
and either way a warning says so (two decks mixed, or a misread).  WILD has
three copies, so WILD corners are paired by distance: two corners of one
card lie within about one card diagonal of each other, which we estimate
from the index size.  A card resting on one faint corner is not reported.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from vision.yolo_data import box_iou

# A card's diagonal is ~5.5 index heights on standard decks (index ~20 mm,
# card 63 x 88 mm); jumbo indices make it smaller.  Corners further apart
# than this many index heights cannot be one card.
MAX_PAIR_DISTANCE_IN_INDEX_HEIGHTS = 9.0
WILD_COPIES = 3
MIN_CORNER_PROB = 0.45  # chosen on the tuning views only (real train photos as stored and enlarged to 12 MP, synth_val, synth_hr_val); see the model card
# Two corners this far apart (in index heights) and of similar size may be the
# two ends of one card; closer ones are neighbours in a cascade.
MIN_PAIR_DISTANCE_IN_INDEX_HEIGHTS = 2.2
# Nor can two corners be one card's two ends when another card's read index
# lies between them, within this many index heights of the line joining them:
# in a cascade or a fan the indices of the cards in between line up there,
# while the face between a card's own two ends shows no other index (unless a
# card lies across its middle; then only a WILD could be counted twice, since
# any other code is one card however its corners pair).  Without it, two WILDs a
# few cards apart in a cascade were taken for one card's two ends, and a sure
# 3D was fused with an 8D three cards along and re-read as that 8D.  Chosen on
# the tuning views with f238029's weights: synth_hr_val 0.9664 -> 0.9695
# (missed 52 -> 46, false 15 -> 15), synth_val 0.7783 -> 0.7828, the real
# training photos (as stored and enlarged) tied; the same from 0.5 to 0.75,
# and from 0.5 to 1.25 on synth_hr_val.
BETWEEN_LINE_IN_INDEX_HEIGHTS = 0.75
FUSED_MIN_PROB = 0.5
# A regular card read twice far apart: the fainter reading is re-read as its
# next-likeliest code no other card took, if that scores at least this
# (``_reread_repeats``).  Chosen on the tuning views with the shipped weights:
# synth_hr_val 0.9605 -> 0.9610 and synth_val 0.7651 -> 0.7654 at 0.2, the
# real training photos (as stored and enlarged) unchanged; at 0.1 and below
# wrong guesses outnumber the right ones on synth_val and synth_hr_val.
REREAD_MIN_PROB = 0.2
# A card read at least this surely rules its code out of corners elsewhere in
# the photo (``rule_out_taken``).  Chosen on the tuning views with 701ae62's
# weights: synth_val 0.7898 -> 0.7909 (three more cards read, all right, none
# lost or added wrongly), synth_hr_val and the real training photos (as
# stored and enlarged) unchanged; the same from 0.3 to 0.5 (two cards from
# 0.6 up).
TAKEN_MIN_CONFIDENCE = 0.5
# A card resting on one read corner needs at least this confidence (the
# corner's probability weighed by the detector's score, ``ReadCorner.confidence``);
# a card whose two ends agree needs no more than MIN_CORNER_PROB.  Faint lone
# corners are mostly court artwork read as an optional card (NODECLARE0 at
# 0.27 and 0.32 on the real photos, whose deck has no optional cards).
# Chosen on the tuning views at corner threshold 0.45.  With 9289992's
# classifier 0.35 (against no floor: the real training photos enlarged to
# 12 MP 0.9929 -> 0.9953, synth_hr_val 0.9641 -> 0.9655, synth_val 0.7740 ->
# 0.7722).  f238029's 1.5x-wide classifier is surer of itself: one
# false alarm of detector score 0.11 beside a J of spades reads NODECLARE0 at
# 0.65 (confidence 0.395), so the floor rose to 0.4 (enlarged 0.9941 -> 0.9953,
# synth_hr_val 0.9660 -> 0.9664, synth_val 0.7788 -> 0.7783, as stored tied;
# a plateau from 0.4 to 0.45 on the first two).
MIN_SINGLE_CORNER_CONFIDENCE = 0.4
# One printed index is one card: when two boxes on one index are read as
# different codes, only the surer reading stands (``one_reading_per_index``).
# Two boxes of one code on one index were already one corner
# (``_one_per_index``); two of different codes made two cards, one of them
# false: on a real validation photo turned 90 degrees a loose box on a 5H's
# index read 6H at 0.61 (detector score 0.18) beside the tight box's 5H at
# 0.73.  "One index" is a box overlap (IoU) of at least SAME_INDEX_IOU, not
# ``_same_index``'s centre-inside test: a partly covered index in a tight
# cascade has its centre inside the next card's box, and that test lost 7
# such cards on synth_hr_val.  Chosen on the tuning views (2026-12-04, the
# shipped weights): synth_hr_val 0.9771 -> 0.9791 at 0.3-0.4 (false cards
# 12 -> 8, the same 34 missed; 0.9781 at 0.5, 0.9776 at 0.7, and at 0.2
# 0.9780 with 5 more missed), synth_val 0.7940 -> 0.7951, the real training
# photos as stored and enlarged tied (0.9953).  0.4: the plateau's end
# furthest from where covered cards are lost.
ONE_READING_PER_INDEX = True
SAME_INDEX_IOU = 0.4


@dataclass(frozen=True)
class ReadCorner:
    """A corner index with what the classifier read: the reader's unit of evidence."""

    box: tuple[float, float, float, float]
    code: str
    prob: float          # classifier probability of ``code``
    score: float = 1.0   # detector confidence
    top: tuple[tuple[str, float], ...] = ()  # the classifier's likeliest codes, best first
    fused: bool = False  # read together with its card's other end (prob is the joint reading)

    def prob_of(self, code: str) -> float | None:
        for c, p in self.top or ((self.code, self.prob),):
            if c == code:
                return p
        return None

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def size(self) -> float:
        return max(self.box[2] - self.box[0], self.box[3] - self.box[1])

    @property
    def confidence(self) -> float:
        return self.prob * min(1.0, 0.5 + self.score)


@dataclass(frozen=True)
class MergedCard:
    code: str
    confidence: float
    box: tuple[float, float, float, float]
    corners: tuple[ReadCorner, ...] = field(default=())


def _distance(a: ReadCorner, b: ReadCorner) -> float:
    return math.dist(a.center, b.center)


def _could_pair(a: ReadCorner, b: ReadCorner) -> bool:
    return _distance(a, b) <= MAX_PAIR_DISTANCE_IN_INDEX_HEIGHTS * max(a.size, b.size)


def _ends_apart(a: ReadCorner, b: ReadCorner, marks: Sequence[ReadCorner]) -> bool:
    """As far apart as the two ends of one card, with no other card's index between them.

    Not side by side, not out of reach, and none of ``marks`` (the photo's
    read indices, ``_index_marks``) on the stretch between them: see
    BETWEEN_LINE_IN_INDEX_HEIGHTS.
    """
    return _at_card_ends_distance(a, b) and _nothing_between(a, b, marks)


def _at_card_ends_distance(a: ReadCorner, b: ReadCorner) -> bool:
    """Not side by side and not out of reach: as far apart as one card's two ends can be."""
    size = max(a.size, b.size)
    return MIN_PAIR_DISTANCE_IN_INDEX_HEIGHTS * size <= _distance(a, b) <= MAX_PAIR_DISTANCE_IN_INDEX_HEIGHTS * size


def _nothing_between(a: ReadCorner, b: ReadCorner, marks: Sequence[ReadCorner]) -> bool:
    """None of ``marks`` on the stretch from ``a`` to ``b`` (marks on ``a`` or ``b`` themselves aside)."""
    return not any(_lies_between(a, b, c) for c in marks
                   if not (_same_index(c, a) or _same_index(c, b)))


def _lies_between(a: ReadCorner, b: ReadCorner, c: ReadCorner) -> bool:
    """Whether ``c`` sits on the stretch from ``a`` to ``b``: past their boxes, near the line."""
    (ax, ay), (bx, by), (cx, cy) = a.center, b.center, c.center
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    if length == 0:
        return False
    along = ((cx - ax) * dx + (cy - ay) * dy) / length
    across = abs((cx - ax) * dy - (cy - ay) * dx) / length
    margin = 0.1 * length
    return margin <= along <= length - margin and across <= BETWEEN_LINE_IN_INDEX_HEIGHTS * max(a.size, b.size)


def _card(code: str, corners: list[ReadCorner]) -> MergedCard:
    miss = 1.0
    for c in corners:
        if not c.fused:
            miss *= 1.0 - c.confidence
    fused = [c.confidence for c in corners if c.fused]
    if fused:  # a fused pair already holds both ends' evidence: count it once
        miss *= 1.0 - max(fused)
    # two agreeing corners make a read surer than either alone (noisy-or)
    confidence = 1.0 - miss
    box = (min(c.box[0] for c in corners), min(c.box[1] for c in corners),
           max(c.box[2] for c in corners), max(c.box[3] for c in corners))
    return MergedCard(code, round(confidence, 4), box, tuple(corners))


def _joint(a: ReadCorner, b: ReadCorner) -> tuple[str, float]:
    """The code both corners most likely show, and its probability, if they are one card.

    Only a code among *both* corners' likeliest readings can be the joint
    one.  A code that one corner does not even consider would otherwise win
    on the other corner's certainty alone: a blurred box on a court card's
    art, read as nothing in particular, was taken over by a sure 2S nearby
    and stretched that card's box across two cards.  ``("JUNK", 0.0)`` when
    the two share no code.
    """
    codes_a = {c for c, _ in (a.top or ((a.code, a.prob),))}
    codes_b = {c for c, _ in (b.top or ((b.code, b.prob),))}
    shared = sorted(codes_a & codes_b)
    if not shared:
        return "JUNK", 0.0
    floor_a = min((p for _, p in a.top), default=a.prob) * 0.5
    floor_b = min((p for _, p in b.top), default=b.prob) * 0.5
    joint = {}
    for c in codes_a | codes_b:  # the unshared codes still weigh against the shared ones
        pa, pb = a.prob_of(c), b.prob_of(c)
        joint[c] = (floor_a if pa is None else pa) * (floor_b if pb is None else pb)
    total = sum(joint.values()) or 1.0
    best = max(shared, key=lambda c: joint[c])
    return best, joint[best] / total


def fuse_card_ends(corners: list[ReadCorner], marks: Sequence[ReadCorner]) -> list[ReadCorner]:
    """Read the two corner indices of one card together.

    A card shows its index twice, at opposite corners about a card's
    diagonal apart.  When two corners sit at that distance and their
    readings agree on a code more strongly together than either does alone,
    both take the joint reading: one blurred corner is rescued by its twin.
    Each corner fuses at most once, strongest agreement first.  ``marks``
    are the photo's read indices (``_index_marks``): no two corners with one
    of them in between are taken for one card's ends.
    """
    candidates = []
    for i, a in enumerate(corners):
        for j in range(i + 1, len(corners)):
            b = corners[j]
            if min(a.size, b.size) < 0.6 * max(a.size, b.size) or not _at_card_ends_distance(a, b):
                continue
            code, p = _joint(a, b)
            if code == "JUNK" or p < FUSED_MIN_PROB or p <= max(a.prob, b.prob):
                continue
            # last, as the dearest test: it scans every mark, and on a crowded photo most pairs
            # at a card's reach fail on their readings already (the 20-card bench fixture:
            # merging 68 -> 13 ms, the same cards as before on 798 tuning photos)
            if _nothing_between(a, b, marks):
                candidates.append((-p, i, j, code))
    out = list(corners)
    used: set[int] = set()
    for neg_p, i, j, code in sorted(candidates):
        if i in used or j in used:
            continue
        used.update((i, j))
        for k in (i, j):
            c = corners[k]
            out[k] = ReadCorner(c.box, code, -neg_p, c.score, c.top, fused=True)
    return out


def _index_marks(corners: list[ReadCorner]) -> list[ReadCorner]:
    """The corners that mark a card's index, as read before fusing: what may lie between two ends."""
    return [c for c in corners if counts_as_read(c)]


def counts_as_read(c: ReadCorner) -> bool:
    """A corner read surely enough to stand for a card: not JUNK, and at least MIN_CORNER_PROB."""
    return c.code != "JUNK" and c.prob >= MIN_CORNER_PROB


def stands_alone(card: MergedCard) -> bool:
    """Whether a merged card is sure enough to report: two corners, or one at MIN_SINGLE_CORNER_CONFIDENCE."""
    return len(card.corners) > 1 or card.confidence >= MIN_SINGLE_CORNER_CONFIDENCE


def merge_corners(corners: list[ReadCorner]) -> tuple[list[MergedCard], list[str]]:
    """Group read corners into cards; return the cards and any warnings.

    Merged a second time when sure cards rule their codes out of corners
    elsewhere in the photo (``rule_out_taken``): those corners are then read
    as what else they could be.
    """
    cards, warnings = _merge(corners)
    ruled = rule_out_taken(corners, cards)
    if not ruled:
        return cards, warnings
    before = corners
    corners = [ruled[i] if i in ruled else c for i, c in enumerate(corners)]
    cards, warnings = _merge(corners)
    in_cards = {c.box: card.code for card in cards for c in card.corners}
    unplaced: dict[str, list[ReadCorner]] = {}
    for i in sorted(ruled):
        old = before[i]
        now = in_cards.get(old.box)  # never old.code: that code was taken out of the corner's readings
        if now is not None:
            warnings.append(f"{now}: a corner looked most like {old.code}, but the deck's one {old.code} is "
                            f"read elsewhere in this photo, so it is taken as {now} — check that card")
        elif counts_as_read(old):
            unplaced.setdefault(old.code, []).append(old)
    for code, seen in unplaced.items():
        warnings.append(f"{code} appears {1 + len(_clusters(seen))} times in this photo, but the deck has one "
                        f"{code}: counted once — check for a second deck or a misread card")
    return cards, list(dict.fromkeys(warnings))


def _clusters(corners: list[ReadCorner]) -> list[list[ReadCorner]]:
    """Corners grouped by reach: those within a card's reach of each other are one card's."""
    groups: list[list[ReadCorner]] = []
    for c in corners:
        near = [g for g in groups if any(_could_pair(c, x) for x in g)]
        merged = [c] + [x for g in near for x in g]
        groups = [g for g in groups if g not in near] + [merged]
    return groups


def rule_out_taken(corners: Sequence[ReadCorner], cards: Sequence[MergedCard]) -> dict[int, ReadCorner]:
    """Corners whose best code a sure card elsewhere already holds, re-read without the codes taken.

    A deck has one of each regular card.  When a card is read surely
    (confidence TAKEN_MIN_CONFIDENCE) and a corner out of its reach reads as
    the same code, the corner is some other card: its readings are
    conditioned on not being any card that a sure card out of its reach
    already is (those codes' probability removed, the rest renormalised).
    Its likeliest code left must score REREAD_MIN_PROB before renormalising,
    as ``_reread_repeats`` asks of a fainter copy's next reading, and must not
    be JUNK; otherwise the corner is left as it was.  ``_reread_repeats``
    weighs the next reading at its raw probability, so a corner read
    9C 0.48 / 9D 0.25 far from a sure 9C made a 9D at 0.25, under the
    lone-corner floor; conditioned, it is the 9D at 0.48.  It also reaches
    corners too faint to count as the taken code.  Three such cards are found
    on the tuning scenes, none wrongly.  Returns {position in ``corners``:
    the re-read corner}.
    """
    sure = [card for card in cards if card.code != "WILD" and card.confidence >= TAKEN_MIN_CONFIDENCE]
    if not sure:
        return {}
    own = {c.box for card in sure for c in card.corners}
    out: dict[int, ReadCorner] = {}
    for i, c in enumerate(corners):
        if c.box in own or c.code == "JUNK" or not c.top:
            continue
        taken = {card.code for card in sure if not any(_could_pair(c, x) for x in card.corners)}
        if c.code not in taken:
            continue
        left = [(code, p) for code, p in c.top if code not in taken]
        removed = sum(p for code, p in c.top if code in taken)
        if not left or left[0][0] == "JUNK" or left[0][1] < REREAD_MIN_PROB:
            continue  # nothing else it could be: left to _reread_repeats, which drops a repeat with a warning
        # the readings sum to at most 1, so with REREAD_MIN_PROB left over, removed is under 1
        left = [(code, p / (1.0 - removed)) for code, p in left]
        out[i] = ReadCorner(c.box, left[0][0], left[0][1], c.score, tuple(left), c.fused)
    return out


def _merge(corners: list[ReadCorner]) -> tuple[list[MergedCard], list[str]]:
    marks = _index_marks(corners)
    corners = fuse_card_ends(corners, marks)
    warnings: list[str] = []
    by_code: dict[str, list[ReadCorner]] = {}
    read = [c for c in corners if counts_as_read(c)]
    for c in one_reading_per_index(read) if ONE_READING_PER_INDEX else read:
        by_code.setdefault(c.code, []).append(c)
    cards: list[MergedCard] = []
    repeats: list[tuple[str, list[list[ReadCorner]]]] = []
    for code, group in by_code.items():
        group.sort(key=lambda c: -c.confidence)
        group = _one_per_index(group)
        if code == "WILD":
            wilds = [w for w in (_card(code, cl) for cl in _pair_up(group, marks)) if stands_alone(w)]
            if len(wilds) > WILD_COPIES:
                warnings.append(f"{len(wilds)} WILDCARDs seen but a deck has only {WILD_COPIES}; "
                                f"kept the {WILD_COPIES} clearest — check the photo")
                wilds = wilds[:WILD_COPIES]  # _pair_up lists the clearest first
            cards.extend(wilds)
            continue
        clusters = _pair_up(group, marks)
        main = clusters[0]
        # a third reading within a card's reach of the first is the same card seen again, not a second copy
        far = []
        for cl in clusters[1:]:
            if any(_could_pair(a, b) for a in cl for b in main):
                main = main + cl
            else:
                far.append(cl)
        if far:
            repeats.append((code, far))
        card = _card(code, main)
        if stands_alone(card):
            cards.append(card)
    cards.extend(_reread_repeats(repeats, {c.code for c in cards}, warnings))
    cards.sort(key=lambda c: (c.box[0], c.box[1]))
    return cards, warnings


def _reread_repeats(repeats: list[tuple[str, list[list[ReadCorner]]]], taken: set[str],
                    warnings: list[str]) -> list[MergedCard]:
    """Cards for the fainter copies of a regular card seen twice, read as their next-likeliest unseen code.

    The deck has one of each regular card, so when a code is read at two
    places out of one card's reach, the fainter reading is most likely a
    misread of another card -- on the tuning scenes, nearly always the same
    rank in another suit.  That cluster becomes the likeliest code among its
    corners' top readings that no other card in the photo took, when it
    scores at least REREAD_MIN_PROB; it is flagged for a person to check.
    Otherwise it is dropped, as before, with a warning.
    """
    out: list[MergedCard] = []
    for code, far in repeats:
        dropped = 0
        for cluster in far:
            alt, prob = _next_reading(cluster, taken | {code})
            card = None if alt is None else _card(alt, [ReadCorner(c.box, alt, prob, c.score, c.top) for c in cluster])
            if card is None or not stands_alone(card):
                dropped += 1
                continue
            taken.add(alt)
            out.append(card)
            warnings.append(f"{code} was read twice, but the deck has one {code}: the fainter reading "
                            f"is taken as {alt}, its next-likeliest code — check that card")
        if dropped:
            warnings.append(f"{code} appears {dropped + 1} times in this photo, but the deck has one {code}: "
                            "counted once — check for a second deck or a misread card")
    return out


def _next_reading(cluster: list[ReadCorner], taken: set[str]) -> tuple[str | None, float]:
    """The likeliest code of ``cluster`` that is neither JUNK nor in ``taken``, if it scores REREAD_MIN_PROB."""
    best: dict[str, float] = {}
    for c in cluster:
        for alt, p in c.top:
            if alt != "JUNK" and alt not in taken:
                best[alt] = max(best.get(alt, 0.0), p)
    if not best:
        return None, 0.0
    alt = max(best, key=best.get)
    return (alt, best[alt]) if best[alt] >= REREAD_MIN_PROB else (None, 0.0)


def _same_index(a: ReadCorner, b: ReadCorner) -> bool:
    """Two boxes on one printed index: the centre of either lies inside the other.

    The detector sometimes keeps two overlapping boxes on one index (from the
    whole photo and a tile, or a loose and a tight box).  Indices of two
    different cards never overlap that much: a card hides what it covers.
    """
    def inside(p, box):
        return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]
    return inside(a.center, b.box) or inside(b.center, a.box)


def one_reading_per_index(read: list[ReadCorner]) -> list[ReadCorner]:
    """``read`` less each corner that lies on the same index as a surer corner read as another code.

    A printed index shows one card, so of two readings of it (two boxes, two
    codes) one is wrong; the surer one (``ReadCorner.confidence``: the
    classifier's probability weighed by the detector's score) is kept.  Boxes
    of one code on one index are left to ``_one_per_index``.  Order is kept.
    """
    order = sorted(range(len(read)), key=lambda i: -read[i].confidence)
    kept: list[int] = []
    for i in order:
        c = read[i]
        if not any(read[k].code != c.code and box_iou(c.box, read[k].box) >= SAME_INDEX_IOU for k in kept):
            kept.append(i)
    return [read[i] for i in sorted(kept)]


def _one_per_index(group: list[ReadCorner]) -> list[ReadCorner]:
    """Drop repeat boxes on one index, keeping the surest (``group`` is surest first).

    Without this a WILD index boxed twice became two WILD cards, and any
    card's confidence counted one index as two agreeing corners.
    """
    kept: list[ReadCorner] = []
    for c in group:
        if not any(_same_index(c, k) for k in kept):
            kept.append(c)
    return kept


def _pair_up(group: list[ReadCorner], marks: Sequence[ReadCorner]) -> list[list[ReadCorner]]:
    """Greedy pairing of corners of the same code into physical cards (closest pairs first).

    Two ends of one card lie between MIN_ and MAX_PAIR_DISTANCE index heights
    apart, with none of ``marks`` (the photo's read indices) between them.
    """
    remaining = list(range(len(group)))
    pairs = sorted(((_distance(group[i], group[j]), i, j) for i in remaining for j in remaining if i < j))
    used: set[int] = set()
    clusters: list[list[ReadCorner]] = []
    for _, i, j in pairs:
        if i in used or j in used or not _ends_apart(group[i], group[j], marks):
            continue  # side by side, out of reach, or with another card's index between: not one card's ends
        used.update((i, j))
        clusters.append([group[i], group[j]])
    clusters.extend([group[i]] for i in remaining if i not in used)
    clusters.sort(key=lambda cl: -max(c.confidence for c in cl))
    return clusters
