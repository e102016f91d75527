"""SQLite storage for tables, games and hands.

One real SQLite file in the instance folder, in WAL mode.  Every change runs
inside ``transaction()`` (``BEGIN IMMEDIATE`` ... ``COMMIT``), so a crash
mid-save leaves either the old row or the new one, never half of each.  The
schema is versioned with ``PRAGMA user_version`` and migrated on start.

Only *inputs* are stored (players, settings, each hand's cards, how a game
ended).  Everything derived -- counts, winners, match score, who draws
first -- is recomputed from them on every read, never patched.
"""
from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import Any, Iterator

from flask import Flask, current_app, g

# Each entry moves the schema from version i to i+1.  Never edit a shipped
# migration; append a new one.
MIGRATIONS: list[str] = [
    # 1: tables (a match is played at a table), games, hands.
    """
    CREATE TABLE tables (
        id            INTEGER PRIMARY KEY,
        name          TEXT NOT NULL,
        players       TEXT NOT NULL,          -- JSON list of names, clockwise
        dealer        INTEGER NOT NULL,       -- seat index of the first game's dealer
        cards_dealt   INTEGER NOT NULL,
        optional      TEXT NOT NULL,          -- JSON {"code": copies} of optional cards in play
        variations    TEXT NOT NULL,          -- JSON
        keep_photos   INTEGER NOT NULL DEFAULT 0,
        prelim        TEXT,                   -- JSON {seat: [cards]} of the first-dealer deal
        client_token  TEXT UNIQUE,            -- idempotency key of the creating form
        created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
    );
    CREATE TABLE games (
        id            INTEGER PRIMARY KEY,
        table_id      INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        status        TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','finished')),
        settings      TEXT NOT NULL,          -- JSON snapshot: cards_dealt, optional, variations
        end_type      TEXT,
        end_player    INTEGER,                -- seat index
        created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        finished_at   TEXT
    );
    CREATE INDEX games_by_table ON games(table_id, id);
    CREATE TABLE hands (
        id            INTEGER PRIMARY KEY,
        game_id       INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat          INTEGER NOT NULL,
        cards         TEXT NOT NULL DEFAULT '[]',   -- JSON list of card codes
        links         TEXT NOT NULL DEFAULT '[]',   -- per card: index into reading.cards or null
        dropped       INTEGER NOT NULL DEFAULT 0,
        reading       TEXT,                   -- JSON of the last photo reading
        photo         TEXT,                   -- server-chosen file name under instance/photos
        photo_type    TEXT,
        updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
        UNIQUE (game_id, seat)
    );
    """,
    # 2: idempotency keys of state-changing requests (companion.web.idempotency).
    """
    CREATE TABLE idempotency (
        scope         TEXT NOT NULL,          -- route and ids, e.g. 'hand:3:1'
        key           TEXT NOT NULL,          -- sha256 of the client's key and the content
        state         TEXT NOT NULL CHECK (state IN ('pending','done')),
        resource      TEXT,                   -- what the request made (a game id)
        created_at    REAL NOT NULL,          -- unix time
        PRIMARY KEY (scope, key)
    );
    CREATE INDEX idempotency_by_age ON idempotency(created_at);
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: str) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; we open them explicitly.
    conn = sqlite3.connect(path, timeout=15, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 15000")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def get_db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; roll back on any exception."""
    conn = conn or get_db()
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def migrate(path: str) -> int:
    """Bring the database at ``path`` to ``SCHEMA_VERSION``; returns the version."""
    conn = connect(path)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN EXCLUSIVE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"database {path} has schema version {version}, newer than this "
                    f"companion ({SCHEMA_VERSION}); upgrade the companion"
                )
            for i in range(version, SCHEMA_VERSION):
                for stmt in _split(MIGRATIONS[i]):
                    conn.execute(stmt)
                conn.execute(f"PRAGMA user_version = {i + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return SCHEMA_VERSION
    finally:
        conn.close()


def _split(script: str) -> list[str]:
    # Migrations contain no semicolons inside strings, so a plain split is safe;
    # executescript() would COMMIT our transaction behind our back.
    out = []
    for stmt in script.split(";"):
        lines = [ln.split("--", 1)[0] for ln in stmt.splitlines()]
        text = "\n".join(lines).strip()
        if text:
            out.append(text)
    return out


def init_app(app: Flask) -> None:
    migrate(app.config["DATABASE"])
    app.teardown_appcontext(close_db)


# --- small helpers -----------------------------------------------------------

def loads(text: str | None, default: Any = None) -> Any:
    if text is None:
        return default
    return json.loads(text)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
