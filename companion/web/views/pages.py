"""Home (tables), rules, meld checker, printable optional cards."""
from __future__ import annotations

import uuid
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, render_template, request

from .. import engine, rules_content
from ..games import GOING_OUT, list_tables
from ..reader import read_photo

bp = Blueprint("pages", __name__)


@bp.get("/")
def home():
    return render_template(
        "home.html", tables=list_tables(), form={}, errors=[],
        optional_kinds=engine.OPTIONAL_KINDS, going_out=GOING_OUT,
        client_token=uuid.uuid4().hex,
    )


@bp.get("/rules")
def rules():
    sections = rules_content.render_sections()
    readings = _extra_readings()
    return render_template("rules.html", sections=sections, readings=readings)


def _extra_readings() -> list[dict] | None:
    """companion/READINGS.md (the engine's extra readings), as simple blocks."""
    path = Path(__file__).resolve().parents[2] / "READINGS.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    return rules_content.simple_markdown(text)


@bp.route("/meld", methods=["GET", "POST"])
def meld():
    text = (request.values.get("cards") or "").strip()
    ctx: dict = {"text": text, "codes": [], "error": None, "reading": None}
    photo = request.files.get("photo") if request.method == "POST" else None
    if photo is not None and photo.filename:
        reading = read_photo(photo.read())
        ctx["reading"] = reading
        text = " ".join(c["code"] for c in reading["cards"])
        ctx["text"] = text
    if text:
        try:
            codes = engine.parse_cards(text)
            if len(codes) > 20:
                raise ValueError(f"{len(codes)} cards is more than the checker handles (20); "
                                 "check a hand at a time.")
            ctx["codes"] = codes
            ctx["score"] = engine.score(codes)
            ctx["single"] = engine.explain_meld(codes) if len(codes) >= 1 else None
            ctx["choices"] = engine.meld_choices(codes)
        except (engine.RummyError, ValueError) as exc:
            ctx["error"] = str(exc)
    status = 400 if ctx["error"] else 200
    return render_template("meld.html", all_codes=engine.ALL_CODES, **ctx), status


@bp.get("/print")
def print_page():
    return render_template("print.html")


@bp.get("/print/optional-cards-<paper>.pdf")
def optional_cards_pdf(paper: str):
    if paper not in ("a4", "letter"):
        abort(404)
    try:
        from vision.printing import sheet_pdf
    except ImportError:
        return render_template(
            "error.html", status=503,
            message="The printable cards are not available in this installation "
                    "(vision.printing is missing). Reinstall the companion with `pip install -e .`.",
        ), 503
    try:
        pdf = sheet_pdf(paper)
    except Exception as exc:  # a missing font/asset: say so instead of a 500
        current_app.logger.exception("sheet_pdf failed")
        return render_template("error.html", status=503,
                               message=f"Could not make the PDF: {exc}"), 503
    return Response(pdf, mimetype="application/pdf", headers={
        "Content-Disposition": f'inline; filename="declaration-rummy-optional-cards-{paper}.pdf"',
    })
