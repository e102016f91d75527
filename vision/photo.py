"""Turn uploaded bytes into an upright BGR image, or say exactly what is wrong.

Why Pillow first: it reads the header (format, size, frame count, EXIF)
without decoding pixels, so a decompression bomb (a tiny file that claims a
gigantic canvas) is refused before any memory is spent, and PDF or
animated files get a specific answer instead of a generic failure.  Pixels
are then decoded at a capped size (JPEG draft mode decodes at 1/2, 1/4 or 1/8
scale directly) and turned upright from the EXIF orientation tag.

HEIC/HEIF, the iPhone camera's default format, is decoded by pillow-heif
(libheif), registered with Pillow the first time a HEIC file arrives.  Most
browsers cannot show a HEIC, so a kept photo is stored as a JPEG
(``browser_copy``).
"""
from __future__ import annotations

import io
import threading
import warnings
from dataclasses import dataclass

import numpy as np
from PIL import Image

from vision.errors import PhotoError, PhotoTooLarge, UnsupportedPhotoFormat

MAX_FILE_BYTES = 25 * 1024 * 1024        # a 12 MP phone JPEG is 3-8 MB
MAX_PIXELS = 60_000_000                   # 60 MP: more is a bomb or a scan, not a photo
MIN_SIDE = 32                             # below this no card can be read
WORK_LONG_SIDE = 2048                     # decode no larger than this (keeps memory bounded)
# A JPEG decoded at 1/2 scale in the DCT needs no resize afterwards, and that
# is several times faster than a full decode and a shrink (loading a
# 4000x3000 photo: 65 ms against 244 ms).  So the working size may fall this far below
# WORK_LONG_SIDE (4000 px -> 2000 px) to get it; indices 2 % smaller read the same.
MIN_DRAFT_FRACTION = 0.9
# Formats without reduced-scale decoding (PNG, WebP, TIFF, BMP, GIF) are decoded whole
# (up to 4 bytes a pixel), so they get a lower cap: 40 MP is 160 MB at most.
MAX_WHOLE_DECODE_PIXELS = 40_000_000
# A HEIC is decoded whole too, but always to 8-bit RGB (3 bytes a pixel), and an
# iPhone's "HEIF Max" photo is 48 MP (8064 x 6048, 146 MB decoded): those must read.
MAX_HEIF_PIXELS = 50_000_000
HEIF_FORMAT = "HEIF"                      # what pillow-heif calls the format it opens

Image.MAX_IMAGE_PIXELS = MAX_PIXELS       # Pillow's own bomb guard, as a second line

_SIGNATURES = [
    (b"%PDF", "a PDF document", "Export the page as a JPEG or take a photo instead."),
    (b"PK\x03\x04", "a ZIP archive (or Office document)", "Upload the photo itself (JPEG or PNG)."),
    (b"GIF8", None, None),
]


@dataclass(frozen=True)
class Photo:
    """An upright photo: ``image`` is BGR uint8, possibly downscaled by ``scale``.

    ``width``/``height`` are the upright photo's own pixel size; multiply
    coordinates in ``image`` by ``1/scale`` to get back to them.
    """

    image: np.ndarray
    width: int
    height: int
    scale: float
    format: str


def _is_heif(head: bytes) -> str | None:
    if len(head) >= 12 and head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"}:
            return "HEIC"
    return None


_heif_lock = threading.Lock()
_heif_state: list[bool] = []  # [] until first asked, then [whether pillow-heif is registered]


def heif_supported() -> bool:
    """Whether HEIC photos can be decoded: pillow-heif imports and is registered with Pillow (once)."""
    with _heif_lock:
        if not _heif_state:
            try:
                import pillow_heif
                pillow_heif.register_heif_opener()
                _heif_state.append(True)
            except Exception:  # not installed, or no wheel for this platform: HEIC gets a clear 415
                _heif_state.append(False)
        return _heif_state[0]


