"""The one place security hooks are registered (``init_app``).

What is here now: response headers (CSP without inline script, nosniff,
frame-ancestors, referrer policy) and a ``csrf_token()`` template global that
every state-changing form and every ``fetch`` already sends (hidden field
``csrf_token`` / header ``X-CSRF-Token``, read by static/js from
``<meta name="csrf-token">``).  The token is a placeholder until the
shared-network work (issue 6) adds validation, LAN mode and table codes
here: add ``before_request`` hooks in ``init_app`` and return a real token
from ``csrf_token``; no template or script needs to change.
"""
from __future__ import annotations

from flask import Flask, Response

CSP = (
    "default-src 'self'; "
    "script-src 'self'; "
    "style-src 'self'; "
    "img-src 'self' blob: data:; "
    "media-src 'self' blob:; "
    "connect-src 'self'; "
    "object-src 'none'; "
    "base-uri 'none'; "
    "form-action 'self'; "
    "frame-ancestors 'none'"
)


def csrf_token() -> str:
    """Token to embed in forms; empty until CSRF validation is added here."""
    return ""


def _headers(resp: Response) -> Response:
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    return resp


def init_app(app: Flask) -> None:
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.after_request(_headers)
