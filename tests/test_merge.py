"""Corner merging on hand-made detections: two corners are one card, WILDs pair by distance."""
from vision.merge import (MIN_CORNER_PROB, MIN_SINGLE_CORNER_CONFIDENCE, REREAD_MIN_PROB, TAKEN_MIN_CONFIDENCE,
                          ReadCorner, merge_corners, rule_out_taken)


def corner(code, x, y, size=20, prob=0.95):
    return ReadCorner((x, y, x + size * 0.7, y + size), code, prob, 0.9)


def test_two_corners_of_one_card_are_one_card():
    cards, warnings = merge_corners([corner("7H", 0, 0), corner("7H", 60, 90)])
    assert [c.code for c in cards] == ["7H"]
    assert warnings == []
    assert cards[0].box == (0, 0, 60 + 14, 90 + 20)


def test_agreeing_corners_raise_confidence():
    one, _ = merge_corners([corner("7H", 0, 0, prob=0.8)])
    two, _ = merge_corners([corner("7H", 0, 0, prob=0.8), corner("7H", 60, 90, prob=0.8)])
    assert two[0].confidence > one[0].confidence


def test_three_wild_cards_count_as_three():
    cs = []
    for i in range(3):
        x = i * 400
        cs += [corner("WILD", x, 0), corner("WILD", x + 60, 90)]
    cards, warnings = merge_corners(cs)
    assert [c.code for c in cards] == ["WILD"] * 3
    assert warnings == []


def test_wild_with_one_corner_hidden_still_counts():
    cards, _ = merge_corners([corner("WILD", 0, 0), corner("WILD", 60, 90), corner("WILD", 500, 0)])
    assert [c.code for c in cards] == ["WILD", "WILD"]


def test_a_fourth_wild_is_a_warning_not_a_card():
    cs = [corner("WILD", i * 400, 0) for i in range(4)]
    cards, warnings = merge_corners(cs)
    assert len(cards) == 3
    assert "only 3" in warnings[0]


def test_regular_card_seen_twice_far_apart_is_counted_once_with_warning():
    cards, warnings = merge_corners([corner("QS", 0, 0), corner("QS", 1000, 0)])
    assert [c.code for c in cards] == ["QS"]
    assert "QS appears 2 times" in warnings[0]


def read_as(code, x, y, top, size=20):
    """A corner whose classifier readings are ``top`` [(code, prob)], best first."""
    return ReadCorner((x, y, x + size * 0.7, y + size), code, top[0][1], 0.9, tuple(top))


def test_fainter_copy_of_a_card_seen_twice_is_read_as_its_next_likeliest_code():
    cards, warnings = merge_corners([read_as("3S", 0, 0, [("3S", 0.95), ("3C", 0.03)]),
                                     read_as("3S", 1000, 0, [("3S", 0.5), ("3D", 0.4), ("8S", 0.05)])])
    assert [c.code for c in cards] == ["3S", "3D"]
    assert cards[1].box[0] == 1000
    assert cards[1].confidence < cards[0].confidence
    assert "taken as 3D" in warnings[0] and "check that card" in warnings[0]


def sure_9c():
    """A 9C read at both ends: sure enough to rule its code out elsewhere."""
    return [read_as("9C", 0, 0, [("9C", 0.97)]), read_as("9C", 60, 90, [("9C", 0.95)])]


def test_a_faint_corner_of_a_code_read_surely_elsewhere_is_read_as_what_else_it_could_be():
    faint = read_as("9C", 1000, 0, [("9C", 0.40), ("9D", 0.33), ("9S", 0.1), ("JUNK", 0.05)])
    assert faint.prob < MIN_CORNER_PROB  # on its own it would not count at all
    assert [c.code for c in merge_corners([faint])[0]] == []
    cards, warnings = merge_corners(sure_9c() + [faint])
    assert sorted(c.code for c in cards) == ["9C", "9D"]
    nine_d = next(c for c in cards if c.code == "9D")
    assert nine_d.box[0] == 1000 and abs(nine_d.corners[0].prob - 0.33 / 0.60) < 1e-9  # conditioned on not 9C
    assert warnings == ["9D: a corner looked most like 9C, but the deck's one 9C is read elsewhere in this "
                        "photo, so it is taken as 9D — check that card"]


def test_a_repeat_is_weighed_by_its_next_reading_given_the_code_is_taken():
    """Raw, 9D 0.25 would be under the lone-corner floor; given it is not the 9C, it is the 9D at 0.48."""
    repeat = read_as("9C", 1000, 0, [("9C", 0.48), ("9D", 0.25), ("9S", 0.07), ("JC", 0.06)])
    assert 0.25 < MIN_SINGLE_CORNER_CONFIDENCE
    cards, _ = merge_corners(sure_9c() + [repeat])
    assert sorted(c.code for c in cards) == ["9C", "9D"]


