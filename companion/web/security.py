"""The one place request/response security hooks are registered (``init_app``).

What a request meets, in order (``_guard``):

1. **Who may talk to the companion.**  Requests from this computer (loopback)
   are served.  By default the server listens on 127.0.0.1 only, so nothing
   else can even connect.  With ``--lan`` (``LAN_MODE``) other devices can
   connect, but a request from any other address is refused with a 403 page
   that explains how to join -- unless its session has joined the table with
   the short **table code** shown on the host's screen (and as a QR code), or
   it sends the code in an ``X-Table-Code`` header (scripts).  Wrong codes are
   rate-limited per address.
2. **Host header** (DNS rebinding): a loopback request must name the
   companion by an IP address, ``localhost`` or a configured
   ``ALLOWED_HOSTS`` name; a web page that rebinds its own domain to
   127.0.0.1 cannot read the companion's pages.
3. **CSRF**: every state-changing request (POST/PUT/PATCH/DELETE) to a page
   or form route must carry the session's token, as the ``csrf_token`` form
   field or the ``X-CSRF-Token`` header (static/js sends it from
   ``<meta name="csrf-token">``), and a browser's ``Origin``, when sent, must
   be this companion.  The JSON API under ``/api/`` changes nothing (it
   scores, judges and reads photos, storing nothing), so it is exempt and
   stays open to scripts on this computer; on the LAN it still needs the code.

Every response gets the security headers (CSP without inline script,
``nosniff``, ``frame-ancestors 'none'``/``X-Frame-Options``, referrer policy).
The session cookie is HttpOnly and SameSite=Lax, signed with the per-instance
secret key (``create_app`` keeps it in the instance folder).
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from collections import defaultdict
from typing import Any
from urllib.parse import urlsplit

from flask import (Flask, Response, abort, current_app, jsonify, redirect, render_template,
                   request, session, url_for)

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

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
CODE_HEADER = "X-Table-Code"
# Table codes: no 0/O, 1/I/L, so they can be read off a screen and typed.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
JOIN_TRIES = 10           # wrong codes allowed per address ...
JOIN_WINDOW_S = 300.0     # ... per five minutes
_OPEN_TO_ALL = ("static", "security.join", "security.join_post")


# --- table codes ----------------------------------------------------------------

def new_table_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return "".join(ch for ch in text.upper() if ch.isalnum())[:32]


def format_code(code: str) -> str:
    """``ABCDEF`` -> ``ABC-DEF`` for people."""
    return f"{code[:3]}-{code[3:]}" if len(code) == 6 else code


def _code_digest(code: str) -> str:
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, b"table-code:" + code.encode(), hashlib.sha256).hexdigest()


def code_matches(text: Any) -> bool:
    code = current_app.config.get("TABLE_CODE") or ""
    given = normalize_code(text)
    return bool(code) and hmac.compare_digest(given.encode(), normalize_code(code).encode())


class _Limiter:
    """Wrong table codes per client address in a sliding window (in memory)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.fails: dict[str, list[float]] = defaultdict(list)

    def blocked(self, addr: str) -> bool:
        now = time.monotonic()
        with self.lock:
            recent = [t for t in self.fails.get(addr, []) if now - t < JOIN_WINDOW_S]
            if recent:
                self.fails[addr] = recent
            else:
                self.fails.pop(addr, None)
            return len(recent) >= JOIN_TRIES

    def fail(self, addr: str) -> None:
        with self.lock:
            self.fails[addr].append(time.monotonic())


# --- who is asking ----------------------------------------------------------------------

