"""Kill -9 the companion during saves, restart it, and check nothing saved was lost.

    python scripts/killtest.py [--kills 10] [--workers 4] [--seed 1] [--json]

Starts the real server (``python -m companion serve`` on a free 127.0.0.1
port, temporary instance folder).  ``--workers`` players each play a match at
their own table as fast as they can: start a game, save every hand (JSON with
an idempotency key), finish it, start the next.  At a random moment the
server gets SIGKILL -- usually with requests in flight -- and, while it is
down, the database is checked:

- ``PRAGMA integrity_check`` is ``ok`` and no foreign key dangles;
- every table and game the server *answered* as saved is there, every
  finished game is still finished, and every hand holds the cards last
  answered as saved (or the cards of a save that was in flight);
- the match state still derives (every finished game has a result).

Then it restarts, the players retry whatever was in flight with the same
idempotency key, and it goes on.  At the end every game must be present
exactly once (a retried "new game" must not make two).  Prints the figures
and exits 1 if anything was lost.  Loopback only; bounded by ``--kills``.
"""
from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _harness import Browser, Server, Unreachable, new_key  # noqa: E402

DECK = [r + s for s in "SCDH" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                        "J", "Q", "K")]
PLAYERS = ["Ann", "Bob", "Cat"]


class Ledger:
    """What the server answered as saved (and what may have been saved in flight)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.tables: set[int] = set()
        self.games: dict[int, list[int]] = {}          # table -> acked game ids
        self.creating: set[int] = set()                 # tables with a "new game" in flight
        self.hands: dict[tuple[int, int], dict] = {}    # (game, seat) -> {"acked", "maybe"}
        self.finished: set[int] = set()
        self.saves = 0

    def table(self, t):
        with self.lock:
            self.tables.add(t)
            self.games.setdefault(t, [])

    def sending_game(self, t):
        with self.lock:
            self.creating.add(t)

    def game(self, t, g):
        with self.lock:
            self.creating.discard(t)
            if g not in self.games[t]:
                self.games[t].append(g)
            self.saves += 1

    def sending_hand(self, g, seat, cards):
        with self.lock:
            self.hands.setdefault((g, seat), {"acked": None, "maybe": []})["maybe"].append(cards)

    def hand(self, g, seat, cards):
        with self.lock:
            self.hands[(g, seat)] = {"acked": cards, "maybe": []}
            self.saves += 1

    def finish(self, g):
        with self.lock:
            self.finished.add(g)
            self.saves += 1


class Player(threading.Thread):
    def __init__(self, idx: int, port: int, ledger: Ledger, up: threading.Event,
                 stop: threading.Event, seed: int):
        super().__init__(daemon=True, name=f"player-{idx}")
        self.b = Browser(port, timeout=30)
        self.ledger, self.up, self.stop = ledger, up, stop
        self.rng = random.Random(seed)
        self.in_flight = False
        self.unreachable = 0
        self.failures: list[str] = []

    def call(self, fn):
        """Run ``fn`` until it gets an answer; while the server is down, wait for it."""
        while True:
            self.up.wait()
            self.in_flight = True
            try:
                return fn()
            except Unreachable:
                self.unreachable += 1
                time.sleep(0.05)
            finally:
                self.in_flight = False

    def run(self):
        try:
            self.call(self.b.open)
            table = self.new_table()
            while not self.stop.is_set():
                key = new_key()  # one key for the request and all its retries
                self.ledger.sending_game(table)
                status, headers, data = self.call(lambda: self.b.post_form(
                    f"/tables/{table}/games", {"idempotency_key": key}))
                loc = headers.get("Location", "")
                if status != 303:
                    raise RuntimeError(f"new game answered {status}")
                if "/games/" not in loc:  # the match is over: a new table
                    with self.ledger.lock:
                        self.ledger.creating.discard(table)
                    table = self.new_table()
                    continue
                game = int(loc.rstrip("/").rsplit("/", 1)[-1])
                self.ledger.game(table, game)
                self.play(table, game)
        except Exception as exc:  # reported, and fails the run
            self.failures.append(f"{self.name}: {type(exc).__name__}: {exc}")

    def new_table(self) -> int:
        key = new_key()
        fields = {f"seat_{i}": p for i, p in enumerate(PLAYERS)}
        fields.update({"dealer": "0", "cards_dealt": "3", "going_out": "standard",
                       "client_token": key})
        status, headers, _ = self.call(lambda: self.b.post_form("/tables", fields))
        if status != 303:
            raise RuntimeError(f"new table answered {status}")
        t = int(headers["Location"].rstrip("/").rsplit("/", 1)[-1])
        self.ledger.table(t)
        return t

    def play(self, table: int, game: int):
        cards = self.rng.sample(DECK, 9)
        for seat in range(3):
            hand = cards[3 * seat: 3 * seat + 3]
            for _ in range(self.rng.randint(1, 2)):  # sometimes corrected once
                key = new_key()
                self.ledger.sending_hand(game, seat, hand)
                status, _, data = self.call(lambda: self.b.post_json(
                    f"/tables/{table}/games/{game}/hands/{seat}", {"cards": hand}, key))
                if status != 200:
                    raise RuntimeError(f"hand save answered {status}: {data[:200]!r}")
                self.ledger.hand(game, seat, hand)
                hand = hand[::-1]  # a correction: the same cards in a new order
        status, _, data = self.call(lambda: self.b.post_form(
            f"/tables/{table}/games/{game}/finish", {"end_type": "declare", "end_player": "0"}))
        if status != 303:
            raise RuntimeError(f"finish answered {status}: {data[:300]!r}")
        self.ledger.finish(game)


def verify(instance: Path, ledger: Ledger, final: bool) -> tuple[list[str], dict]:
    """Check the database against the ledger (the server is down or stopped)."""
    problems: list[str] = []
    lost = {"games": 0, "hands": 0, "finished": 0, "tables": 0}
    db = instance / "companion.sqlite3"
    conn = sqlite3.connect(db, timeout=30)
    try:
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            problems.append(f"integrity_check: {ok}")
        if conn.execute("PRAGMA foreign_key_check").fetchall():
            problems.append("foreign_key_check found dangling rows")
        with ledger.lock:
            tables = set(ledger.tables)
            games = {t: list(g) for t, g in ledger.games.items()}
            creating = set(ledger.creating)
            hands = {k: {"acked": v["acked"], "maybe": list(v["maybe"])} for k, v in ledger.hands.items()}
            finished = set(ledger.finished)
        have_tables = {r[0] for r in conn.execute("SELECT id FROM tables")}
        for t in tables - have_tables:
            lost["tables"] += 1
            problems.append(f"table {t} was saved but is gone")
        for t, acked in games.items():
            stored = [r[0] for r in conn.execute("SELECT id FROM games WHERE table_id = ? ORDER BY id", (t,))]
            for g in acked:
                if g not in stored:
                    lost["games"] += 1
                    problems.append(f"game {g} (table {t}) was saved but is gone")
            extra = [g for g in stored if g not in acked]
            if len(extra) > (0 if final or t not in creating else 1):
                problems.append(f"table {t} has games nobody was told about: {extra} "
                                "(a repeated 'new game' made a second game?)")
        for (g, seat), h in hands.items():
            row = conn.execute("SELECT cards FROM hands WHERE game_id = ? AND seat = ?", (g, seat)).fetchone()
            if row is None:
                continue  # counted with its game
            cards = json.loads(row[0])
            allowed = ([h["acked"]] if h["acked"] is not None else [[]]) + h["maybe"]
            if cards not in allowed:
                lost["hands"] += 1
                problems.append(f"game {g} seat {seat}: stored {cards}, saved {h['acked']}")
        for g in finished:
            row = conn.execute("SELECT status FROM games WHERE id = ?", (g,)).fetchone()
            if row is not None and row[0] != "finished":
                lost["finished"] += 1
                problems.append(f"game {g} was finished but is {row[0]}")
    finally:
        conn.close()
    problems += _match_state(instance, tables)
    return problems, lost


def _match_state(instance: Path, tables: set[int]) -> list[str]:
    """Every table's match still derives from what is stored."""
    from companion.web import create_app
    from companion.web import games as G
    problems = []
    app = create_app({"INSTANCE_PATH": str(instance)}, reader=object())
    with app.app_context():
        for t in sorted(tables):
            try:
                m = G.load_match(G.get_table(t))
            except Exception as exc:
                problems.append(f"table {t}: match does not load: {exc}")
                continue
            done = [g for g in m["games"] if g.status == "finished"]
            for g in done:
                if g.error or g.result is None:
                    problems.append(f"table {t} game {g.id}: no result ({g.error})")
            wins = sum(m["state"]["wins"]) if isinstance(m["state"].get("wins"), list) else None
            if wins is not None and wins != sum(1 for g in done if g.winner is not None):
                problems.append(f"table {t}: match score {m['state']['wins']} does not match its games")
    return problems


