"""The OpenAPI 3.1 document of the JSON API, served at ``GET /api/openapi.json``.

Built in Python so the card list and the limits come from the code they
describe.  Schemas are plain JSON Schema (2020-12 subset), so a fuzzer can
generate requests from them (``tests/robust/test_api_fuzz.py`` does).
"""
from __future__ import annotations

from . import engine

MAX_JSON_BYTES = 1024 * 1024  # a round of 10 players is a few KB


def _error(description: str) -> dict:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def document(max_upload: int = 25 * 1024 * 1024, max_cards: int = 200) -> dict:
    card = {
        "description": "A card: a canonical code (10H, QS, AD, COUNT7, NOMELD2, NODECLARE0, WILD) or "
                       "any accepted spelling (10h, T♥, COUNT 7, NO MELD 2, CAN'T DECLARE 0, WILDCARD).",
        "anyOf": [{"enum": list(engine.ALL_CODES)}, {"type": "string", "maxLength": 40}],
    }
    hand = {
        "description": "A list of cards, or the cards as text separated by spaces or commas.",
        "anyOf": [{"type": "array", "items": {"$ref": "#/components/schemas/Card"},
                   "maxItems": max_cards},
                  {"type": "string", "maxLength": 2000}],
    }
    meld = {"type": "object", "required": ["kind", "cards"],
            "properties": {"kind": {"enum": ["group", "sequence", "count"]},
                           "cards": {"type": "array", "items": {"type": "string"}}}}
    score = {
        "type": "object", "required": ["hand", "count", "melds", "unmelded", "can_go_out"],
        "properties": {"hand": {"type": "array", "items": {"type": "string"}},
                       "count": {"type": "integer", "minimum": 0},
                       "melds": {"type": "array", "items": {"$ref": "#/components/schemas/Meld"}},
                       "unmelded": {"type": "array", "items": {"type": "string"}},
                       "can_go_out": {"type": "boolean"}},
    }
    round_in = {
        "type": "object", "required": ["players", "end"], "additionalProperties": False,
        "properties": {
            "players": {"type": "array", "minItems": 2, "maxItems": 10, "items": {
                "type": "object", "required": ["name", "hand"], "additionalProperties": False,
                "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 60},
                               "hand": {"type": "array", "maxItems": 64,
                                        "items": {"$ref": "#/components/schemas/Card"}},
                               "dropped": {"type": "boolean"}}}},
            "end": {"type": "object", "required": ["type"], "additionalProperties": False,
                    "properties": {"type": {"enum": list(engine.END_TYPES)},
                                   "player": {"type": ["string", "null"]}}},
            "variations": {"type": "object", "additionalProperties": False,
                           "properties": {"gin": {"type": "boolean"},
                                          "declare_bonus": {"type": "boolean"},
                                          "going_out": {"enum": ["standard", "major", "minor"]},
                                          "four_sevens": {"type": "boolean"}}},
        },
    }
    round_out = {
        "type": "object", "required": ["winner", "legal", "reason", "standings", "tie_break"],
        "properties": {
            "winner": {"type": ["string", "null"]}, "legal": {"type": "boolean"},
            "reason": {"type": "string"},
            "standings": {"type": "array", "items": {
                "type": "object", "required": ["name", "seat", "dropped", "hand", "count"],
                "properties": {"name": {"type": "string"}, "seat": {"type": "integer"},
                               "dropped": {"type": "boolean"},
                               "hand": {"type": "array", "items": {"type": "string"}},
                               "count": {"type": ["integer", "null"]},
                               "comparison": {"type": ["integer", "null"]},
                               "melds": {"type": "array"}, "unmelded": {"type": "array"}}}},
            "tie_break": {"type": ["string", "null"]},
        },
    }
    meld_out = {
        "type": "object", "required": ["cards", "meld", "reason", "score", "choices"],
        "properties": {"cards": {"type": "array", "items": {"type": "string"}},
                       "meld": {"type": "boolean"}, "reason": {"type": "string"},
                       "score": {"$ref": "#/components/schemas/Score"},
                       "choices": {"type": "object"}},
    }
    detect_out = {
        "type": "object", "required": ["cards", "score", "warnings", "width", "height"],
        "properties": {
            "cards": {"type": "array", "items": {
                "type": "object", "required": ["card", "confidence", "box"],
                "properties": {"card": {"type": "string"},
                               "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                               "box": {"type": "array", "items": {"type": "number"},
                                       "minItems": 4, "maxItems": 4}}}},
            "score": {"anyOf": [{"$ref": "#/components/schemas/Score"}, {"type": "null"}]},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "width": {"type": "integer"}, "height": {"type": "integer"},
        },
    }
    bad = _error("Bad input: the message says what is wrong and how to fix it.")
    too_big = _error("The body is too large.")

    def json_op(summary: str, req: str, res: str, example: dict) -> dict:
        return {"post": {
            "summary": summary,
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{req}"}, "example": example}}},
            "responses": {"200": {"description": "The answer.", "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{res}"}}}},
                "400": bad, "413": too_big},
        }}

    return {
        "openapi": "3.1.0",
        "info": {"title": "Declaration Rummy Companion API", "version": "1",
                 "description": "Scores hands, judges rounds and reads photos; stores nothing. "
                                "Every error is a 4xx (503 when the card reader is not available) "
                                "with {\"error\": \"what is wrong and how to fix it\"}. "
                                "Open to scripts on this computer; from other devices (--lan) send "
                                "the table code in the X-Table-Code header."},
        "servers": [{"url": "/"}],
        "paths": {
            "/api/score": json_op("Score one hand", "ScoreRequest", "Score",
                                  {"hand": ["7H", "8H", "9H", "KS"]}),
            "/api/round": json_op("Judge a round", "Round", "RoundResult",
                                  {"players": [{"name": "Ann", "hand": ["7H", "8H", "9H"]},
                                               {"name": "Bob", "hand": ["KS", "QS"]}],
                                   "end": {"type": "declare", "player": "Ann"}}),
            "/api/meld": json_op("Check cards as a meld, with the best arrangement and choices",
                                 "MeldRequest", "MeldResult", {"cards": ["KH", "AH", "2H"]}),
            "/api/detect": {"post": {
                "summary": "Read the cards in a photo (JPEG, PNG, WebP, BMP, TIFF, GIF)",
                "requestBody": {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "required": ["photo"],
                               "properties": {"photo": {"type": "string", "format": "binary",
                                                        "maxLength": max_upload}}}}}},
                "responses": {
                    "200": {"description": "The cards read.", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/DetectResult"}}}},
                    "400": bad, "413": _error("The file or the image is too large."),
                    "415": _error("A format the companion cannot decode (PDF, animated; HEIC where pillow-heif is missing)."),
                    "503": _error("The card reader is not available."),
                }}},
            "/api/openapi.json": {"get": {"summary": "This document",
                                          "responses": {"200": {"description": "OpenAPI 3.1"}}}},
        },
        "components": {"schemas": {
            "Card": card, "Hand": hand, "Meld": meld, "Score": score,
            "ScoreRequest": {"type": "object", "required": ["hand"],
                             "properties": {"hand": {"$ref": "#/components/schemas/Hand"}}},
            "Round": round_in, "RoundResult": round_out,
            "MeldRequest": {"type": "object", "required": ["cards"],
                            "properties": {"cards": {"$ref": "#/components/schemas/Hand"}}},
            "MeldResult": meld_out, "DetectResult": detect_out,
            "Error": {"type": "object", "required": ["error"],
                      "properties": {"error": {"type": "string", "minLength": 1}}},
        }},
    }
