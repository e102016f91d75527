"""JSON API: ``POST /api/score``, ``/api/round``, ``/api/detect``, ``/api/meld``.

Every error is a 4xx (or 503 when the reader is unavailable) with
``{"error": "what is wrong and how to fix it"}``; bad input never gives a 500.
"""
from __future__ import annotations

from flask import Blueprint, Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from .. import engine
from ..openapi import MAX_JSON_BYTES, document
from ..reader import read_photo, reader_errors

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_CARDS = 200


class ApiError(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _json_body() -> dict:
    if (request.content_length or 0) > MAX_JSON_BYTES:
        raise ApiError(f"The JSON body is {request.content_length // 1024} KB; the limit is "
                       f"{MAX_JSON_BYTES // 1024} KB (a whole round is a few KB).", 413)
    try:
        data = request.get_json(silent=True, force=True)
    except RecursionError:
        raise ApiError("The JSON is nested too deeply; send a flat object like "
                       '{"hand": ["7H", "8H", "9H"]}.') from None
    if data is None:
        raise ApiError('The request body is not valid JSON. Send e.g. {"hand": ["7H", "8H", "9H"]} '
                       "with Content-Type: application/json.")
    if not isinstance(data, dict):
        raise ApiError(f"Expected a JSON object, got {type(data).__name__}.")
    return data


def _hand_from(data: dict) -> list[str]:
    if "hand" not in data:
        raise ApiError('Missing "hand": send {"hand": ["7H", "8H", "9H"]} or {"hand": "7H 8H 9H"}.')
    hand = data["hand"]
    if isinstance(hand, str):
        codes = engine.parse_cards(hand)
    elif isinstance(hand, list):
        if len(hand) > MAX_CARDS:
            raise ApiError(f"A hand of {len(hand)} cards is too many (the deck has 64).")
        codes = engine.parse_cards(hand)
    else:
        raise ApiError('"hand" must be a list of cards like ["7H", "WILD"] or a string "7H WILD".')
    return codes


@bp.get("/openapi.json")
def openapi():
    """The API described for people and tools (OpenAPI 3.1)."""
    from flask import current_app
    return jsonify(document(current_app.config.get("MAX_CONTENT_LENGTH") or 0, MAX_CARDS))


@bp.post("/score")
def score():
    codes = _hand_from(_json_body())
    return jsonify(engine.score(codes))


@bp.post("/round")
def round_():
    data = _json_body()
    players = data.get("players")
    if isinstance(players, list) and len(players) > 64:
        raise ApiError("Too many players (2 to 10 play Declaration Rummy).")
    return jsonify(engine.round_result(data))


@bp.post("/meld")
def meld():
    """``{"cards": [...]}`` -> is it one meld (and why not), best arrangement, meld choices."""
    data = _json_body()
    cards = data.get("cards", data.get("hand"))
    if cards is None:
        raise ApiError('Missing "cards": send {"cards": ["KH", "AH", "2H"]}.')
    codes = _hand_from({"hand": cards})
    ok, reason = engine.explain_meld(codes) if codes else (False, "no cards")
    return jsonify({
        "cards": codes, "meld": ok, "reason": reason,
        "score": engine.score(codes), "choices": engine.meld_choices(codes),
    })


@bp.post("/detect")
def detect():
    photo = request.files.get("photo")
    if photo is None:
        raise ApiError('Send the photo as multipart/form-data in a field named "photo".')
    reading = read_photo(photo.read())
    codes = [c["code"] for c in reading["cards"]]
    warnings = list(reading["warnings"])
    try:
        score_json = engine.score(codes)
    except engine.RummyError as exc:
        score_json = None
        warnings.append(f"Not scored: {exc}")
    cards = [{"card": c["code"], "confidence": c["confidence"], "box": c["box"]}
             for c in reading["cards"]]  # the same shape as `python -m vision detect`
    return jsonify({"cards": cards, "score": score_json, "warnings": warnings,
                    "width": reading["width"], "height": reading["height"]})


def _error(message: str, status: int):
    resp = jsonify({"error": message})
    resp.status_code = status
    return resp


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError):
    return _error(str(exc), exc.status)


@bp.errorhandler(engine.RummyError)
def _rummy_error(exc):
    return _error(str(exc), 400)


@bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException):
    return _error(http_message(exc), exc.code or 400)


@bp.errorhandler(Exception)
def _unexpected(exc: Exception):
    from flask import current_app
    if isinstance(exc, reader_errors()):
        return _reader_error(exc)
    current_app.logger.exception("unexpected error in %s", request.path)
    return _error("Something went wrong on the companion's side; the request was not "
                  "processed. Please report it with the input you sent.", 500)


def http_message(exc: HTTPException) -> str:
    if exc.code == 413:
        from flask import current_app
        limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
        return (f"The upload is too large (limit {limit // (1024 * 1024)} MB). "
                "Take the photo at a lower resolution or send a smaller file.")
    if exc.code == 404:
        return ("No such API endpoint: see /api/score, /api/round, /api/detect, /api/meld "
                "(described in /api/openapi.json).")
    if exc.code == 405:
        return f"Use {'GET' if request.path.endswith('/openapi.json') else 'POST'} for {request.path}."
    return exc.description or exc.name


def init_app(app: Flask) -> None:
    """App-level handlers: reader errors anywhere, and JSON for any /api/ path."""
    for cls in reader_errors():
        app.register_error_handler(cls, _reader_error)
    from ..idempotency import StillRunning
    app.register_error_handler(StillRunning, _reader_error)

    def _app_http(exc: HTTPException):
        if request.path.startswith("/api/"):
            return _error(http_message(exc), exc.code or 400)
        if exc.code is None or exc.code < 400:
            return exc
        if request.headers.get("X-Requested-With") == "fetch":
            return _error(http_message(exc), exc.code)
        from flask import render_template
        return render_template("error.html", status=exc.code,
                               message=http_message(exc) if exc.code == 413 else exc.description
                               ), exc.code
    app.register_error_handler(HTTPException, _app_http)


def _reader_error(exc):
    status = int(getattr(exc, "status", 400) or 400)
    message = str(exc) or "The photo could not be read."
    if request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json" \
            or request.headers.get("X-Requested-With") == "fetch":
        return _error(message, status)
    from flask import render_template
    return render_template("error.html", message=message, status=status), status