def _decode_limit(fmt: str) -> int | None:
    """The most pixels a format may have when it must be decoded whole; None for JPEG (draft mode)."""
    if fmt == "JPEG":
        return None
    return MAX_HEIF_PIXELS if fmt == HEIF_FORMAT else MAX_WHOLE_DECODE_PIXELS


def load_photo(data: bytes, work_long_side: int = WORK_LONG_SIDE) -> Photo:
    """Decode ``data`` into an upright :class:`Photo` or raise a specific PhotoError."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PhotoError("expected the photo's bytes")
    data = bytes(data)
    if len(data) == 0:
        raise PhotoError("the photo is empty (0 bytes): the upload did not carry a file")
    if len(data) > MAX_FILE_BYTES:
        raise PhotoTooLarge(
            f"the photo is {len(data) / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB. "
            "Take it at a lower resolution or send a JPEG instead of a RAW/PNG file.")
    head = data[:32]
    heif = _is_heif(head)
    if heif and not heif_supported():
        raise UnsupportedPhotoFormat(
            "this is a HEIC/HEIF photo (the iPhone default), and this installation cannot decode it "
            "(pillow-heif is missing: pip install pillow-heif). Fix: install it, or on the iPhone "
            "choose Settings > Camera > Formats > Most Compatible, or share the photo as JPEG.")
    for magic, what, fix in _SIGNATURES:
        if what and head.startswith(magic):
            raise UnsupportedPhotoFormat(f"this file is {what}, not a photo. {fix}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "Corrupt EXIF data": the pixels decide
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            fmt = (img.format or "unknown").upper()
            w, h = img.size
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise PhotoTooLarge(f"the image claims more than {MAX_PIXELS // 1_000_000} million pixels "
                            "(a decompression bomb or a huge scan); send an ordinary photo") from None
    except Exception:
        if heif:
            raise PhotoError("the HEIC photo is damaged or truncated (its header says HEIC, but "
                             "libheif cannot read it); take or export the photo again") from None
        raise PhotoError("the file is not an image we can read (JPEG, PNG, WebP, BMP, TIFF, GIF "
                         "or HEIC); it may be truncated or a different kind of file") from None
    if w * h > MAX_PIXELS:
        raise PhotoTooLarge(f"the image is {w}x{h} pixels ({w * h / 1e6:.0f} MP); the limit is "
                            f"{MAX_PIXELS // 1_000_000} MP. Resize it or use the phone camera's normal setting.")
    limit = _decode_limit(fmt)
    if limit is not None and w * h > limit:
        raise PhotoTooLarge(
            f"the {fmt} image is {w}x{h} pixels ({w * h / 1e6:.0f} MP); a {fmt} file has to be decoded "
            f"whole, so the limit is {limit / 1e6:g} MP (JPEG photos may have "
            f"{MAX_PIXELS // 1_000_000} MP). Send the camera's JPEG, or resize the image.")
    if min(w, h) < MIN_SIDE:
        raise PhotoError(f"the image is only {w}x{h} pixels; a photo of cards needs at least "
                         f"{MIN_SIDE} pixels on each side (a normal phone photo is 3000+ pixels)")
    try:
        frames = int(getattr(img, "n_frames", 1) or 1)
    except Exception:  # counting frames reads the whole file: a damaged one fails here
        raise PhotoError("the image data is damaged or truncated; take or export the photo again") from None
    if frames > 1 and fmt in {"GIF", "WEBP", "PNG", "TIFF"}:  # MPO: JPEG + preview, fine
        raise UnsupportedPhotoFormat(f"this is an animated or multi-page {fmt} with {frames} frames; "
                                     "send a single still photo (JPEG or PNG)")
    orientation = _orientation(img)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow warns about odd metadata; the pixels decide
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            if fmt == "JPEG":
                img.draft("RGB", _draft_request(w, h, work_long_side))  # decode at 1/2..1/8 scale when possible
            img.load()
            img = _small_rgb(img, work_long_side)
            method = _TRANSPOSE.get(orientation)
            if method is not None:
                img = img.transpose(method)
            rgb = np.asarray(img)
    except MemoryError:
        raise PhotoTooLarge("the image is too large to decode on this computer; send a smaller photo") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise PhotoTooLarge(f"the image claims more than {MAX_PIXELS // 1_000_000} million pixels "
                            "(a decompression bomb or a huge scan); send an ordinary photo") from None
    except Exception as exc:  # untrusted bytes: any decoder failure is the file's fault
        what = "the HEIC photo is damaged or truncated" if heif else "the image data is damaged or truncated"
        raise PhotoError(f"{what} ({type(exc).__name__}); take or export the photo again") from None
    up_w, up_h = (h, w) if orientation in (5, 6, 7, 8) else (w, h)
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    scale = bgr.shape[1] / up_w
    return Photo(image=bgr, width=up_w, height=up_h, scale=scale, format=fmt)


# EXIF orientation -> the transpose that turns the stored pixels upright (as
# ImageOps.exif_transpose); any other value (0, 9, garbage) means "as stored".
_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_90,
}


def _orientation(img: Image.Image) -> int:
    """The EXIF orientation tag (1-8), or 1 when absent, out of range or unreadable."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = img.getexif().get(0x0112, 1)
    except Exception:
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _draft_request(w: int, h: int, long_side: int) -> tuple[int, int]:
    """The size to ask JPEG draft mode for: the photo's shape, long side MIN_DRAFT_FRACTION x ``long_side``.

    Draft mode picks the largest DCT reduction that keeps *both* sides at
    least as large as asked, so the request must have the photo's shape: a
    square request would keep a 4000x3000 photo at full size.
    """
    k = min(1.0, long_side * MIN_DRAFT_FRACTION / max(w, h))
    return max(1, int(np.ceil(w * k))), max(1, int(np.ceil(h * k)))


