"""Tables (a match at one table), first dealer, games, hands, results."""
from __future__ import annotations

import io
import math
import os
import uuid
from pathlib import Path

from flask import (Blueprint, abort, current_app, flash, jsonify, redirect, render_template,
                   request, send_file, url_for)

from .. import engine, games as G
from .. import idempotency as idem
from ..db import dumps, get_db, transaction
from ..reader import browser_copy, read_photo

bp = Blueprint("tables", __name__, url_prefix="/tables")

MAX_PLAYERS = 10
MAX_NAME = 30


def wants_json() -> bool:
    return (request.is_json or request.headers.get("X-Requested-With") == "fetch"
            or request.accept_mimetypes.best == "application/json")


def _table_or_404(table_id: int) -> G.Table:
    try:
        return G.get_table(table_id)
    except G.NotFound:
        abort(404)


def _game_or_404(table: G.Table, game_id: int) -> tuple[G.Game, dict]:
    match = G.load_match(table)
    for game in match["games"]:
        if game.id == game_id:
            return game, match
    abort(404)


# --- creating a table ------------------------------------------------------------

def settings_from_form(form, n_players: int, errors: list[str]) -> dict:
    try:
        cards_dealt = int(form.get("cards_dealt", ""))
    except ValueError:
        errors.append("Cards dealt must be a number (2 to 10, depending on the number of players).")
        cards_dealt = 0
    if cards_dealt and n_players >= 2:
        try:
            engine.validate_deal(n_players, cards_dealt)
        except engine.RummyError as exc:
            errors.append(str(exc))
    optional: dict[str, int] = {}
    for code in engine.OPTIONAL_KINDS:
        if code == "WILD":
            try:
                copies = int(form.get("wild_copies", "0") or 0)
            except ValueError:
                copies = 0
            if not 0 <= copies <= 3:
                errors.append("Use 0 to 3 WILDCARDs.")
                copies = 0
            if copies:
                optional["WILD"] = copies
        elif form.get(f"opt_{code}"):
            optional[code] = 1
    going_out = form.get("going_out", "standard")
    if going_out not in G.GOING_OUT:
        errors.append("Going out must be standard, major or minor.")
        going_out = "standard"
    variations = {k: bool(form.get(k)) for k in G.VARIATION_KEYS}
    variations["going_out"] = going_out
    return {"cards_dealt": cards_dealt, "optional": optional, "variations": variations}


@bp.post("")
def create():
    form = request.form
    errors: list[str] = []
    players, dealer = [], None
    dealer_row = form.get("dealer")
    for i in range(MAX_PLAYERS):
        name = " ".join((form.get(f"seat_{i}") or "").split())
        if not name:
            continue
        if len(name) > MAX_NAME:
            errors.append(f"Keep names to {MAX_NAME} characters: {name[:MAX_NAME]}…")
        if dealer_row == str(i):
            dealer = len(players)
        players.append(name)
    if len(players) < 2:
        errors.append("Enter at least two players, in clockwise seating order.")
    lowered = [p.casefold() for p in players]
    dupes = sorted({p for p in players if lowered.count(p.casefold()) > 1})
    if dupes:
        errors.append(f"Each player needs a different name ({', '.join(dupes)} appears twice).")
    if dealer is None and len(players) >= 2:
        errors.append("Choose who deals (the dealer's left draws first). Not sure? "
                      "Pick anyone, then use 'Find the first dealer' on the next page.")
    settings = settings_from_form(form, len(players), errors)
    if errors:
        return render_template(
            "home.html", tables=G.list_tables(), form=form, errors=errors,
            optional_kinds=engine.OPTIONAL_KINDS, going_out=G.GOING_OUT,
            client_token=form.get("client_token") or uuid.uuid4().hex,
        ), 400
    name = " ".join((form.get("name") or "").split())[:60] or " · ".join(players)
    token = (form.get("client_token") or "")[:64] or None
    db = get_db()
    with transaction(db):
        if token:
            row = db.execute("SELECT id FROM tables WHERE client_token = ?", (token,)).fetchone()
            if row:  # the same form submitted twice: no second table
                return redirect(url_for(".match", table_id=row["id"]), 303)
        cur = db.execute(
            "INSERT INTO tables (name, players, dealer, cards_dealt, optional, variations,"
            " keep_photos, client_token) VALUES (?,?,?,?,?,?,?,?)",
            (name, dumps(players), dealer, settings["cards_dealt"], dumps(settings["optional"]),
             dumps(settings["variations"]), int(bool(form.get("keep_photos"))), token),
        )
        table_id = cur.lastrowid
    return redirect(url_for(".match", table_id=table_id), 303)