def test_only_sure_cards_rule_codes_out_and_only_out_of_their_reach():
    faint = read_as("9C", 1000, 0, [("9C", 0.40), ("9D", 0.33)])
    unsure = [read_as("9C", 0, 0, [("9C", 0.46)])]  # a card, but not sure enough to rule its code out
    cards, _ = merge_corners(unsure)
    assert [c.code for c in cards] == ["9C"] and cards[0].confidence < TAKEN_MIN_CONFIDENCE
    assert rule_out_taken(unsure + [faint], cards) == {}
    near = read_as("9C", 30, 40, [("9C", 0.40), ("9D", 0.33)])  # within the sure card's reach: the card again
    cards, _ = merge_corners(sure_9c())
    assert rule_out_taken(sure_9c() + [near], cards) == {}
    assert list(rule_out_taken(sure_9c() + [faint], cards)) == [2]
    # WILD has three copies: a sure one rules nothing out
    wilds = [read_as("WILD", 0, 0, [("WILD", 0.97)]), read_as("WILD", 60, 90, [("WILD", 0.97)])]
    other = read_as("WILD", 1000, 0, [("WILD", 0.40), ("COUNT7", 0.33)])
    cards, _ = merge_corners(wilds)
    assert rule_out_taken(wilds + [other], cards) == {}


def test_a_ruled_out_repeat_too_faint_to_be_another_card_is_counted_once_with_a_warning():
    repeat = read_as("3S", 1000, 0, [("3S", 0.5), ("3D", 0.2), ("3C", 0.15), ("3H", 0.15)])
    cards, warnings = merge_corners([read_as("3S", 0, 0, [("3S", 0.95)]), repeat])
    assert [c.code for c in cards] == ["3S"]  # the 3D, 0.4 once the 3S is out, is under the corner threshold
    assert warnings == ["3S appears 2 times in this photo, but the deck has one 3S: counted once — check for "
                        "a second deck or a misread card"]


def test_repeat_is_not_re_read_as_a_code_another_card_took():
    cards, warnings = merge_corners([read_as("3S", 0, 0, [("3S", 0.95)]),
                                     read_as("3D", 500, 0, [("3D", 0.9)]),
                                     read_as("3S", 1000, 0, [("3S", 0.6), ("3D", 0.3), ("JUNK", 0.09)])])
    assert sorted(c.code for c in cards) == ["3D", "3S"]
    assert "3S appears 2 times" in warnings[0]


def test_repeat_whose_next_reading_is_faint_is_dropped_with_a_warning():
    faint = REREAD_MIN_PROB * 0.9
    cards, warnings = merge_corners([read_as("3S", 0, 0, [("3S", 0.95)]),
                                     read_as("3S", 1000, 0, [("3S", 0.8), ("3D", faint)])])
    assert [c.code for c in cards] == ["3S"]
    assert "3S appears 2 times" in warnings[0]


def test_a_faint_lone_corner_is_no_card_but_two_agreeing_faint_corners_are():
    prob, score = 0.5, 0.1  # passes the corner threshold, but prob * (0.5 + score) = 0.3 is under the floor
    assert prob >= MIN_CORNER_PROB
    lone = ReadCorner((0, 0, 14, 20), "NODECLARE0", prob, score)
    assert lone.confidence < MIN_SINGLE_CORNER_CONFIDENCE
    assert merge_corners([lone])[0] == []
    twin = ReadCorner((60, 90, 74, 110), "NODECLARE0", prob, score)
    assert [c.code for c in merge_corners([lone, twin])[0]] == ["NODECLARE0"]


def test_faint_lone_wilds_do_not_count_towards_the_three_copies():
    sure = [corner("WILD", i * 400, 0) for i in range(3)]
    faint = ReadCorner((2000, 0, 2014, 20), "WILD", MIN_CORNER_PROB + 0.01, 0.0)
    cards, warnings = merge_corners(sure + [faint])
    assert [c.code for c in cards] == ["WILD"] * 3
    assert warnings == []


def test_junk_and_unsure_corners_are_dropped():
    cards, _ = merge_corners([corner("JUNK", 0, 0), corner("5D", 100, 0, prob=0.1), corner("5C", 300, 0)])
    assert [c.code for c in cards] == ["5C"]


def test_cards_sorted_left_to_right():
    cards, _ = merge_corners([corner("KD", 300, 0), corner("2S", 0, 0), corner("9C", 150, 0)])
    assert [c.code for c in cards] == ["2S", "9C", "KD"]


