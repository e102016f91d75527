"""``python -m companion serve``: the companion on waitress (a production WSGI server).

    python -m companion serve [--lan] [--code CODE] [--host 127.0.0.1] [--port 5000]
                              [--instance DIR] [--threads 12]

By default it listens on 127.0.0.1: only this computer can reach it.  ``--lan``
listens on every interface so the players' phones can join, and then every
request from another device needs the table code printed here (and shown on
the host's pages with a QR code); a ``--host`` other than loopback implies
``--lan``.  Flask's debug mode is never on here.

The instance folder (SQLite database, secret key, kept photos) comes from
``--instance``, else ``$COMPANION_INSTANCE``, else ``./instance``.  The card
reader is loaded once at start and shared by every request thread; at most
``PHOTO_SLOTS`` photos are decoded and read at once (each can take ~150 MB
while decoding), so the other threads keep serving pages meanwhile.
"""
from __future__ import annotations

import argparse
import ipaddress
import logging
import socket
import sys

log = logging.getLogger("companion.web")

# One thread per player at the largest table (10), plus two for page loads;
# photos beyond PHOTO_SLOTS queue instead of decoding all at once.
DEFAULT_THREADS = 12


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m companion serve",
                                description="Serve the Declaration Rummy Companion.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only; "
                        "--lan listens on 0.0.0.0)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument("--lan", action="store_true",
                   help="let other devices on the network join, with the table code shown at start")
    p.add_argument("--code", default=None,
                   help="table code for --lan (default: a new random one each start)")
    p.add_argument("--instance", metavar="DIR", default=None,
                   help="instance folder for the database and photos "
                        "(default $COMPANION_INSTANCE or ./instance)")
    p.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                   help=f"request threads (default {DEFAULT_THREADS})")
    p.add_argument("--no-preload", action="store_true",
                   help="load the card reader on the first photo instead of at start")
    return p


def _is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This computer's address on the local network (no packet is sent), or 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))  # UDP connect only picks a route
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def make_app(instance: str | None = None, preload: bool = True, lan: bool = False,
             code: str | None = None, lan_url: str | None = None):
    from . import create_app
    from .reader import get_reader

    config = {"LAN_MODE": bool(lan), "TABLE_CODE": code, "LAN_URL": lan_url}
    app = create_app(config, instance_path=instance)
    app.debug = False
    app.config["DEBUG"] = False
    if preload:
        try:
            get_reader(app)
            log.info("card reader loaded")
        except Exception as exc:  # photos will answer 503 with the reason; typing still works
            log.warning("card reader not loaded: %s", exc)
    return app


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    from waitress import serve

    host = "0.0.0.0" if args.lan and args.host == "127.0.0.1" else args.host
    lan = args.lan or not _is_loopback_host(host)
    if args.code is not None and len("".join(ch for ch in args.code if ch.isalnum())) < 4:
        print("error: --code needs at least 4 letters or digits", file=sys.stderr)
        return 2
    lan_url = None
    if lan:
        shown = lan_address() if host in ("0.0.0.0", "::", "") else host
        lan_url = f"http://{shown}:{args.port}"
    app = make_app(args.instance, preload=not args.no_preload, lan=lan, code=args.code,
                   lan_url=lan_url)
    print(f"Declaration Rummy Companion on http://127.0.0.1:{args.port}/ "
          f"(instance {app.instance_path})", flush=True)
    if lan:
        from .security import format_code, join_url_for
        code = app.config["TABLE_CODE"]
        print(f"Other devices: open {lan_url}/ and enter the table code {format_code(code)}"
              " (or scan the QR code on the host's Share page).", flush=True)
        try:
            import segno
            segno.make(join_url_for(lan_url, code), error="m").terminal(compact=True)
        except Exception:  # a terminal that cannot draw it: the code is printed above
            pass
    else:
        print("Only this computer can connect; use --lan to let the players' phones join.",
              flush=True)
    serve(app, host=host, port=args.port, threads=args.threads,
          max_request_body_size=app.config["MAX_CONTENT_LENGTH"] + 1024 * 1024,
          ident="companion")
    return 0


if __name__ == "__main__":
    sys.exit(main())
