"""One meld at a time: every kind the rules allow, and a newcomer-friendly
reason for each refusal."""

import pytest

from companion.errors import MeldError
from companion.melds import check_meld, explain_meld, is_meld


def cards(text):
    return text.split()


@pytest.mark.parametrize("text,kind", [
    ("7S 7C 7D", "group"),
    ("7S 7C 7D 7H", "group"),
    ("7S 7C WILD", "group"),                      # the sheet: 7, 7, WILDCARD
    ("7S WILD WILD WILD", "group"),               # 7 W W W
    ("7S 7C WILD WILD WILD", "group"),            # 7 7 W W W
    ("7S 7C 7D 7H WILD", "group"),                # more than four cards
    ("WILD WILD WILD", "group"),                  # W W W
    ("5H 6H 7H", "sequence"),
    ("5H 6H WILD", "sequence"),                   # the sheet: 5, 6 of hearts, WILDCARD
    ("AH 2H 3H", "sequence"),                     # ace low
    ("QD KD AD", "sequence"),                     # ace high
    ("5H WILD 7H", "sequence"),                   # a WILD fills a gap
    ("5H 9H WILD WILD WILD", "sequence"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH WILD", "sequence"),   # 14 long
    ("COUNT1 COUNT2 COUNT3", "count"),
    ("COUNT1 COUNT2 COUNT3 COUNT4 COUNT7 COUNT12", "count"),
    ("COUNT7 WILD WILD", "count"),
    ("COUNT7 COUNT12 WILD", "count"),
    ("COUNT1 COUNT2 COUNT3 WILD WILD WILD", "count"),
])
def test_valid_melds(text, kind):
    meld = check_meld(cards(text))
    assert meld.kind == kind
    assert sorted(meld.cards) == sorted(check_meld(cards(text)).cards)
    ok, why = explain_meld(cards(text))
    assert ok and why


@pytest.mark.parametrize("text,reason", [
    ("KH AH 2H", "K A 2 wraps around: a sequence never wraps"),
    ("QH AH 2H WILD", "wraps around"),
    ("KH 2H WILD", "K A 2 wraps around"),
    ("5H 6H 7H 7S 7C", "groups and sequences don't mix"),
    ("5H 6S 7D", "a sequence is all one suit"),
    ("NOMELD2 WILD WILD", "NO MELD 2 never melds"),
    ("NOMELD0 5H 5S", "NO MELD 0 never melds"),
    ("NODECLARE0 WILD WILD", "CAN'T DECLARE 0 never melds"),
    ("7S 7C", "a meld needs at least 3 cards"),
    ("WILD WILD", "a meld needs at least 3 cards"),
    ("", "a meld needs at least 3 cards"),
    ("COUNT7 5H 5S", "COUNT cards never meld with regular cards"),
    ("COUNT7 COUNT1", "at least 3 cards"),
    ("5H 9H WILD", "not consecutive: filling the gaps needs 3 WILDs and there is 1 WILD"),
    ("5H 7H 9H", "filling the gaps needs 2 WILDs and there is no WILD"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH WILD WILD", "at most 14 cards"),
    ("7H 7H 7S", "appears twice"),
])
def test_refusals_explain_why(text, reason):
    ok, why = explain_meld(cards(text))
    assert not ok
    assert reason in why
    with pytest.raises(MeldError) as e:
        check_meld(cards(text))
    assert reason in str(e.value)
    assert not is_meld(cards(text))


def test_wild_stands_for_a_card_even_one_held_elsewhere():
    meld = check_meld(cards("5H 6H WILD"))
    assert [str(c) for c in meld.cards] == ["5H", "6H", "WILD"]
    assert str(meld.stands_for[2]) == "7H"
    assert meld.describe() == "sequence 5H 6H WILD(=7H)"
    gap = check_meld(cards("WILD 7H 5H"))
    assert [str(c) for c in gap.cards] == ["5H", "WILD", "7H"]
    assert str(gap.stands_for[1]) == "6H"


def test_ace_high_and_spare_wilds_extend_downward_at_the_top():
    meld = check_meld(cards("KH AH WILD"))
    assert [str(c) for c in meld.stands_for] == ["QH", "KH", "AH"]
    assert meld.start == 12


def test_input_order_does_not_matter():
    assert check_meld(cards("7H 5H 6H")) == check_meld(cards("5H 6H 7H"))
    assert check_meld(cards("WILD 7D 7S")) == check_meld(cards("7S 7D WILD"))


def test_meld_json():
    assert check_meld(cards("QD KD AD")).to_json() == {"kind": "sequence",
                                                      "cards": ["QD", "KD", "AD"]}


def test_explanations_for_valid_melds():
    assert explain_meld(cards("7S 7C WILD")) == (True, "a group of 7s")
    assert explain_meld(cards("QD KD AD")) == (True, "a sequence of diamonds from Q to A")
    assert explain_meld(cards("WILD WILD WILD")) == (True, "a group of WILDs")
