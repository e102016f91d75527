"""The companion's web app: ``create_app()`` builds one Flask app per instance folder.

Layout:
- ``db.py``        SQLite in the instance folder (WAL, versioned schema, transactions)
- ``engine.py``    the only module that talks to the scoring engine
- ``reader.py``    the card reader, injectable (``create_app(reader=...)``), vision imported lazily
- ``security.py``  the one place request/response security hooks are registered
                   (LAN mode and table codes, Host check, CSRF, headers)
- ``idempotency.py`` double submissions change things once
- ``views/``       blueprints: pages (``pages``, ``tables``) and the JSON ``api``
"""
from __future__ import annotations

import io
import os
import secrets
from pathlib import Path
from typing import Any, Mapping

from flask import Flask, Request

DEFAULT_MAX_UPLOAD = 25 * 1024 * 1024  # 25 MB: a phone photo is 2-12 MB


def resolve_instance_path(explicit: str | os.PathLike | None = None) -> Path:
    """``explicit`` > ``$COMPANION_INSTANCE`` > ``./instance`` (absolute)."""
    raw = explicit or os.environ.get("COMPANION_INSTANCE") or "instance"
    return Path(raw).expanduser().resolve()


def _secret_key(instance: Path) -> str:
    """Per-instance secret generated on first start and kept in the instance folder."""
    path = instance / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        key = secrets.token_hex(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
        return key


class _Request(Request):
    """Uploads stay in memory (bounded by MAX_CONTENT_LENGTH): a photo that the
    table does not keep is never written to disk, not even to a temporary file."""

    def _get_file_stream(self, total_content_length, content_type, filename=None,
                         content_length=None):
        return io.BytesIO()


class _Flask(Flask):
    request_class = _Request


def create_app(
    test_config: Mapping[str, Any] | None = None,
    reader: Any = None,
    instance_path: str | os.PathLike | None = None,
) -> Flask:
    """Build the app.

    ``test_config`` overrides config keys (``INSTANCE_PATH`` chooses the
    instance folder too); ``reader`` replaces the real card reader (anything
    with ``read(bytes) -> Reading``).
    """
    test_config = dict(test_config or {})
    instance = resolve_instance_path(instance_path or test_config.pop("INSTANCE_PATH", None))
    instance.mkdir(parents=True, exist_ok=True)

    app = _Flask(
        "companion",
        instance_path=str(instance),
        instance_relative_config=True,
        template_folder=str(Path(__file__).resolve().parent.parent / "templates"),
        static_folder=str(Path(__file__).resolve().parent.parent / "static"),
    )
    app.config.from_mapping(
        DATABASE=str(instance / "companion.sqlite3"),
        PHOTO_DIR=str(instance / "photos"),
        MAX_CONTENT_LENGTH=DEFAULT_MAX_UPLOAD,
        LOW_CONFIDENCE=0.6,
    )
    # Optional per-instance settings file (instance/config.py), then test overrides.
    app.config.from_pyfile("config.py", silent=True)
    # No debug mode outside development: Flask would take it from $FLASK_DEBUG;
    # only an explicit test/dev config may turn it on.
    app.config["DEBUG"] = False
    app.config.update(test_config)
    app.debug = bool(app.config.get("DEBUG"))
    app.json.sort_keys = False  # keep the engine's key order in API answers
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)
    Path(app.config["PHOTO_DIR"]).mkdir(parents=True, exist_ok=True)

    from . import db, idempotency, reader as reader_mod, security
    from .views import api, pages, tables
    from . import filters

    db.init_app(app)
    idempotency.init_app(app)
    reader_mod.init_app(app, reader)
    filters.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(tables.bp)
    app.register_blueprint(api.bp)
    api.init_app(app)
    security.init_app(app)
    return app