def _small_rgb(img: Image.Image, long_side: int) -> Image.Image:
    """RGB no larger than ``long_side``, shrinking *before* any widening conversion
    (a 16-bit, palette or alpha image converted first would need 2-4x the memory)."""
    mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        step = max(1, -(-max(img.size) // (2 * long_side)))  # subsample first, then filter
        arr = np.asarray(img)[::step, ::step]
        peak = float(arr.max()) if arr.size else 0.0
        if peak > 255:
            arr = np.clip(arr, 0, 65535) / 257.0
        img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "L")
    elif mode == "1":
        img = img.convert("L")
    elif mode in ("P", "PA"):
        img = img.convert("RGBA" if mode == "PA" or "transparency" in img.info else "RGB")
    elif mode not in ("L", "LA", "RGB", "RGBA"):
        img = img.convert("RGB")  # CMYK, YCbCr, LAB, HSV, La, RGBa...
    if max(img.size) > long_side:
        img.thumbnail((long_side, long_side), Image.Resampling.BILINEAR)
    if img.mode in ("LA", "RGBA"):
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, rgba)
    return img.convert("RGB")


BROWSER_COPY_QUALITY = 92  # JPEG quality of a kept HEIC's copy: indistinguishable on screen


def browser_copy(data: bytes) -> bytes | None:
    """A JPEG copy of a photo that browsers cannot show (HEIC), or None when they can show ``data``.

    Only Safari shows HEIC in a page, so a kept HEIC photo is stored as this
    copy.  It is full size and upright (libheif applies the photo's rotation),
    so the reader's boxes, in the photo's own pixels, fit it unchanged.
    """
    if not _is_heif(bytes(data[:32])):
        return None
    import cv2  # the reader's own dependency; imported here so header checks stay light

    photo = load_photo(data, work_long_side=MAX_PIXELS)  # no photo's side is that long: full size
    ok, buf = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, BROWSER_COPY_QUALITY])
    if not ok:  # pragma: no cover - imencode fails only on an empty image, which load_photo refuses
        raise PhotoError("the HEIC photo could not be converted to JPEG")
    return buf.tobytes()