def test_vision_classes_agree_with_engine_notation():
    from vision.classes import CARD_CODES
    assert len(CARD_CODES) == 62 and len(set(CARD_CODES)) == 62
    try:
        from companion.cards import Card
    except ImportError:  # engine not importable: nothing to compare
        return
    for code in CARD_CODES:
        assert str(Card.parse(code)) == code


def test_two_unsure_ends_of_one_card_are_read_together():
    # each end alone is below the reader's threshold; together they agree on 8S
    pa, pb = MIN_CORNER_PROB - 0.02, MIN_CORNER_PROB - 0.05
    # the rest of each corner's belief is spread thinly over other codes
    a = ReadCorner((0, 0, 14, 20), "8S", pa, 0.9, (("8S", pa), ("8C", 0.1), ("3S", 0.05)))
    b = ReadCorner((60, 90, 74, 110), "8S", pb, 0.9, (("8S", pb), ("8C", 0.1), ("6S", 0.05)))
    assert max(a.prob, b.prob) < MIN_CORNER_PROB
    alone, _ = merge_corners([a])
    assert alone == []
    cards, _ = merge_corners([a, b])
    assert [c.code for c in cards] == ["8S"]
    assert cards[0].confidence > MIN_CORNER_PROB


def test_confident_different_neighbours_are_not_fused():
    a = ReadCorner((0, 0, 14, 20), "8S", 0.95, 0.9, (("8S", 0.95), ("8C", 0.03)))
    b = ReadCorner((60, 90, 74, 110), "2H", 0.9, 0.9, (("2H", 0.9), ("AH", 0.05)))
    cards, _ = merge_corners([a, b])
    assert sorted(c.code for c in cards) == ["2H", "8S"]


def test_cascade_neighbours_too_close_to_be_one_card_are_not_fused():
    a = ReadCorner((0, 0, 14, 20), "5D", 0.65, 0.9, (("5D", 0.65), ("6D", 0.3)))
    b = ReadCorner((16, 0, 30, 20), "6D", 0.65, 0.9, (("6D", 0.65), ("5D", 0.3)))
    cards, _ = merge_corners([a, b])
    assert sorted(c.code for c in cards) == ["5D", "6D"]


def test_shipped_class_list_matches_the_code():
    import json
    from pathlib import Path

    from vision.classes import CARD_CODES
    from vision.index_crops import RANK_LABELS, SUIT_LABELS
    data = json.loads((Path(__file__).resolve().parents[1] / "models" / "classes.json").read_text())
    assert data["card_codes"] == list(CARD_CODES)
    assert data["classifier"]["rank_labels"] == list(RANK_LABELS)
    assert data["classifier"]["suit_labels"] == list(SUIT_LABELS)


def test_a_third_reading_on_the_same_card_is_not_a_second_copy():
    cards, warnings = merge_corners([corner("QH", 0, 0), corner("QH", 60, 90), corner("QH", 30, 45)])
    assert [c.code for c in cards] == ["QH"] and warnings == []


def test_one_wild_index_boxed_twice_is_one_wild_card():
    # the detector's loose and tight boxes on the same index, plus the card's other end
    loose = ReadCorner((-4, -4, 20, 26), "WILD", 0.8, 0.9)
    cards, warnings = merge_corners([corner("WILD", 0, 0), loose, corner("WILD", 60, 90)])
    assert [c.code for c in cards] == ["WILD"] and warnings == []


def test_wild_indices_of_two_cards_side_by_side_stay_two_cards():
    # a cascade: the next card's index sits one index width along, not on top
    cards, _ = merge_corners([corner("WILD", 0, 0), corner("WILD", 16, 0)])
    assert [c.code for c in cards] == ["WILD", "WILD"]


def test_a_repeat_box_does_not_count_as_a_second_agreeing_corner():
    once, _ = merge_corners([corner("7H", 0, 0, prob=0.8)])
    twice, _ = merge_corners([corner("7H", 0, 0, prob=0.8), corner("7H", 2, 2, prob=0.8)])
    assert twice[0].confidence == once[0].confidence


def test_a_code_one_corner_does_not_consider_is_not_forced_on_it():
    # the reader's case on the 2048 px fixture: a blurred box on a court card's art, read
    # as nothing in particular, lay a card's length from a sure 2S and was fused into it
    sure = ReadCorner((682, 1634, 769, 1671), "2S", 0.947, 0.9,
                      (("2S", 0.947), ("10S", 0.011), ("AS", 0.004), ("3S", 0.003), ("2C", 0.002)))
    vague = ReadCorner((1216, 795, 1294, 928), "KC", 0.324, 0.9,
                       (("KC", 0.324), ("KS", 0.151), ("JUNK", 0.130), ("QC", 0.1), ("KD", 0.09)))
    cards, _ = merge_corners([sure, vague])
    assert [c.code for c in cards] == ["2S"]
    assert cards[0].box == sure.box  # not stretched to the vague corner