def is_loopback(addr: str | None) -> bool:
    try:
        ip = ipaddress.ip_address((addr or "").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def client_is_local() -> bool:
    return is_loopback(request.remote_addr)


def _host_name() -> str:
    host = request.host.lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def host_allowed(name: str) -> bool:
    if name in ("localhost",) or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    allowed = current_app.config.get("ALLOWED_HOSTS") or ()
    return name in {h.lower() for h in allowed}


def joined() -> bool:
    """This request may use the companion from another device."""
    code = current_app.config.get("TABLE_CODE")
    if not current_app.config.get("LAN_MODE") or not code:
        return False
    if code_matches(request.headers.get(CODE_HEADER)):
        return True
    digest = session.get("joined")
    return isinstance(digest, str) and hmac.compare_digest(digest, _code_digest(normalize_code(code)))


# --- CSRF ------------------------------------------------------------------------------

def csrf_token() -> str:
    """This session's token (made on first use); every form and fetch sends it back."""
    token = session.get("csrf")
    if not isinstance(token, str) or len(token) < 32:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def _csrf_ok() -> bool:
    expected = session.get("csrf")
    if not isinstance(expected, str) or len(expected) < 32:
        return False
    given = request.headers.get(CSRF_HEADER)
    if not given and request.mimetype in ("application/x-www-form-urlencoded",
                                          "multipart/form-data"):
        given = request.form.get(CSRF_FIELD)
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


def _origin_ok() -> bool:
    origin = request.headers.get("Origin")
    if not origin:
        return True  # not a browser, or an old one; the token still decides
    if origin == "null":
        return False
    parts = urlsplit(origin)
    return parts.netloc.lower() == request.host.lower() and parts.scheme == request.scheme


def _wants_json() -> bool:
    return (request.path.startswith("/api/") or request.is_json
            or request.headers.get("X-Requested-With") == "fetch"
            or request.accept_mimetypes.best == "application/json")


def _refuse(status: int, message: str, template: str = "error.html", **ctx):
    if _wants_json():
        resp = jsonify({"error": message})
        resp.status_code = status
        return resp
    return render_template(template, status=status, message=message, **ctx), status


def _guard():
    if request.endpoint == "static":
        return None
    local = client_is_local()
    if local:
        if not host_allowed(_host_name()):
            return _refuse(
                400, f"This companion answers to 127.0.0.1 or localhost, not {request.host!r} "
                     "(a web page may be trying to reach it through its own name). "
                     "Open http://127.0.0.1:" + (request.host.rsplit(":", 1)[-1]
                                                 if ":" in request.host else "5000") + "/ instead.")
    elif not current_app.config.get("LAN_MODE"):
        return _refuse(403, "This companion serves only the computer it runs on. To let phones "
                            "join, restart it with --lan and enter the table code it shows.")
    elif request.endpoint not in _OPEN_TO_ALL and not joined():
        return _refuse(403, "This companion belongs to a card table: to join, enter the table "
                            "code shown on the host's screen (or scan its QR code).",
                       template="join.html", error=None)
    if request.method not in SAFE_METHODS and not request.path.startswith("/api/"):
        if not _origin_ok():
            return _refuse(403, "This form came from another web site, so it was refused.")
        if not _csrf_ok():
            return _refuse(400, "This form's security token is missing or out of date. "
                                "Reload the page and try again.")
    return None


# --- joining (LAN mode) ----------------------------------------------------------------

def join():
    if not current_app.config.get("LAN_MODE"):
        return redirect(url_for("pages.home"), 303)
    code = request.args.get("code")
    if code is not None:  # the QR code's link
        return _try_code(code)
    if client_is_local() or joined():
        return redirect(url_for("pages.home"), 303)
    return render_template("join.html", status=200, message=None, error=None)


def join_post():
    if not current_app.config.get("LAN_MODE"):
        abort(404)
    return _try_code(request.form.get("code"))


def _try_code(text):
    limiter: _Limiter = current_app.extensions["companion_join_limiter"]
    addr = request.remote_addr or "?"
    if limiter.blocked(addr):
        return render_template("join.html", status=429, message=None,
                               error="Too many wrong codes from this device; wait five minutes "
                                     "and try again."), 429
    if not code_matches(text):
        limiter.fail(addr)
        return render_template("join.html", status=403, message=None,
                               error="That is not this table's code. Check the host's screen "
                                     "(letters and digits, like ABC-123)."), 403
    session["joined"] = _code_digest(normalize_code(current_app.config["TABLE_CODE"]))
    session.permanent = True
    return redirect(url_for("pages.home"), 303)


def share():
    """The host's page: the code, the address and the QR code for the other devices."""
    if not current_app.config.get("LAN_MODE") or not client_is_local():
        abort(404)
    return render_template("share.html", code=format_code(current_app.config["TABLE_CODE"]),
                           join_url=join_url(), plain_url=lan_url())


def share_qr():
    if not current_app.config.get("LAN_MODE") or not client_is_local():
        abort(404)
    svg = qr_svg(join_url())
    resp = Response(svg, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


def lan_url() -> str:
    return (current_app.config.get("LAN_URL") or request.host_url).rstrip("/")


def join_url() -> str:
    return join_url_for(lan_url(), current_app.config.get("TABLE_CODE") or "")


def join_url_for(base: str, code: str) -> str:
    """The QR code's link: opening it joins the table."""
    return f"{base.rstrip('/')}/join?code={code}"


def qr_svg(text: str) -> str:
    """The QR code for ``text`` as an SVG document (segno: pure Python, no downloads)."""
    import io

    import segno
    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="svg", scale=6, border=2, xmldecl=False,
                                     svgns=True, title="Scan to join the table")
    return buf.getvalue().decode("utf-8")


def _lan_context() -> dict:
    if not current_app.config.get("LAN_MODE"):
        return {"lan": None}
    if not client_is_local():
        return {"lan": {"host": False}}
    return {"lan": {"host": True, "code": format_code(current_app.config.get("TABLE_CODE") or ""),
                    "url": lan_url()}}


# --- headers ---------------------------------------------------------------------------

def _headers(resp: Response) -> Response:
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    resp.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    resp.headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")
    resp.headers.setdefault("Permissions-Policy", "camera=(self), microphone=(), geolocation=()")
    if request.endpoint != "static" and resp.mimetype == "text/html":
        resp.headers.setdefault("Cache-Control", "no-store")  # pages carry the CSRF token
    return resp


def init_app(app: Flask) -> None:
    app.config.setdefault("LAN_MODE", False)
    app.config.setdefault("TABLE_CODE", None)
    app.config.setdefault("LAN_URL", None)
    app.config.setdefault("ALLOWED_HOSTS", ())
    if app.config["LAN_MODE"] and not app.config["TABLE_CODE"]:
        app.config["TABLE_CODE"] = new_table_code()
    if app.config["TABLE_CODE"]:
        app.config["TABLE_CODE"] = normalize_code(app.config["TABLE_CODE"])
    app.config.setdefault("SESSION_COOKIE_HTTPONLY", True)
    app.config["SESSION_COOKIE_SAMESITE"] = app.config.get("SESSION_COOKIE_SAMESITE") or "Lax"
    # Cookies ignore ports: two companions on one computer must not share a cookie name.
    suffix = hashlib.sha256(str(app.config["SECRET_KEY"]).encode()).hexdigest()[:8]
    app.config["SESSION_COOKIE_NAME"] = f"companion_{suffix}"
    app.config["PERMANENT_SESSION_LIFETIME"] = 12 * 3600  # a joined phone stays joined for an evening
    app.extensions["companion_join_limiter"] = _Limiter()
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.context_processor(_lan_context)
    app.before_request(_guard)
    app.add_url_rule("/join", "security.join", join, methods=["GET"])
    app.add_url_rule("/join", "security.join_post", join_post, methods=["POST"])
    app.add_url_rule("/share", "security.share", share, methods=["GET"])
    app.add_url_rule("/share/qr.svg", "security.share_qr", share_qr, methods=["GET"])
    app.after_request(_headers)