# --- the match ---------------------------------------------------------------------

@bp.get("/<int:table_id>")
def match(table_id: int):
    table = _table_or_404(table_id)
    m = G.load_match(table)
    open_game = next((g for g in m["games"] if g.status == "open"), None)
    return render_template("match.html", table=table, match=m, state=m["state"],
                           open_game=open_game, optional_kinds=engine.OPTIONAL_KINDS,
                           going_out=G.GOING_OUT)


@bp.post("/<int:table_id>/settings")
def settings(table_id: int):
    """Cards dealt, optional cards and variations for the next game (the match rule)."""
    table = _table_or_404(table_id)
    errors: list[str] = []
    st = settings_from_form(request.form, len(table.players), errors)
    if errors:
        for e in errors:
            flash(e, "error")
        return redirect(url_for(".match", table_id=table_id), 303)
    with transaction():
        get_db().execute(
            "UPDATE tables SET cards_dealt = ?, optional = ?, variations = ?, keep_photos = ?"
            " WHERE id = ?",
            (st["cards_dealt"], dumps(st["optional"]), dumps(st["variations"]),
             int(bool(request.form.get("keep_photos"))), table_id))
    flash("Settings saved for the next game.", "ok")
    return redirect(url_for(".match", table_id=table_id), 303)


@bp.post("/<int:table_id>/games")
def start_game(table_id: int):
    table = _table_or_404(table_id)
    db = get_db()
    claim = idem.claim(f"game:{table_id}", "")
    if claim and claim.done:  # the same form submitted again: the game it made
        made = int(claim.resource or 0)
        if db.execute("SELECT 1 FROM games WHERE id = ? AND table_id = ?", (made, table_id)).fetchone():
            return redirect(url_for(".game", table_id=table_id, game_id=made), 303)
        return redirect(url_for(".match", table_id=table_id), 303)
    try:
        with transaction(db):
            row = db.execute("SELECT id FROM games WHERE table_id = ? AND status = 'open' ORDER BY id"
                             " LIMIT 1", (table_id,)).fetchone()
            if row:  # a double submit, or a game already in progress: go there
                if claim:
                    claim.finish(db, row["id"])
                return redirect(url_for(".game", table_id=table_id, game_id=row["id"]), 303)
            m = G.load_match(table)
            if m["state"].get("winner") is not None:
                if claim:
                    claim.finish(db, "")
                flash("The match is over; start a new table for a new match.", "error")
                return redirect(url_for(".match", table_id=table_id), 303)
            game_id = G.create_game(db, table)
            if claim:
                claim.finish(db, game_id)
    except BaseException:
        if claim:
            claim.release()
        raise
    return redirect(url_for(".game", table_id=table_id, game_id=game_id), 303)


# --- first dealer ----------------------------------------------------------------------

