"""Crops shrunk from a large index must average pixels, not skip them."""
import cv2
import numpy as np
import pytest

from vision.index_crops import cut_crop
from vision.resample import warp_window


def _stripes(period: int = 2, size: int = 800) -> np.ndarray:
    """Black and white vertical stripes: any pixel-skipping shrink turns them into bars."""
    x = np.arange(size)
    row = np.where((x // (period // 2)) % 2 == 0, 0, 255).astype(np.uint8)
    return np.repeat(np.repeat(row[None, :, None], size, axis=0), 3, axis=2)


def _gradient(w: int = 1200, h: int = 1000) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.dstack([xx / w * 255, yy / h * 255, np.full_like(xx, 128)]).astype(np.uint8)


def test_shrinking_fine_stripes_gives_even_grey():
    # a 250 px box cut to 32 px: a bilinear warp alone samples every ~8th pixel
    crop = cut_crop(_stripes(), (300.0, 300.0, 550.0, 550.0), 1.0, 32)
    assert abs(float(crop.mean()) - 127.5) < 8
    assert float(crop.std()) < 10  # plain warpAffine gives a std near 127 here


@pytest.mark.parametrize("sx,sy,tx,ty", [(0.2, 0.2, -50.3, -30.7), (0.1, 0.15, -20.0, -10.0), (0.5, 0.3, 10.0, 5.0)])
def test_same_geometry_as_a_plain_warp(sx, sy, tx, ty):
    img = _gradient()
    ours = warp_window(img, sx, sy, tx, ty, (32, 32))
    plain = cv2.warpAffine(img, np.float32([[sx, 0, tx], [0, sy, ty]]), (32, 32), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    # on a smooth ramp the two can differ only by rounding: same place, same scale
    assert np.abs(ours.astype(int) - plain).max() <= 2


def test_window_past_the_photo_edge_uses_the_border_rule():
    img = np.full((400, 400, 3), 200, np.uint8)
    out = warp_window(img, 0.25, 0.25, -90.0, -90.0, (32, 32), cv2.BORDER_CONSTANT, (114, 114, 114))
    assert (out[:, -4:] == 114).all()  # photo x beyond 400: the constant grey
    assert (out[:8, :8] == 200).all()  # inside the photo


def test_window_wholly_outside_the_photo_is_border():
    img = np.full((100, 100, 3), 200, np.uint8)
    out = warp_window(img, 0.1, 0.1, 500.0, 500.0, (16, 16), cv2.BORDER_CONSTANT, (114, 114, 114))
    assert (out == 114).all()
