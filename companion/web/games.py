"""Tables, games and hands: loading rows and deriving everything else.

Stored: the table's settings, each hand's cards, how each game ended.
Derived on every read (never stored): who drew first in each game, the
flags on the hands, each game's result, the match score.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from . import engine
from .db import dumps, get_db, loads

VARIATION_KEYS = ("gin", "declare_bonus", "four_sevens", "seating")
GOING_OUT = ("standard", "major", "minor")
END_LABELS = {
    "declare": "declared",
    "go_out": "went out",
    "four_sevens": "laid down four 7s",
    "no_draw": "declined to draw from the discard pile (stockpile exhausted)",
    "tie": "everyone agreed a tie game",
}


class NotFound(LookupError):
    pass


@dataclass
class Table:
    id: int
    name: str
    players: list[str]
    dealer: int
    cards_dealt: int
    optional: dict[str, int]
    variations: dict[str, Any]
    keep_photos: bool
    prelim: dict | None
    created_at: str

    @property
    def first_player(self) -> int:
        """Who draws first in the first game: the dealer's left (next clockwise)."""
        return (self.dealer + 1) % len(self.players)

    def settings(self) -> dict:
        return {"cards_dealt": self.cards_dealt, "optional": self.optional,
                "variations": self.variations}

    def for_game(self, game: "Game") -> "Table":
        """This table with the settings the game was played under."""
        import dataclasses
        st = game.settings or {}
        return dataclasses.replace(
            self, cards_dealt=st.get("cards_dealt", self.cards_dealt),
            optional=st.get("optional", self.optional),
            variations=st.get("variations", self.variations))

    def in_play(self) -> Counter:
        allowed = Counter({code: 1 for code in engine.REGULAR})
        for code, copies in self.optional.items():
            allowed[code] = copies
        return allowed

    def round_variations(self) -> dict:
        v = self.variations
        return {
            "gin": bool(v.get("gin")),
            "declare_bonus": bool(v.get("declare_bonus")),
            "going_out": v.get("going_out", "standard"),
            "four_sevens": bool(v.get("four_sevens")),
        }


@dataclass
class Hand:
    id: int
    seat: int
    cards: list[str]
    links: list[int | None]
    dropped: bool
    reading: dict | None
    photo: str | None
    updated_at: str


@dataclass
class Game:
    id: int
    number: int
    status: str
    end_type: str | None
    end_player: int | None
    hands: list[Hand]
    settings: dict | None = None
    first_player: int | None = None
    result: dict | None = None
    error: str | None = None
    winner: int | None = None
    scores: dict[int, dict] = field(default_factory=dict)


def table_from_row(row) -> Table:
    return Table(
        id=row["id"], name=row["name"], players=loads(row["players"]),
        dealer=row["dealer"], cards_dealt=row["cards_dealt"],
        optional=loads(row["optional"], {}), variations=loads(row["variations"], {}),
        keep_photos=bool(row["keep_photos"]), prelim=loads(row["prelim"]),
        created_at=row["created_at"],
    )


def get_table(table_id: int) -> Table:
    row = get_db().execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
    if row is None:
        raise NotFound(f"no table {table_id}")
    return table_from_row(row)


def list_tables() -> list[Table]:
    rows = get_db().execute("SELECT * FROM tables ORDER BY id DESC").fetchall()
    return [table_from_row(r) for r in rows]


def hands_for(game_id: int) -> list[Hand]:
    rows = get_db().execute(
        "SELECT * FROM hands WHERE game_id = ? ORDER BY seat", (game_id,)
    ).fetchall()
    return [
        Hand(id=r["id"], seat=r["seat"], cards=loads(r["cards"], []),
             links=loads(r["links"], []), dropped=bool(r["dropped"]),
             reading=loads(r["reading"]), photo=r["photo"], updated_at=r["updated_at"])
        for r in rows
    ]


def games_for(table: Table) -> list[Game]:
    rows = get_db().execute(
        "SELECT * FROM games WHERE table_id = ? ORDER BY id", (table.id,)
    ).fetchall()
    games = []
    for number, r in enumerate(rows, start=1):
        games.append(Game(id=r["id"], number=number, status=r["status"], end_type=r["end_type"],
                          end_player=r["end_player"], hands=hands_for(r["id"]),
                          settings=loads(r["settings"], {})))
    return games


# --- checks before scoring ---------------------------------------------------