@bp.route("/<int:table_id>/first-dealer", methods=["GET", "POST"])
def first_dealer(table_id: int):
    table = _table_or_404(table_id)
    deal = {int(k): v for k, v in (table.prelim or {}).items()}
    texts = {s: " ".join(deal.get(s, [])) for s in range(len(table.players))}
    outcome, errors = None, []
    if request.method == "POST":
        deal = {}
        for seat in range(len(table.players)):
            texts[seat] = (request.form.get(f"seat_{seat}") or "").strip()
            try:
                deal[seat] = engine.parse_cards(texts[seat]) if texts[seat] else []
            except engine.RummyError as exc:
                errors.append(f"{table.players[seat]}: {exc}")
        if not errors:
            try:
                outcome = engine.first_dealer_outcome(table.players, table.dealer, deal,
                                                      bool(table.variations.get("seating")))
            except engine.RummyError as exc:
                errors.append(str(exc))
        if not errors:
            with transaction():
                get_db().execute("UPDATE tables SET prelim = ? WHERE id = ?",
                                 (dumps({str(k): v for k, v in deal.items()}), table_id))
    has_games = bool(G.games_for(table))
    return render_template("first_dealer.html", table=table, texts=texts, outcome=outcome,
                           errors=errors, has_games=has_games), (400 if errors else 200)


@bp.post("/<int:table_id>/first-dealer/apply")
def apply_first_dealer(table_id: int):
    table = _table_or_404(table_id)
    if G.games_for(table):
        flash("Games have been played at this table; the dealer and seats can no longer change.",
              "error")
        return redirect(url_for(".match", table_id=table_id), 303)
    deal = {int(k): v for k, v in (table.prelim or {}).items()}
    try:
        outcome = engine.first_dealer_outcome(table.players, table.dealer, deal,
                                              bool(table.variations.get("seating")))
    except engine.RummyError as exc:
        flash(str(exc), "error")
        return redirect(url_for(".first_dealer", table_id=table_id), 303)
    players = table.players
    errors = []
    if outcome.get("seating") and request.form.get("seat_0"):
        # the seating variation: the table's new clockwise order, as the players chose
        players = [request.form.get(f"seat_{i}", "") for i in range(len(table.players))]
        if sorted(players) != sorted(table.players):
            errors.append("List every player once in the new seating order.")
        else:
            first_chooser = outcome["seating"][0]
            d = players.index(outcome["dealer"])
            if players[(d + 1) % len(players)] != first_chooser:
                errors.append(f"The dealer, {outcome['dealer']}, must sit just to the right of "
                              f"{first_chooser} (the lowest card): {first_chooser} is then the "
                              f"dealer's left, next clockwise.")
    if errors:
        for e in errors:
            flash(e, "error")
        return redirect(url_for(".first_dealer", table_id=table_id), 303)
    dealer = players.index(outcome["dealer"])
    with transaction():
        get_db().execute("UPDATE tables SET players = ?, dealer = ?, prelim = ? WHERE id = ?",
                         (dumps(players), dealer,
                          dumps({str(players.index(table.players[k])): v
                                 for k, v in deal.items()}), table_id))
    flash(f"{outcome['dealer']} deals the first game.", "ok")
    return redirect(url_for(".match", table_id=table_id), 303)


# --- scoring a game --------------------------------------------------------------------

def hand_state(table: G.Table, game: G.Game, hand: G.Hand) -> dict:
    photo_url = (url_for(".photo", table_id=table.id, game_id=game.id, seat=hand.seat)
                 if hand.photo else None)
    sc = game.scores.get(hand.seat)
    return {"seat": hand.seat, "name": table.players[hand.seat], "cards": hand.cards,
            "links": hand.links, "dropped": hand.dropped, "reading": hand.reading,
            "photo_url": photo_url, "updated_at": hand.updated_at, "score": sc}


def game_state(table: G.Table, game: G.Game) -> dict:
    t = table.for_game(game)
    issues = G.hand_issues(t, game.hands)
    return {
        "status": game.status,
        "hands": [hand_state(table, game, h) for h in game.hands],
        "issues": {"errors": issues["errors"], "warnings": issues["warnings"],
                   "by_seat": {str(k): v for k, v in issues["by_seat"].items()}},
    }


