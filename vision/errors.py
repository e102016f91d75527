"""Errors the card reader raises: each says what is wrong and how to fix it.

All derive from ``PhotoError`` (a ``ValueError``) and carry an HTTP-like
``status`` so the web layer can answer 400/413/415 without guessing.
"""


class ReaderError(ValueError):
    """Base class for everything the vision package reports to a user."""

    status = 400


class PhotoError(ReaderError):
    """The uploaded bytes are not a photo we can read (say which problem)."""

    status = 400


class PhotoTooLarge(PhotoError):
    """File size or pixel count over the limit (decompression bombs too)."""

    status = 413


class UnsupportedPhotoFormat(PhotoError):
    """A real image format we do not decode (HEIC, say), with the fix."""

    status = 415


class ModelUnavailable(ReaderError):
    """The shipped model files are missing or unreadable."""

    status = 503
