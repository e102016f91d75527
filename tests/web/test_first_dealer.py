"""First-dealer page: face-up cards per player -> the first dealer."""
from __future__ import annotations

from .conftest import make_table


def test_highest_regular_card_deals_and_can_be_applied(client):
    tid = make_table(client, players=("Ann", "Bob", "Cat"), dealer=0, wild_copies="1")
    r = client.post(f"/tables/{tid}/first-dealer",
                    data={"seat_0": "9H", "seat_1": "WILD 9S", "seat_2": "KD"})
    page = r.get_data(as_text=True)
    assert r.status_code == 200, page
    assert "Cat deals first" in page
    r = client.post(f"/tables/{tid}/first-dealer/apply")
    assert r.status_code == 303
    page = client.get(f"/tables/{tid}").get_data(as_text=True)
    # Cat deals, so Ann (Cat's left) draws first
    assert "<strong>Ann</strong> draws first" in page


def test_suit_breaks_equal_ranks(client):
    tid = make_table(client, players=("Ann", "Bob"), dealer=0)
    page = client.post(f"/tables/{tid}/first-dealer",
                       data={"seat_0": "QH", "seat_1": "QC"}).get_data(as_text=True)
    assert "Bob deals first" in page


def test_missing_or_bad_cards_are_explained(client):
    tid = make_table(client, players=("Ann", "Bob"), dealer=0)
    r = client.post(f"/tables/{tid}/first-dealer", data={"seat_0": "QH", "seat_1": ""})
    assert r.status_code == 400
    r = client.post(f"/tables/{tid}/first-dealer", data={"seat_0": "QX", "seat_1": "2C"})
    assert r.status_code == 400 and "QX" in r.get_data(as_text=True)


def test_seating_variation_reseats_the_table(client):
    tid = make_table(client, players=("Ann", "Bob", "Cat"), dealer=0, seating="1")
    page = client.post(f"/tables/{tid}/first-dealer",
                       data={"seat_0": "9H", "seat_1": "2C", "seat_2": "KD"}).get_data(as_text=True)
    assert "Cat deals first" in page
    assert "Bob, then Ann" in page  # lowest card chooses first
    # the dealer (Cat) must sit just right of Bob: Cat, Bob, Ann clockwise
    r = client.post(f"/tables/{tid}/first-dealer/apply",
                    data={"seat_0": "Ann", "seat_1": "Cat", "seat_2": "Bob"})
    assert r.status_code == 303
    page = client.get(f"/tables/{tid}").get_data(as_text=True)
    assert "<strong>Bob</strong> draws first" in page
    assert page.index("Ann") < page.index("Cat") < page.index(">Bob")


def test_seating_that_breaks_the_rule_is_refused(client):
    tid = make_table(client, players=("Ann", "Bob", "Cat"), dealer=0, seating="1")
    client.post(f"/tables/{tid}/first-dealer", data={"seat_0": "9H", "seat_1": "2C", "seat_2": "KD"})
    client.post(f"/tables/{tid}/first-dealer/apply",
                data={"seat_0": "Ann", "seat_1": "Bob", "seat_2": "Cat"})
    page = client.get(f"/tables/{tid}/first-dealer").get_data(as_text=True)
    assert "must sit just to the right of Bob" in page