@bp.get("/<int:table_id>/games/<int:game_id>")
def game(table_id: int, game_id: int):
    table = _table_or_404(table_id)
    g, m = _game_or_404(table, game_id)
    return _render_game(table, g, m)


def _render_game(table, g, m, errors=None, status=200, form=None):
    t = table.for_game(g)
    state = game_state(table, g)
    return render_template(
        "game.html", table=t, game=g, match=m, state=state, all_codes=engine.ALL_CODES,
        end_labels=G.END_LABELS, errors=errors or [], form=form or {},
        low=current_app.config["LOW_CONFIDENCE"],
        live_camera=request.host.split(":")[0] in ("127.0.0.1", "localhost", "[::1]"),
    ), status


@bp.get("/<int:table_id>/games/<int:game_id>/state")
def state(table_id: int, game_id: int):
    table = _table_or_404(table_id)
    g, _ = _game_or_404(table, game_id)
    return jsonify(game_state(table, g))


def _json_error(message: str, status: int = 400):
    resp = jsonify({"error": message})
    resp.status_code = status
    return resp


@bp.post("/<int:table_id>/games/<int:game_id>/hands/<int:seat>")
def save_hand(table_id: int, game_id: int, seat: int):
    """Save one player's hand: JSON ``{"cards": [...], "links": [...], "dropped": bool}``
    or the form's ``cards`` text and ``dropped`` checkbox.  Only this hand's row changes,
    so players on different phones never overwrite each other."""
    table = _table_or_404(table_id)
    g, m = _game_or_404(table, game_id)
    if not 0 <= seat < len(table.players):
        abort(404)
    if g.status != "open":
        msg = "This game is finished. Choose 'Correct this game' on its result page first."
        if wants_json():
            return _json_error(msg, 409)
        flash(msg, "error")
        return redirect(url_for(".result", table_id=table_id, game_id=game_id), 303)
    old = hand_of(g, seat)
    n_read = len((old.reading or {}).get("cards", []))
    try:
        if request.is_json:
            try:
                data = request.get_json(silent=True)
            except RecursionError:
                data = None
            if not isinstance(data, dict):
                return _json_error('Send {"cards": ["7H", ...], "dropped": false}.')
            raw = data.get("cards", [])
            if not isinstance(raw, (str, list)) or isinstance(raw, list) and len(raw) > 64:
                return _json_error('"cards" must be a list of up to 64 cards, or card text.')
            cards = engine.parse_cards(raw)
            links = data.get("links")
            dropped = bool(data.get("dropped", False))
        else:
            cards = engine.parse_cards(request.form.get("cards", ""))
            links = None
            dropped = bool(request.form.get("dropped"))
        if isinstance(links, list) and len(links) == len(cards):
            links = [x if isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n_read
                     else None for x in links]
        else:
            # keep the photo links of cards that are still there, in order
            pool = list(zip(old.cards, old.links + [None] * (len(old.cards) - len(old.links))))
            links = []
            for c in cards:
                hit = next((i for i, (oc, _) in enumerate(pool) if oc == c), None)
                links.append(pool.pop(hit)[1] if hit is not None else None)
    except engine.RummyError as exc:
        if wants_json():
            return _json_error(str(exc))
        return _render_game(table, g, m, errors=[f"{table.players[seat]}: {exc}"], status=400)
    claim = idem.claim(f"hand:{game_id}:{seat}", idem.fingerprint(cards, links, dropped))
    if claim is None or not claim.done:  # a repeat changes nothing: answer with the current state
        try:
            with transaction() as db:
                G.save_hand(db, game_id, seat, cards=cards, links=links, dropped=dropped)
                if claim:
                    claim.finish(db)
        except BaseException:
            if claim:
                claim.release()
            raise
    if wants_json():
        g, _ = _game_or_404(table, game_id)
        return jsonify(game_state(table, g))
    return redirect(url_for(".game", table_id=table_id, game_id=game_id) + f"#seat-{seat}", 303)


