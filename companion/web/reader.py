"""Access to the card reader.

``create_app(reader=...)`` injects any object with ``read(bytes) -> Reading``;
otherwise the shared reader from ``vision.reader.get_reader()`` is used,
imported only when a photo first arrives (or when the server preloads it),
so pages that never see a photo never import the vision stack.
"""
from __future__ import annotations

import os
import threading
from typing import Any

from flask import Flask, current_app


class ReaderUnavailable(Exception):
    """The vision package or its model cannot be loaded (HTTP 503)."""

    status = 503


_lock = threading.Lock()


def _default_slots() -> int:
    return max(2, min(4, os.cpu_count() or 2))


def init_app(app: Flask, reader: Any = None) -> None:
    app.extensions["companion_reader"] = reader
    # Photos decoded and read at once: each may hold ~150 MB while decoding, and
    # the model runs one at a time anyway; the other request threads stay free.
    app.config.setdefault("PHOTO_SLOTS", _default_slots())
    app.extensions["companion_photo_slots"] = threading.BoundedSemaphore(app.config["PHOTO_SLOTS"])


def get_reader(app: Flask | None = None) -> Any:
    app = app or current_app
    reader = app.extensions.get("companion_reader")
    if reader is not None:
        return reader
    with _lock:
        reader = app.extensions.get("companion_reader")
        if reader is None:
            try:
                from vision.reader import get_reader as vision_get_reader
            except ImportError as exc:  # vision not installed / not written yet
                raise ReaderUnavailable(
                    f"The card reader is not available ({exc}). Type the cards instead, "
                    "or install the companion with its vision dependencies."
                ) from exc
            reader = vision_get_reader()
            app.extensions["companion_reader"] = reader
    return reader


def reader_errors() -> tuple[type[BaseException], ...]:
    """Exception classes the reader raises that carry ``.status`` and a user message."""
    try:
        from vision.errors import ReaderError
    except ImportError:
        return (ReaderUnavailable,)
    return (ReaderError, ReaderUnavailable)


def read_photo(data: bytes) -> dict:
    """Read ``data`` and return plain JSON: cards (code, confidence, box), warnings, size."""
    if not data:
        from_vision = _photo_error()
        raise from_vision("The photo is empty (0 bytes). Choose or take the photo again.")
    reader = get_reader()
    with current_app.extensions["companion_photo_slots"]:
        reading = reader.read(data)
    cards = []
    for c in reading.cards:
        box = [round(float(v), 1) for v in c.box]
        cards.append({"code": str(c.code), "confidence": round(float(c.confidence), 3), "box": box})
    return {
        "cards": cards,
        "warnings": [str(w) for w in getattr(reading, "warnings", [])],
        "width": int(reading.width),
        "height": int(reading.height),
    }


def browser_copy(data: bytes) -> bytes | None:
    """A JPEG to keep instead of a photo browsers cannot show (HEIC), or None to keep ``data`` itself.

    Decoding a full-size HEIC holds as much memory as reading one, so it takes a photo slot too.
    """
    try:
        from vision.photo import browser_copy as vision_browser_copy
    except ImportError:  # no vision stack: nothing was read either, so nothing is kept
        return None
    with current_app.extensions["companion_photo_slots"]:
        return vision_browser_copy(data)


def _photo_error() -> type[Exception]:
    try:
        from vision.errors import PhotoError
        return PhotoError
    except ImportError:
        return _EmptyPhoto


class _EmptyPhoto(ValueError):
    status = 400
