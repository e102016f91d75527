"""The models' input is prepared in one float pass; it must equal the plain three-pass recipe."""
import numpy as np

from vision.blob import to_blob
from vision.index_crops import to_input


def _reference(images):
    return np.ascontiguousarray((images[..., ::-1].astype(np.float32) / 255.0).transpose(0, 3, 1, 2))


def test_blob_is_rgb_channels_first_in_unit_range_and_bit_identical():
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, (4, 5, 7, 3), dtype=np.uint8)
    blob = to_blob(images)
    assert blob.dtype == np.float32 and blob.shape == (4, 3, 5, 7) and blob.flags.c_contiguous
    assert np.array_equal(blob, _reference(images))
    # channel 0 is the image's red, which BGR stores last
    assert np.array_equal(blob[:, 0], images[..., 2].astype(np.float32) / 255.0)
    assert blob.min() >= 0.0 and blob.max() <= 1.0


def test_classifier_input_uses_the_same_preparation():
    crops = np.zeros((2, 3, 3, 3), np.uint8)
    crops[..., 0] = 255  # pure blue in BGR
    x = to_input(crops)
    assert x[:, 2].min() == 1.0 and x[:, :2].max() == 0.0
