"""Double submissions: the same request sent twice changes things once.

A form carries a hidden ``idempotency_key`` made when the page was rendered;
``fetch`` calls send an ``Idempotency-Key`` header that the page's script
keeps until the request succeeds.  A request is a *repeat* when its key **and
its content** (the fingerprint: the cards sent, the photo's bytes) match one
already seen for the same route (the scope); a repeat is answered from the
current state without doing anything again.  The same key with different
content (a page restored by the back button and edited) is a new request.

``claim()`` records the request as *pending* before slow work (reading a
photo); a repeat that arrives meanwhile waits for it instead of reading the
photo a second time.  ``Claim.finish(conn, resource)`` marks it done inside
the transaction that saves the change, so a crash leaves either both or
neither.  A pending claim left by a killed server process is taken over at
once (each process has its own ``BOOT`` id), a stuck one after ``STALE_S``.  Rows older than ``KEEP_S`` are pruned on start.

The tables' own ``client_token`` column (the new-table form) predates this
module and works the same way.
"""
from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import time
import uuid
from dataclasses import dataclass

from flask import request

from .db import transaction

FIELD = "idempotency_key"
HEADER = "Idempotency-Key"
_KEY_RE = re.compile(r"^[A-Za-z0-9_\-]{8,80}$")
STALE_S = 120.0        # a pending claim older than this was left by a dead request
WAIT_S = 60.0          # how long a repeat waits for the first request to finish
KEEP_S = 7 * 24 * 3600.0
# This server process: a pending claim made by another (killed) process is
# abandoned, whatever its age.  (One server process serves an instance.)
BOOT = f"boot:{os.getpid()}:{uuid.uuid4().hex}"


class StillRunning(Exception):
    """The first request with this key has not finished after ``WAIT_S``."""

    status = 409


def request_key() -> str | None:
    """The client's key from the header or the form field (``None`` if absent or malformed)."""
    key = request.headers.get(HEADER)
    if not key and request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        key = request.form.get(FIELD)
    if isinstance(key, str) and _KEY_RE.match(key):
        return key
    return None


def fingerprint(*parts: object) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, (bytes, bytearray)) else repr(p).encode("utf-8", "replace"))
        h.update(b"\0")
    return h.hexdigest()


@dataclass
class Claim:
    scope: str
    key: str               # hash of the client's key and the fingerprint
    done: bool = False
    resource: str | None = None

    def finish(self, conn: sqlite3.Connection, resource: object = "") -> None:
        """Mark done; call inside the transaction that saves the change."""
        conn.execute(
            "INSERT INTO idempotency (scope, key, state, resource, created_at)"
            " VALUES (?, ?, 'done', ?, ?) ON CONFLICT (scope, key) DO UPDATE SET"
            " state = 'done', resource = excluded.resource",
            (self.scope, self.key, str(resource), time.time()))

    def release(self) -> None:
        """The request failed: forget the pending claim so a retry runs again."""
        try:
            with transaction() as conn:
                conn.execute("DELETE FROM idempotency WHERE scope = ? AND key = ? AND state = 'pending'",
                             (self.scope, self.key))
        except sqlite3.Error:
            pass


def claim(scope: str, fp: str, wait: bool = True) -> Claim | None:
    """``None`` when the request has no key.  Otherwise a :class:`Claim`: ``done`` is
    True for a repeat of a finished request (``resource`` says what it made)."""
    client_key = request_key()
    if client_key is None:
        return None
    key = fingerprint(client_key, fp)
    deadline = time.monotonic() + (WAIT_S if wait else 0.0)
    while True:
        with transaction() as conn:
            row = conn.execute("SELECT state, resource, created_at FROM idempotency"
                               " WHERE scope = ? AND key = ?", (scope, key)).fetchone()
            now = time.time()
            if row is None or (row["state"] == "pending" and (
                    row["resource"] != BOOT or now - row["created_at"] > STALE_S)):
                # new, or left pending by a server process that has since died
                conn.execute("INSERT OR REPLACE INTO idempotency (scope, key, state, resource,"
                             " created_at) VALUES (?, ?, 'pending', ?, ?)", (scope, key, BOOT, now))
                return Claim(scope, key)
            if row["state"] == "done":
                return Claim(scope, key, done=True, resource=row["resource"])
        if time.monotonic() > deadline:
            raise StillRunning("The same request is still being processed; wait a moment "
                               "and reload the page.")
        time.sleep(0.1)


def prune(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM idempotency WHERE created_at < ?", (time.time() - KEEP_S,))


def new_key() -> str:
    import secrets
    return secrets.token_urlsafe(18)


def init_app(app) -> None:
    app.jinja_env.globals["idempotency_key"] = new_key
    from .db import connect
    conn = connect(app.config["DATABASE"])
    try:
        with transaction(conn):
            prune(conn)
    finally:
        conn.close()
