"""Card notation: every spelling in INTERPRETATION.md, canonical round trips,
counts, the deck, and duplicate detection with helpful messages."""

import random

import pytest

from companion.cards import (ALL_KINDS, CARD_CODES, FULL_DECK, OPTIONAL_CARDS, REGULAR_CARDS,
                             WILD, Card, check_duplicates, check_table, parse_card, parse_cards,
                             parse_hand, split_tokens)
from companion.errors import CardParseError, DuplicateCardError, RummyError


@pytest.mark.parametrize("text,code", [
    ("10H", "10H"), ("TH", "10H"), ("th", "10H"), ("10h", "10H"), ("10♥", "10H"),
    ("10♡", "10H"), ("A♠", "AS"), ("a♤", "AS"), ("K♣", "KC"), ("K♧", "KC"), ("q♦", "QD"),
    ("Q♢", "QD"), ("js", "JS"), ("2c", "2C"), (" 9d ", "9D"), ("5♥\ufe0f", "5H"),
    ("COUNT 7", "COUNT7"), ("COUNT7", "COUNT7"), ("count 12", "COUNT12"), ("Count1", "COUNT1"),
    ("NO MELD 2", "NOMELD2"), ("NOMELD0", "NOMELD0"), ("no meld 0", "NOMELD0"),
    ("CAN'T DECLARE 0", "NODECLARE0"), ("CAN’T DECLARE 0", "NODECLARE0"),
    ("CANT DECLARE 0", "NODECLARE0"), ("cant declare 0", "NODECLARE0"),
    ("NODECLARE0", "NODECLARE0"), ("WILDCARD", "WILD"), ("wild", "WILD"), ("Wild Card", "WILD"),
])
def test_every_spelling(text, code):
    assert str(parse_card(text)) == code
    assert Card.parse(text) == parse_card(code)


def test_canonical_text_round_trips_for_every_card():
    assert len(ALL_KINDS) == 62
    for c in ALL_KINDS:
        assert parse_card(str(c)) == c
        if not c.is_regular:
            assert parse_card(c.name) == c                  # printed names parse too
        assert parse_card(c.symbol) == c
        assert str(c) in CARD_CODES


def test_card_codes_match_the_reader():
    from vision.classes import CARD_CODES as reader_codes
    assert tuple(reader_codes) == CARD_CODES


def test_counts_of_unmelded_cards():
    expect = {"AS": 1, "2H": 2, "10D": 10, "JC": 11, "QH": 12, "KS": 13, "COUNT1": 1,
              "COUNT2": 2, "COUNT3": 3, "COUNT4": 4, "COUNT7": 7, "COUNT12": 12,
              "NOMELD0": 0, "NOMELD2": 2, "NODECLARE0": 0, "WILD": 20}
    for code, n in expect.items():
        assert parse_card(code).count == n


def test_names_for_people():
    assert parse_card("10H").name == "10 of hearts"
    assert parse_card("AS").name == "ace of spades"
    assert parse_card("COUNT7").name == "COUNT 7"
    assert parse_card("NODECLARE0").name == "CAN'T DECLARE 0"
    assert parse_card("NOMELD2").name == "NO MELD 2"
    assert WILD.name == "WILDCARD"


def test_accessors():
    c = parse_card("QD")
    assert (c.rank, c.suit, c.rank_text, c.kind) == (12, "D", "Q", "regular")
    assert c.is_regular and not c.is_wild and c.meldable
    assert parse_card("COUNT3").kind == "count" and parse_card("COUNT3").rank is None
    assert not parse_card("NOMELD0").meldable and not parse_card("NODECLARE0").meldable
    assert WILD.is_wild and WILD.meldable


def test_the_deck():
    assert len(FULL_DECK) == 64 and len(REGULAR_CARDS) == 52 and len(OPTIONAL_CARDS) == 12
    assert FULL_DECK.count(WILD) == 3
    assert len(set(FULL_DECK)) == 62
    check_duplicates(FULL_DECK)                 # the whole deck is a legal "table"


def test_cards_are_values():
    a, b = parse_card("7H"), parse_card("7♥")
    assert a == b and hash(a) == hash(b) and a is not None
    with pytest.raises(Exception):
        a.index = 3                              # frozen
    shuffled = list(FULL_DECK)
    random.Random(1).shuffle(shuffled)
    assert sorted(shuffled) == sorted(FULL_DECK)


@pytest.mark.parametrize("text,why", [
    ("1H", "an ace is written A"),
    ("11H", "unknown rank '11'"),
    ("7X", "unknown suit 'X'"),
    ("COUNT 5", "there is no COUNT 5 card"),
    ("COUNT", "COUNT needs its number"),
    ("NO MELD 1", "NO MELD 0 and NO MELD 2"),
    ("CAN'T DECLARE 2", "the only CAN'T DECLARE card is CAN'T DECLARE 0"),
    ("7", "a rank needs a suit"),
    ("hello", "cards look like"),
    ("", "empty"),
])
def test_unknown_text_says_which_token_and_why(text, why):
    with pytest.raises(CardParseError) as e:
        parse_card(text)
    assert why in str(e.value)
    assert repr(text) in str(e.value)
    assert e.value.token == text
    assert isinstance(e.value, RummyError) and isinstance(e.value, ValueError)


def test_long_junk_is_shortened_in_the_message():
    with pytest.raises(CardParseError) as e:
        parse_card("x" * 10000)
    assert len(str(e.value)) < 200


def test_non_text_is_refused():
    with pytest.raises(CardParseError):
        parse_card(7)


def test_parse_cards_keeps_printed_names_whole():
    assert split_tokens("COUNT 7 5H, NO MELD 2 can't declare 0 WILD CARD th") == [
        "COUNT 7", "5H", "NO MELD 2", "can't declare 0", "WILD CARD", "th"]
    hand = parse_cards("COUNT 7 5H NO MELD 2 CAN'T DECLARE 0 WILDCARD 10♥")
    assert [str(c) for c in hand] == ["COUNT7", "5H", "NOMELD2", "NODECLARE0", "WILD", "10H"]


def test_duplicates_in_a_hand():
    with pytest.raises(DuplicateCardError) as e:
        parse_cards("7H 5S 7♥")
    assert "7H" in str(e.value) and "twice" in str(e.value)
    assert e.value.card == parse_card("7H")
    assert len(parse_cards("WILD WILD WILD")) == 3
    with pytest.raises(DuplicateCardError) as e:
        parse_cards("WILD WILD WILD WILDCARD")
    assert "WILD" in str(e.value) and "only 3" in str(e.value)
    with pytest.raises(DuplicateCardError):
        parse_hand(["COUNT7", "COUNT 7"])


def test_duplicates_across_hands_name_both_hands():
    with pytest.raises(DuplicateCardError) as e:
        check_table({"Ann": parse_cards("7H 2S"), "Bob": parse_cards("3D 7H")})
    assert "7H" in str(e.value) and "Ann" in str(e.value) and "Bob" in str(e.value)
    with pytest.raises(DuplicateCardError) as e:
        check_table({"Ann": parse_cards("WILD WILD"), "Bob": parse_cards("WILD WILD")})
    assert "4 WILDs" in str(e.value)
    check_table({"Ann": parse_cards("WILD WILD"), "Bob": parse_cards("WILD 2S")})


def test_more_cards_than_the_deck():
    with pytest.raises(DuplicateCardError) as e:
        parse_hand(list(FULL_DECK) + [WILD])
    assert "64" in str(e.value)