def hand_of(g: G.Game, seat: int) -> G.Hand:
    for h in g.hands:
        if h.seat == seat:
            return h
    abort(404)


PHOTO_TYPES = {"JPEG": ("jpg", "image/jpeg"), "PNG": ("png", "image/png"),
               "WEBP": ("webp", "image/webp"), "GIF": ("gif", "image/gif"),
               "BMP": ("bmp", "image/bmp"), "TIFF": ("tif", "image/tiff"),
               "MPO": ("jpg", "image/jpeg"), "AVIF": ("avif", "image/avif")}  # a HEIC is kept as JPEG


def _sniff(data: bytes) -> tuple[str, str]:
    from PIL import Image
    try:
        with Image.open(io.BytesIO(data)) as im:
            return PHOTO_TYPES.get(im.format or "", ("img", "application/octet-stream"))
    except Exception:
        return ("img", "application/octet-stream")


@bp.post("/<int:table_id>/games/<int:game_id>/hands/<int:seat>/photo")
def upload_photo(table_id: int, game_id: int, seat: int):
    """Read a player's photo; the read cards become the hand (to correct next).

    The photo is read in memory.  It is written to the instance folder (under a
    name the server chooses) only when the table keeps photos.
    """
    table = _table_or_404(table_id)
    g, m = _game_or_404(table, game_id)
    old = hand_of(g, seat)
    if g.status != "open":
        return _json_error("This game is finished; correct it first.", 409) if wants_json() \
            else redirect(url_for(".result", table_id=table_id, game_id=game_id), 303)
    upload = next((f for f in request.files.getlist("photo") if f.filename), None)
    if upload is None:
        msg = "Choose a photo (or take one with the camera) first."
        if wants_json():
            return _json_error(msg)
        return _render_game(table, g, m, errors=[msg], status=400)
    data = upload.read()
    claim = idem.claim(f"photo:{game_id}:{seat}", idem.fingerprint(data))
    if claim and claim.done:  # the same photo sent twice: read once, answer with the state
        return _photo_answer(table, table_id, game_id, seat)
    try:
        # What is kept: the photo itself, or a HEIC's JPEG copy.  A kept HEIC is decoded
        # once, into that copy, and the reader reads the copy (a draft-mode JPEG decode is
        # ~10x faster than a second HEIC decode): its boxes belong to the picture shown.
        kept = (browser_copy(data) or data) if table.keep_photos else None
        reading = read_photo(data if kept is None else kept)  # ReaderError -> 4xx/503 via the app's handlers
    except BaseException:
        if claim:
            claim.release()
        raise
    cards, links = [], []
    for i, c in enumerate(reading["cards"]):
        cards.append(c["code"])
        links.append(i)
    photo = None
    photo_dir = Path(current_app.config["PHOTO_DIR"])
    if table.keep_photos:
        ext, mime = _sniff(kept)
        fname = f"{uuid.uuid4().hex}.{ext}"
        tmp = photo_dir / (fname + ".part")
        tmp.write_bytes(kept)
        os.replace(tmp, photo_dir / fname)
        photo = (fname, mime)
    try:
        with transaction() as db:
            G.save_hand(db, game_id, seat, cards=cards, links=links, reading=reading,
                        photo=photo or ("", ""))
            if claim:
                claim.finish(db)
    except BaseException:
        if claim:
            claim.release()
        if photo:
            _remove_photo(photo[0])
        raise
    if old.photo:
        _remove_photo(old.photo)
    return _photo_answer(table, table_id, game_id, seat)


def _photo_answer(table, table_id: int, game_id: int, seat: int):
    if wants_json():
        g, _ = _game_or_404(table, game_id)
        st = game_state(table, g)
        st["reading"] = hand_of(g, seat).reading
        return jsonify(st)
    return redirect(url_for(".game", table_id=table_id, game_id=game_id) + f"#seat-{seat}", 303)


