"""``python -m companion serve``: the companion on waitress (a production WSGI server).

    python -m companion serve [--host 127.0.0.1] [--port 5000] [--instance DIR] [--threads 8]

The instance folder (SQLite database, secret key, kept photos) comes from
``--instance``, else ``$COMPANION_INSTANCE``, else ``./instance``.  The card
reader is loaded once at start and shared by every request thread.
"""
from __future__ import annotations

import argparse
import logging
import sys

log = logging.getLogger("companion.web")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m companion serve",
                                description="Serve the Declaration Rummy Companion.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    p.add_argument("--instance", metavar="DIR", default=None,
                   help="instance folder for the database and photos "
                        "(default $COMPANION_INSTANCE or ./instance)")
    p.add_argument("--threads", type=int, default=8, help="request threads (default 8)")
    p.add_argument("--no-preload", action="store_true",
                   help="load the card reader on the first photo instead of at start")
    return p


def make_app(instance: str | None = None, preload: bool = True):
    from . import create_app
    from .reader import get_reader

    app = create_app(instance_path=instance)
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

    app = make_app(args.instance, preload=not args.no_preload)
    print(f"Declaration Rummy Companion on http://{args.host}:{args.port}/ "
          f"(instance {app.instance_path})", flush=True)
    serve(app, host=args.host, port=args.port, threads=args.threads,
          max_request_body_size=app.config["MAX_CONTENT_LENGTH"] + 1024 * 1024,
          ident="companion")
    return 0


if __name__ == "__main__":
    sys.exit(main())