def hand_issues(table: Table, hands: list[Hand]) -> dict:
    """Problems to fix before scoring: ``errors`` block it, ``warnings`` do not.

    Returns ``{"errors": [...], "warnings": [...], "by_seat": {seat: {"dup": [...],
    "not_in_play": [...]}}}``.
    """
    names = table.players
    allowed = table.in_play()
    errors: list[str] = []
    warnings: list[str] = []
    by_seat: dict[int, dict[str, list[str]]] = {}
    seen: Counter = Counter()
    where: dict[str, list[int]] = {}
    for h in hands:
        by_seat[h.seat] = {"dup": [], "not_in_play": []}
        for code in h.cards:
            seen[code] += 1
            where.setdefault(code, []).append(h.seat)
    for code, count in sorted(seen.items()):
        copies = allowed.get(code, 0)
        if copies == 0:
            label = "WILDCARD" if code == "WILD" else code
            errors.append(f"{label} is not in play at this table "
                          f"({', '.join(names[s] for s in sorted(set(where[code])))}). "
                          "Correct the card, or add it to the table's optional cards.")
            for s in set(where[code]):
                by_seat[s]["not_in_play"].append(code)
        elif count > copies:
            holders = ", ".join(names[s] for s in where[code])
            if code == "WILD":
                msg = (f"{count} WILDCARDs were read but only {copies} "
                       f"{'is' if copies == 1 else 'are'} in play ({holders}).")
            else:
                msg = f"{code} appears {count} times ({holders}); there is only one."
            errors.append(msg + " Remove or correct the extra card.")
            for s in set(where[code]):
                by_seat[s]["dup"].append(code)
    for h in hands:
        if h.dropped:
            continue
        if not h.cards:
            errors.append(f"{names[h.seat]} has no cards yet: take a photo, type the cards, "
                          "or mark the player as dropped.")
        elif not (table.cards_dealt <= len(h.cards) <= table.cards_dealt + 2):
            warnings.append(f"{names[h.seat]} has {len(h.cards)} cards; {table.cards_dealt} "
                            "were dealt (the player who ends the game holds one or two more).")
    return {"errors": errors, "warnings": warnings, "by_seat": by_seat}


# --- results -----------------------------------------------------------------

def turn_order(n: int, first: int) -> list[int]:
    return [(first + i) % n for i in range(n)]


def round_json(table: Table, game: Game, first_player: int) -> dict:
    """The engine's round JSON: players in turn order, first player first."""
    hands = {h.seat: h for h in game.hands}
    players = []
    for seat in turn_order(len(table.players), first_player):
        h = hands.get(seat)
        players.append({
            "name": table.players[seat],
            "hand": list(h.cards) if h else [],
            "dropped": bool(h.dropped) if h else False,
        })
    end: dict[str, Any] = {"type": game.end_type}
    if game.end_player is not None:
        end["player"] = table.players[game.end_player]
    return {"players": players, "end": end, "variations": table.round_variations()}


def score_game(table: Table, game: Game, first_player: int) -> None:
    """Fill ``game.result``/``winner``/``scores`` (or ``game.error``) from stored inputs."""
    game.first_player = first_player
    for h in game.hands:
        if h.cards and not h.dropped:
            try:
                game.scores[h.seat] = engine.score(h.cards)
            except engine.RummyError as exc:
                game.scores[h.seat] = {"error": str(exc)}
    if game.status != "finished":
        return
    try:
        game.result = engine.round_result(round_json(table, game, first_player))
    except engine.RummyError as exc:
        game.error = str(exc)
        return
    winner = game.result.get("winner")
    game.winner = table.players.index(winner) if winner in table.players else None


def load_match(table: Table) -> dict:
    """All games of the table with their derived results and the match state."""
    games = games_for(table)
    first = table.first_player
    winners: list[int | None] = []
    pending = False
    for game in games:
        state = engine.match_state(len(table.players), table.first_player, winners)
        first = state["next_first"]
        score_game(table.for_game(game), game, first)
        if game.status == "finished" and not game.error:
            winners.append(game.winner)
        else:
            if game.status != "finished" and game is not games[-1]:
                pending = True
            winners.append(None)
    state = engine.match_state(len(table.players), table.first_player, winners)
    return {"games": games, "state": state, "pending": pending}


# --- writes --------------------------------------------------------------------

def create_game(conn, table: Table) -> int:
    cur = conn.execute("INSERT INTO games (table_id, settings) VALUES (?, ?)",
                       (table.id, dumps(table.settings())))
    gid = cur.lastrowid
    conn.executemany(
        "INSERT INTO hands (game_id, seat) VALUES (?, ?)",
        [(gid, seat) for seat in range(len(table.players))],
    )
    return gid


def save_hand(conn, game_id: int, seat: int, cards: list[str] | None = None,
              links: list[int | None] | None = None,
              dropped: bool | None = None, reading: dict | None = None,
              photo: tuple[str, str] | None = None) -> None:
    sets, args = ["updated_at = strftime('%Y-%m-%dT%H:%M:%SZ','now')"], []
    if cards is not None:
        sets.append("cards = ?"); args.append(dumps(cards))
        links = list(links or [])[:len(cards)]
        links += [None] * (len(cards) - len(links))
        sets.append("links = ?"); args.append(dumps(links))
    if dropped is not None:
        sets.append("dropped = ?"); args.append(int(dropped))
    if reading is not None:
        sets.append("reading = ?"); args.append(dumps(reading))
    if photo is not None:
        sets.append("photo = ?"); args.append(photo[0])
        sets.append("photo_type = ?"); args.append(photo[1])
    conn.execute(f"UPDATE hands SET {', '.join(sets)} WHERE game_id = ? AND seat = ?",
                 (*args, game_id, seat))