def _remove_photo(name: str) -> None:
    if not name:
        return
    photo_dir = Path(current_app.config["PHOTO_DIR"]).resolve()
    path = (photo_dir / name).resolve()
    if path.parent == photo_dir:
        path.unlink(missing_ok=True)


@bp.get("/<int:table_id>/games/<int:game_id>/hands/<int:seat>/photo")
def photo(table_id: int, game_id: int, seat: int):
    """A kept photo, found by its hand row (the client never names a path)."""
    row = get_db().execute(
        "SELECT h.photo, h.photo_type FROM hands h JOIN games g ON g.id = h.game_id"
        " WHERE g.table_id = ? AND h.game_id = ? AND h.seat = ?",
        (table_id, game_id, seat)).fetchone()
    if row is None or not row["photo"]:
        abort(404)
    photo_dir = Path(current_app.config["PHOTO_DIR"]).resolve()
    path = (photo_dir / row["photo"]).resolve()
    if path.parent != photo_dir or not path.is_file():
        abort(404)
    return send_file(path, mimetype=row["photo_type"] or "application/octet-stream",
                     max_age=0)


@bp.post("/<int:table_id>/games/<int:game_id>/finish")
def finish(table_id: int, game_id: int):
    table = _table_or_404(table_id)
    g, m = _game_or_404(table, game_id)
    t = table.for_game(g)
    end_type = request.form.get("end_type", "")
    player_raw = request.form.get("end_player", "")
    errors = []
    if end_type not in engine.END_TYPES:
        errors.append("Say how the game ended.")
    end_player = None
    if player_raw != "":
        try:
            end_player = int(player_raw)
        except ValueError:
            end_player = -1
        if not 0 <= end_player < len(table.players):
            errors.append("Choose the player who ended the game.")
            end_player = None
    if end_type in ("declare", "go_out", "four_sevens") and end_player is None:
        errors.append("Choose who " + G.END_LABELS.get(end_type, "ended the game") + ".")
    if end_type != "tie":
        errors.extend(G.hand_issues(t, g.hands)["errors"])
    if errors:
        return _render_game(table, g, m, errors=errors, status=400, form=request.form)
    with transaction():
        get_db().execute(
            "UPDATE games SET status = 'finished', end_type = ?, end_player = ?,"
            " finished_at = strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id = ? AND table_id = ?",
            (end_type, end_player, game_id, table_id))
    return redirect(url_for(".result", table_id=table_id, game_id=game_id), 303)


@bp.get("/<int:table_id>/games/<int:game_id>/result")
def result(table_id: int, game_id: int):
    table = _table_or_404(table_id)
    g, m = _game_or_404(table, game_id)
    if g.status != "finished":
        return redirect(url_for(".game", table_id=table_id, game_id=game_id), 303)
    t = table.for_game(g)
    order = G.turn_order(len(t.players), g.first_player)
    standings = {s.get("name"): s for s in (g.result or {}).get("standings", [])
                 if isinstance(s, dict)}
    rows = []
    for seat in order:
        h = hand_of(g, seat)
        rows.append({"seat": seat, "name": t.players[seat], "hand": h,
                     "score": g.scores.get(seat), "standing": standings.get(t.players[seat], {}),
                     "winner": g.winner == seat})
    tie = tie_picture(t, g, rows) if (g.result or {}).get("tie_break") else None
    return render_template("result.html", table=t, game=g, match=m, rows=rows, tie=tie,
                           end_labels=G.END_LABELS, order=order)