def run(kills: int = 10, workers: int = 4, seed: int = 1, run_min: float = 0.5,
        run_max: float = 2.0, instance: Path | None = None, out=sys.stdout, min_saves: int = 2,
        progress_timeout: float = 60.0) -> dict:
    """Kill the server ``kills`` times; before each kill wait ``run_min..run_max`` seconds AND
    until ``min_saves`` more saves were acknowledged (bounded by ``progress_timeout``), so a
    slow, loaded machine still kills during real work rather than during start-up."""
    rng = random.Random(seed)
    tmp = tempfile.TemporaryDirectory(prefix="killtest-")
    instance = Path(instance or Path(tmp.name) / "instance")
    server = Server(instance, log=Path(tmp.name) / "server.log")
    ledger = Ledger()
    up, stop = threading.Event(), threading.Event()
    start_times = [server.start()]
    up.set()
    players = [Player(i, server.port, ledger, up, stop, seed * 100 + i) for i in range(workers)]
    for p in players:
        p.start()
    problems: list[str] = []
    lost_total = {"games": 0, "hands": 0, "finished": 0, "tables": 0}
    mid_request = 0
    t0 = time.monotonic()
    try:
        for k in range(kills):
            base = ledger.saves
            time.sleep(rng.uniform(run_min, run_max))
            deadline = time.monotonic() + progress_timeout
            while ledger.saves < base + min_saves and time.monotonic() < deadline:
                time.sleep(0.05)
            up.clear()
            mid_request += sum(p.in_flight for p in players)
            server.kill()
            found, lost = verify(instance, ledger, final=False)
            problems += [f"after kill {k + 1}: {p}" for p in found]
            for key in lost_total:
                lost_total[key] += lost[key]
            start_times.append(server.start())
            up.set()
        time.sleep(run_min)
    finally:
        stop.set()
        up.set()
        for p in players:
            p.join(60)
        server.stop()
    found, lost = verify(instance, ledger, final=True)
    problems += [f"at the end: {p}" for p in found]
    for key in lost_total:
        lost_total[key] += lost[key]
    for p in players:
        problems += p.failures
        if p.is_alive():
            problems.append(f"{p.name} did not finish")
    figures = {
        "kills": kills,
        "kills_with_requests_in_flight": mid_request,
        "requests": sum(p.b.requests for p in players),
        "requests_cut_by_kills": sum(p.unreachable for p in players),
        "saves_acknowledged": ledger.saves,
        "tables": len(ledger.tables),
        "games_saved": sum(len(g) for g in ledger.games.values()),
        "games_finished": len(ledger.finished),
        "games_lost": lost_total["games"] + lost_total["finished"],
        "hands_lost": lost_total["hands"],
        "integrity_check": "ok" if not any("integrity" in p for p in problems) else "FAILED",
        "restart_s_mean": round(sum(start_times[1:]) / max(1, len(start_times) - 1), 2),
        "seconds": round(time.monotonic() - t0, 1),
        "problems": problems,
    }
    tmp.cleanup()
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--run-min", type=float, default=0.5, help="seconds of saves before a kill, at least")
    ap.add_argument("--run-max", type=float, default=2.0, help="... and at most")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if not 1 <= args.kills <= 200 or not 1 <= args.workers <= 16:
        ap.error("keep it bounded: 1-200 kills, 1-16 workers")
    f = run(args.kills, args.workers, args.seed, args.run_min, args.run_max)
    if args.json:
        print(json.dumps(f, indent=2))
    else:
        print(f"kills: {f['kills']} ({f['kills_with_requests_in_flight']} requests in flight when killed)")
        print(f"requests: {f['requests']} ({f['requests_cut_by_kills']} cut by a kill and retried)")
        print(f"saves acknowledged: {f['saves_acknowledged']}; tables: {f['tables']}; "
              f"games saved: {f['games_saved']} ({f['games_finished']} finished)")
        print(f"games lost: {f['games_lost']}; hands lost: {f['hands_lost']}; "
              f"integrity_check: {f['integrity_check']}")
        print(f"restart: {f['restart_s_mean']} s on average; total {f['seconds']} s")
        for p in f["problems"]:
            print("PROBLEM:", p)
    return 1 if f["problems"] or f["games_lost"] or f["hands_lost"] else 0


if __name__ == "__main__":
    sys.exit(main())