def cascade(codes, step=30, size=20):
    """Corner indices of cards in a cascade: one index every ``step`` px down a line."""
    return [corner(code, 0, i * step, size) for i, code in enumerate(codes)]


def test_two_wilds_a_few_cards_apart_in_a_cascade_are_two_cards():
    # the synth_hr_val case: W, 9H, 8C, W down a cascade; the two WILDs sit a card's
    # length apart, but the indices between them show they are not one card's two ends
    cards, warnings = merge_corners(cascade(["WILD", "9H", "8C", "WILD"], step=40))
    assert sorted(c.code for c in cards) == ["8C", "9H", "WILD", "WILD"]
    assert warnings == []
    # with nothing between them, the same two indices are one card's two ends
    alone, _ = merge_corners([corner("WILD", 0, 0), corner("WILD", 0, 120)])
    assert [c.code for c in alone] == ["WILD"]


def test_a_sure_reading_is_not_fused_with_a_card_further_down_a_cascade():
    # the synth_hr_val case: a sure 3D whose runner-up readings include 8D, and an 8D
    # three cards along; as one card's two ends they would be read jointly as 8D (0.94)
    three = read_as("3D", 0, 0, [("3D", 0.862), ("4D", 0.029), ("8D", 0.026), ("3S", 0.018), ("2D", 0.009)])
    eight = read_as("8D", 0, 120, [("8D", 0.932), ("8S", 0.024), ("8C", 0.011), ("8H", 0.004), ("10D", 0.003)])
    fused, _ = merge_corners([three, eight])
    assert [c.code for c in fused] == ["8D"]  # nothing says they are not one card
    between = [corner("QS", 0, 40), corner("5H", 0, 80)]
    cards, _ = merge_corners([three, *between, eight])
    assert sorted(c.code for c in cards) == ["3D", "5H", "8D", "QS"]


def test_an_unread_box_between_two_ends_does_not_part_them():
    # a JUNK proposal on the card's artwork lies between its two ends: still one card
    art = ReadCorner((0, 55, 14, 75), "JUNK", 0.9, 0.5)
    cards, _ = merge_corners([corner("WILD", 0, 0), art, corner("WILD", 0, 120)])
    assert [c.code for c in cards] == ["WILD"]


def test_two_boxes_on_one_index_read_as_two_codes_are_one_card():
    """The reader's case on a real validation photo turned 90 degrees: a tight box on a 5H's index
    read 5H, a loose box around the same index read 6H; the 6H was a second, false card."""
    tight = ReadCorner((109, 357, 233, 426), "5H", 0.729, 0.656, (("5H", 0.729), ("6H", 0.163), ("5S", 0.019)))
    loose = ReadCorner((108, 324, 230, 425), "6H", 0.614, 0.181, (("6H", 0.614), ("5H", 0.168), ("6S", 0.09)))
    far_end = ReadCorner((370, 239, 471, 338), "5H", 0.294, 0.367, (("5H", 0.294), ("6H", 0.211), ("5S", 0.202)))
    cards, warnings = merge_corners([tight, far_end, loose])
    assert [c.code for c in cards] == ["5H"] and warnings == []
    # the surer reading wins whichever comes first, by the detector's score as well as the classifier's
    assert [c.code for c in merge_corners([loose, tight])[0]] == ["5H"]


def test_overlapping_indices_of_a_tight_cascade_stay_two_cards():
    # one card's index peeks out from under the next: the boxes touch, but overlap less than SAME_INDEX_IOU
    from vision.merge import SAME_INDEX_IOU
    from vision.yolo_data import box_iou

    under = ReadCorner((0, 0, 14, 20), "7H", 0.9, 0.9)
    over = ReadCorner((8, 0, 22, 20), "8H", 0.95, 0.9)
    assert 0 < box_iou(under.box, over.box) < SAME_INDEX_IOU
    assert sorted(c.code for c in merge_corners([under, over])[0]) == ["7H", "8H"]


def test_one_reading_per_index_keeps_order_and_same_code_repeats():
    from vision.merge import one_reading_per_index

    a = ReadCorner((0, 0, 14, 20), "7H", 0.6, 0.9)
    b = ReadCorner((1, 1, 15, 21), "7D", 0.9, 0.9)  # on a's index, surer: a goes
    c = ReadCorner((100, 0, 114, 20), "9S", 0.8, 0.9)
    d = ReadCorner((101, 0, 115, 20), "9S", 0.7, 0.9)  # same code on c's index: left to _one_per_index
    assert one_reading_per_index([a, b, c, d]) == [b, c, d]
    assert one_reading_per_index([]) == []
