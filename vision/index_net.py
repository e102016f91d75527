"""The corner-index classifier's network, and how to widen a trained one.

Kept apart from the training loop so that its shape, and the one way to
grow it, can be read in one sitting.  Only training imports this (torch);
the reader runs the exported ONNX graph.

Why widening: the 32 px classifier at width 1 (303 k parameters) stopped
improving on more scenes, whatever their share.  A wider network trained
from scratch would take several sessions on this CPU to catch up; a
*function-preserving* widening (Net2WiderNet, Chen et al. 2016) starts
from the shipped weights' exact readings and lets a resumed run use the
extra channels from its first step.
"""
from __future__ import annotations

import numpy as np

from vision.index_crops import RANK_LABELS, SUIT_LABELS

# Output channels of the six conv blocks at width 1.  A width multiplies
# every one (rounded), so the network's depth and pooling never change.
BASE_CHANNELS = (32, 48, 48, 96, 96, 160)
# features.N of each conv block in ``IndexNet.features``.
BLOCK_INDICES = (0, 2, 3, 5, 6, 8)
# Widths a checkpoint may carry: below 1 is not a widening, above 3 too
# slow for the 0.5 s photo budget (2x already costs 2.5x per crop).
MIN_WIDTH, MAX_WIDTH = 1.0, 3.0
# Standard deviation, relative to each layer's weight spread, of the noise
# put on copied filters: without it a copy gets the same gradient as its
# original for ever and the extra width learns nothing.
WIDEN_NOISE = 0.01


def channels(width: float) -> tuple[int, ...]:
    """The six blocks' output channels at ``width``."""
    return tuple(int(round(c * width)) for c in BASE_CHANNELS)


def check_width(width: float) -> float:
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"classifier width {width:g}: must be {MIN_WIDTH:g} to {MAX_WIDTH:g}")
    return float(width)


def channels_of(state: dict) -> tuple[int, ...]:
    """The six blocks' output channels of a state dict, read from its weights' shapes."""
    return tuple(int(state[f"features.{i}.0.weight"].shape[0]) for i in BLOCK_INDICES)


def make_model(width: float = 1.0, counts: tuple[int, ...] | None = None):
    """The network at ``width``, or with exactly ``counts`` channels (as ``channels_of`` a checkpoint)."""
    import torch.nn as nn

    c = tuple(counts) if counts is not None else channels(check_width(width))

    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class IndexNet(nn.Module):
        """~20 MFLOP CNN for a 32x32 index crop at width 1 (~45 at 48x48); rank and suit heads.

        Fully convolutional up to a global average pool, so the same layers
        take any input side; weights trained at one side are a head start at another.

        Sized for CPU training: about 150 crops/s per core including the
        backward pass at width 1, so an hour is half a million augmented crops.
        """

        def __init__(self):
            super().__init__()
            self.width = c[0] / BASE_CHANNELS[0]
            self.features = nn.Sequential(
                block(3, c[0]), nn.MaxPool2d(2),                       # 16
                block(c[0], c[1]), block(c[1], c[2]), nn.MaxPool2d(2),  # 8
                block(c[2], c[3]), block(c[3], c[4]), nn.MaxPool2d(2),  # 4
                block(c[4], c[5]), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2))
            self.rank = nn.Linear(c[5], len(RANK_LABELS))
            self.suit = nn.Linear(c[5], len(SUIT_LABELS))

        def forward(self, x):
            f = self.features(x)
            return self.rank(f), self.suit(f)

    return IndexNet()


def width_of(state: dict) -> float:
    """The width a state dict was made at, as its first conv layer rounded it (1.3x reads 1.3125x).

    For messages and the training log; rebuilding a model uses ``channels_of``.
    """
    return float(state["features.0.0.weight"].shape[0]) / BASE_CHANNELS[0]


def widen_state(state: dict, width: float, rng: np.random.Generator, noise: float = WIDEN_NOISE) -> dict:
    """A state dict for ``make_model(width)`` that reads exactly as ``state`` does (noise 0).

    Each new channel copies a random existing one (conv filter and batch-norm
    statistics alike); the next layer splits its weight for that channel
    evenly between the copies, so their sum is the old contribution.  With
    ``noise`` > 0 the copies are nudged apart (readings move by a hair).
    """
    import torch

    targets = channels(check_width(width))
    if any(new < now for new, now in zip(targets, channels_of(state))):
        raise ValueError(f"classifier width {width:g}: narrower than the checkpoint's {width_of(state):g}")
    out = dict(state)
    mapping = np.arange(3)                 # the input's colour channels are never copied
    counts = np.ones(3)
    for block, cout_new in zip(BLOCK_INDICES, targets):
        conv = f"features.{block}.0.weight"
        w = state[conv]
        cout = w.shape[0]
        new_map = np.concatenate([np.arange(cout), rng.integers(0, cout, cout_new - cout)])
        split = torch.as_tensor(1.0 / counts[mapping], dtype=w.dtype).view(1, -1, 1, 1)
        wide = w[torch.as_tensor(new_map)][:, torch.as_tensor(mapping)] * split
        if noise > 0 and cout_new > cout:
            spread = float(w.std())
            gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
            wide[cout:] += torch.randn(wide[cout:].shape, generator=gen, dtype=w.dtype) * spread * noise
        out[conv] = wide
        for name in ("weight", "bias", "running_mean", "running_var"):
            key = f"features.{block}.1.{name}"
            out[key] = state[key][torch.as_tensor(new_map)].clone()
        mapping, counts = new_map, np.bincount(new_map, minlength=cout).astype(float)
    split = torch.as_tensor(1.0 / counts[mapping], dtype=state["rank.weight"].dtype).view(1, -1)
    for head in ("rank", "suit"):
        out[f"{head}.weight"] = state[f"{head}.weight"][:, torch.as_tensor(mapping)] * split
    return out
