"""Widening the index classifier keeps what it reads (Net2WiderNet).

A wider network resumed from narrower weights must start from their exact
readings, or the resumed run first has to win back what it already knew.
"""
import importlib.util

import numpy as np
import pytest

HAVE_TORCH = importlib.util.find_spec("torch") is not None
pytestmark = [pytest.mark.train, pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")]


def _trained_looking(width=1.0, seed=0):
    """A model with random weights and non-trivial batch-norm statistics, as a trained one has."""
    import torch

    from vision.index_net import make_model

    torch.manual_seed(seed)
    model = make_model(width)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
    return model.eval()


def _read(model, x):
    import torch

    model.eval()
    with torch.no_grad():
        return model(x)


@pytest.mark.parametrize("width", [1.5, 2.0, 1.25])
def test_a_widened_model_reads_exactly_as_the_narrow_one(width):
    import torch

    from vision.index_net import channels, make_model, widen_state, width_of

    narrow = _trained_looking()
    wide = make_model(width)
    wide.load_state_dict(widen_state(narrow.state_dict(), width, np.random.default_rng(1), noise=0.0))
    assert width_of(wide.state_dict()) == pytest.approx(width, abs=0.02)
    assert wide.features[8][0].out_channels == channels(width)[-1] > 160
    x = torch.rand(32, 3, 32, 32)
    for before, after in zip(_read(narrow, x), _read(wide, x)):
        assert torch.allclose(before, after, atol=1e-4)


def test_noise_moves_only_the_copies_and_keeps_the_readings():
    import torch

    from vision.index_net import make_model, widen_state

    narrow = _trained_looking()
    state = narrow.state_dict()
    exact = widen_state(state, 1.5, np.random.default_rng(1), noise=0.0)
    nudged = widen_state(state, 1.5, np.random.default_rng(1), noise=0.01)
    first = "features.0.0.weight"
    assert torch.equal(nudged[first][:32], exact[first][:32]), "the original filters are kept as they were"
    assert not torch.equal(nudged[first][32:], exact[first][32:]), "the copies are nudged apart"
    wide = make_model(1.5)
    wide.load_state_dict(nudged)
    x = torch.rand(64, 3, 32, 32)
    before, after = _read(narrow, x), _read(wide, x)
    assert (before[0].argmax(1) == after[0].argmax(1)).float().mean() >= 0.95
    assert (before[1].argmax(1) == after[1].argmax(1)).float().mean() >= 0.95


def test_the_copies_can_learn_apart():
    """Without the nudge a copy's gradient equals its original's, and the extra width stays a copy."""
    import torch

    from vision.index_net import make_model, widen_state

    wide = make_model(1.5)
    wide.load_state_dict(widen_state(_trained_looking().state_dict(), 1.5, np.random.default_rng(2)))
    wide.train()
    rank, suit = wide(torch.rand(16, 3, 32, 32))
    (rank.sum() + suit.sum()).backward()
    grad = wide.features[0][0].weight.grad
    assert grad[32:].abs().sum() > 0
    copies = widen_state(_trained_looking().state_dict(), 1.5, np.random.default_rng(2), noise=0.0)
    assert not torch.allclose(wide.features[0][0].weight[32:], copies["features.0.0.weight"][32:])


def test_a_narrower_or_out_of_range_width_is_refused():
    from vision.index_net import check_width, widen_state

    wide = _trained_looking(1.5).state_dict()
    with pytest.raises(ValueError, match="classifier width 1.25: narrower than the checkpoint's 1.5"):
        widen_state(wide, 1.25, np.random.default_rng(0))
    for bad in (0.5, 3.5, float("nan")):
        with pytest.raises(ValueError, match="must be 1 to 3"):
            check_width(bad)


def test_a_width_that_rounds_is_rebuilt_from_the_weights_shapes():
    """1.3x rounds each layer on its own (42, 62, ... channels); the shapes, not the ratio, rebuild it."""
    from vision.index_net import channels, channels_of, make_model, widen_state

    state = widen_state(_trained_looking().state_dict(), 1.3, np.random.default_rng(0))
    assert channels_of(state) == channels(1.3) == (42, 62, 62, 125, 125, 208)
    make_model(counts=channels_of(state)).load_state_dict(state)
    with pytest.raises(ValueError, match="narrower"):
        widen_state(state, 1.25, np.random.default_rng(0))