def tie_picture(table: G.Table, g: G.Game, rows: list[dict]) -> dict:
    """Geometry for the SVG of the table: seats clockwise, first player at the bottom."""
    n = len(table.players)
    tb = g.result.get("tie_break") or {}
    tied = set(tb.get("tied") or []) if isinstance(tb, dict) else set()
    if not tied:  # derive from the counts compared
        live = [rw for rw in rows if not rw["hand"].dropped]
        comp = {rw["name"]: rw["standing"].get("comparison", rw["standing"].get(
            "count", (rw["score"] or {}).get("count"))) for rw in live}
        low = min((v for v in comp.values() if v is not None), default=None)
        tied = {name for name, v in comp.items() if v == low}
    cx, cy, r = 210, 190, 112
    seats = []
    for k, seat in enumerate(G.turn_order(n, g.first_player)):
        # k = position in turn order; clockwise on screen from the bottom (6 o'clock)
        theta = math.pi + 2 * math.pi * k / n
        sx, sy = math.sin(theta), -math.cos(theta)
        x, y = cx + r * sx, cy + r * sy
        name = table.players[seat]
        row = next(rw for rw in rows if rw["seat"] == seat)
        count = row["standing"].get("count", (row["score"] or {}).get("count"))
        if sx > 0.35:
            anchor, lx, ly = "start", x + 27, y
        elif sx < -0.35:
            anchor, lx, ly = "end", x - 27, y
        else:
            anchor, lx, ly = "middle", x, (y + 40 if sy > 0 else y - 44)
        seats.append({"seat": seat, "name": name, "x": round(x, 1), "y": round(y, 1),
                      "turn": k + 1, "first": k == 0, "tied": name in tied,
                      "winner": g.winner == seat, "dropped": row["hand"].dropped,
                      "count": count, "anchor": anchor, "lx": round(lx, 1), "ly": round(ly, 1)})
    # a clockwise arc just inside the seats, starting after the first player
    ar = r - 42
    a0, a1 = math.pi + 0.45, math.pi + 0.45 + 1.9
    arc = {"x0": round(cx + ar * math.sin(a0), 1), "y0": round(cy - ar * math.cos(a0), 1),
           "x1": round(cx + ar * math.sin(a1), 1), "y1": round(cy - ar * math.cos(a1), 1),
           "r": ar}
    felt = r - 22
    top = min([cy - felt - 8] + [min(st["y"] - 30, st["ly"] - 22) for st in seats])
    bottom = max([cy + felt + 8] + [max(st["y"] + 30, st["ly"] + 22) for st in seats])
    viewbox = f"0 {round(top)} {2 * cx} {round(bottom - top)}"
    return {"seats": seats, "cx": cx, "cy": cy, "r": r, "arc": arc, "tb": tb, "viewbox": viewbox,
            "tied_names": [s["name"] for s in seats if s["tied"]]}


@bp.post("/<int:table_id>/games/<int:game_id>/reopen")
def reopen(table_id: int, game_id: int):
    """Correct a finished game: back to the scoring page with its hands; results recompute."""
    _table_or_404(table_id)
    with transaction():
        get_db().execute("UPDATE games SET status = 'open', finished_at = NULL"
                         " WHERE id = ? AND table_id = ?", (game_id, table_id))
    flash("Correct the hands or how the game ended, then score it again. "
          "Everything after this game is recomputed.", "ok")
    return redirect(url_for(".game", table_id=table_id, game_id=game_id), 303)


@bp.post("/<int:table_id>/games/<int:game_id>/delete")
def delete_game(table_id: int, game_id: int):
    """Undo a game entirely (and delete its kept photos)."""
    _table_or_404(table_id)
    db = get_db()
    photos = [r["photo"] for r in db.execute(
        "SELECT photo FROM hands WHERE game_id = ?", (game_id,)).fetchall() if r["photo"]]
    with transaction(db):
        db.execute("DELETE FROM games WHERE id = ? AND table_id = ?", (game_id, table_id))
    for p in photos:
        _remove_photo(p)
    flash("Game removed; the match is recomputed without it.", "ok")
    return redirect(url_for(".match", table_id=table_id), 303)
