"""The index classifier's input side travels with its weights.

A classifier can be trained (or fine-tuned from smaller weights) at another
crop side; the checkpoint records the side, the ONNX export fixes it, and the
reader cuts its crops at whatever side the shipped model asks for.
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from vision.index_crops import INPUT_SIZE, MAX_INPUT_SIZE, STORE_SIZE, code_to_targets, input_size

HAVE_TORCH = importlib.util.find_spec("torch") is not None
ROOT = Path(__file__).resolve().parents[1]


class _Input:
    def __init__(self, shape):
        self.shape = shape


class _Session:
    def __init__(self, shape):
        self._inputs = [_Input(shape)]

    def get_inputs(self):
        return self._inputs


def test_input_size_is_read_from_the_model():
    assert input_size(_Session(["n", 3, 48, 48])) == 48
    assert input_size(_Session(["n", 3, 32, 32])) == 32


def test_a_model_with_a_dynamic_side_gets_the_default():
    assert input_size(_Session(["n", 3, "h", "w"])) == INPUT_SIZE


def test_the_stored_crops_hold_48_px_of_the_window():
    assert MAX_INPUT_SIZE == 48


def _tiny_bank(path: Path) -> Path:
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 255, (16, STORE_SIZE, STORE_SIZE, 3), dtype=np.uint8)
    targets = [code_to_targets(c) for c in ("7H", "KS", "WILD", "JUNK")] * 4
    np.savez_compressed(path, crops=crops, rank=np.array([t[0] for t in targets]),
                        suit=np.array([t[1] for t in targets]))
    return path


def _seeded_model(width, torch):
    """An untrained classifier of ``width``, the same every run, in evaluation mode."""
    from vision.classifier_train import make_model

    torch.manual_seed(0)
    return make_model(width).eval()


@pytest.fixture
def scratch_models(tmp_path, monkeypatch):
    from vision import classifier_train

    models = tmp_path / "models"
    monkeypatch.setattr(classifier_train, "MODELS", models)
    monkeypatch.setattr(classifier_train, "CLASSIFIER_PT", models / "index_classifier.pt")
    monkeypatch.setattr(classifier_train, "CLASSIFIER_ONNX", models / "index_classifier.onnx")
    return models


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_fine_tuning_at_a_larger_side_reaches_the_reader(tmp_path, scratch_models):
    import torch

    from vision.classifier_train import load_checkpoint, train

    bank = _tiny_bank(tmp_path / "bank.npz")
    first = train([bank], bank, minutes=0.001, batch=8, lr=1e-3, fresh=True, threads=1)
    assert first["input_size"] == INPUT_SIZE
    second = train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1, input_size=48)
    assert second["input_size"] == 48
    assert load_checkpoint(scratch_models / "index_classifier.pt", torch)[1] == 48
    third = train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1)
    assert third["input_size"] == 48, "a resumed run keeps the side it resumed"

    from vision.reader import CardReader

    reader = CardReader(ROOT / "models" / "corner_detector.onnx", scratch_models / "index_classifier.onnx",
                        threads=1)
    assert reader.input_size == 48
    from vision.detector import Corner

    read = reader.classify(np.full((200, 200, 3), 200, np.uint8), [Corner((10, 10, 40, 60), 0.9)])
    assert len(read) == 1 and read[0].code


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_old_checkpoints_are_32_px_state_dicts(tmp_path):
    import torch

    from vision.classifier_train import load_checkpoint, make_model

    path = tmp_path / "old.pt"
    torch.save(make_model().state_dict(), path)
    state, side = load_checkpoint(path, torch)
    assert side == 32 and "rank.weight" in state


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_checkpoints_are_stored_at_half_precision_and_resume_at_full(tmp_path, scratch_models):
    import torch

    from vision.classifier_train import augment, load_checkpoint, make_model, save_checkpoint

    trained = _seeded_model(1.5, torch)
    scratch_models.mkdir()
    save_checkpoint(trained, 40, torch)
    raw = torch.load(scratch_models / "index_classifier.pt", map_location="cpu")["state_dict"]
    assert raw["rank.weight"].dtype == torch.float16
    assert raw["features.0.1.num_batches_tracked"].dtype == torch.int64, "counters keep their type"
    state, side = load_checkpoint(scratch_models / "index_classifier.pt", torch)
    assert side == 40
    assert all(v.dtype == torch.float32 for v in state.values() if v.is_floating_point())
    resumed = make_model(1.5)
    resumed.load_state_dict(state)
    resumed.eval()
    x = augment(np.load(_tiny_bank(tmp_path / "bank.npz"))["crops"], None, torch, train=False)
    with torch.no_grad():
        (before, _), (after, _) = trained(x), resumed(x)
    assert torch.equal(before.argmax(1), after.argmax(1))
    assert (before - after).abs().max() < 1e-2 * before.abs().max()


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_the_export_stores_weights_at_half_precision_and_reads_as_torch(tmp_path, scratch_models):
    """A 2x-wide classifier's ONNX is about half its float32 size, and onnxruntime reads as torch does."""
    import onnx
    import torch

    from vision.classifier_train import augment, export_onnx
    from vision.detector import make_session
    from vision.onnx_half import store_weights_half

    model = _seeded_model(2.0, torch)
    scratch_models.mkdir()
    path = export_onnx(model, torch, 32)
    stored = onnx.load(str(path)).graph.initializer
    assert {i.data_type for i in stored if len(i.dims) == 4} == {onnx.TensorProto.FLOAT16}
    params = sum(p.numel() for p in model.parameters())
    assert 2 * params < path.stat().st_size < 2.2 * params, "two bytes per weight, not four"
    assert store_weights_half(path)["weights"] == 0, "halving twice changes nothing"
    x = augment(np.load(_tiny_bank(tmp_path / "bank.npz"))["crops"], None, torch, train=False)
    with torch.no_grad():
        want_rank, want_suit = (t.numpy() for t in model(x))
    got_rank, got_suit = make_session(path, 1).run(None, {"crops": x.numpy()})
    for want, got in ((want_rank, got_rank), (want_suit, got_suit)):
        assert np.array_equal(want.argmax(1), got.argmax(1))
        assert np.abs(want - got).max() < 1e-2 * np.abs(want).max()


def test_the_shipped_weights_fit_the_15_mb_budget():
    weights = [p for p in (ROOT / "models").iterdir() if p.suffix in (".onnx", ".pt")]
    assert {p.name for p in weights} >= {"corner_detector.onnx", "index_classifier.onnx"}
    assert sum(p.stat().st_size for p in weights) < 15_000_000


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_a_side_the_stored_crops_cannot_fill_is_refused(tmp_path, scratch_models):
    from vision.classifier_train import train

    bank = _tiny_bank(tmp_path / "bank.npz")
    with pytest.raises(ValueError, match="input size 64 px: must be 8 to 48"):
        train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=True, threads=1, input_size=64)


@pytest.mark.parametrize("arg, message", [("64", "64 px: must be 8 to 48"), ("big", "'big' is not a whole number")])
def test_the_command_names_a_bad_input_size(arg, message, capsys):
    from vision.classifier_train import main

    with pytest.raises(SystemExit) as exit_:
        main(["fit", "--bank", "x.npz", "--input-size", arg])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_each_bank_is_drawn_by_its_share_whatever_its_size():
    from vision.classifier_train import draw_weights

    equal = draw_weights([10, 1000], [1.0, 1.0])
    assert equal[:10].sum() == pytest.approx(0.5) and equal[10:].sum() == pytest.approx(0.5)
    weighted = draw_weights([10, 1000, 40], [1.0, 0.5, 0.5])
    assert [weighted[:10].sum(), weighted[10:1010].sum(), weighted[1010:].sum()] == pytest.approx([0.5, 0.25, 0.25])


@pytest.mark.parametrize("arg, expected", [("a/b.npz", ("a/b.npz", 1.0)), ("a/b.npz=0.5", ("a/b.npz", 0.5)),
                                           ("x=y.npz=2", ("x=y.npz", 2.0))])
def test_a_bank_argument_names_its_share(arg, expected):
    from vision.classifier_train import bank_with_share

    path, share = bank_with_share(arg)
    assert (str(path), share) == expected


@pytest.mark.parametrize("arg, message", [("b.npz=half", "bank 'b.npz=half': share 'half' is not a number"),
                                          ("b.npz=0", "share must be a positive number, not 0"),
                                          ("b.npz=-1", "share must be a positive number, not -1"),
                                          ("b.npz=nan", "share must be a positive number, not nan")])
def test_the_command_names_a_bad_bank_share(arg, message, capsys):
    from vision.classifier_train import main

    with pytest.raises(SystemExit) as exit_:
        main(["fit", "--bank", arg])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_shares_must_match_the_banks(tmp_path, scratch_models):
    from vision.classifier_train import train

    bank = _tiny_bank(tmp_path / "bank.npz")
    with pytest.raises(ValueError, match="2 shares for 1 banks"):
        train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=True, threads=1, shares=[1.0, 2.0])
    logged = train([bank, bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=True, threads=1, shares=[1.0, 0.5])
    assert logged["shares"] == [1.0, 0.5]


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_a_resumed_run_can_widen_the_classifier_and_the_reader_runs_it(tmp_path, scratch_models):
    import torch

    from vision.classifier_train import load_checkpoint, train
    from vision.index_net import width_of

    bank = _tiny_bank(tmp_path / "bank.npz")
    assert train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=True, threads=1)["width"] == 1.0
    assert train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1, width=1.5)["width"] == 1.5
    state, _ = load_checkpoint(scratch_models / "index_classifier.pt", torch)
    assert width_of(state) == 1.5
    kept = train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1)
    assert kept["width"] == 1.5, "a resumed run keeps the width it resumed"
    with pytest.raises(ValueError, match="narrower than the checkpoint's 1.5"):
        train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1, width=1.0)

    from vision.detector import Corner
    from vision.reader import CardReader

    reader = CardReader(ROOT / "models" / "corner_detector.onnx", scratch_models / "index_classifier.onnx",
                        threads=1)
    read = reader.classify(np.full((200, 200, 3), 200, np.uint8), [Corner((10, 10, 40, 60), 0.9)])
    assert len(read) == 1 and read[0].code


@pytest.mark.parametrize("arg, message", [("wide", "width 'wide' is not a number"),
                                          ("0.5", "classifier width 0.5: must be 1 to 3"),
                                          ("nan", "classifier width nan: must be 1 to 3")])
def test_the_command_names_a_bad_width(arg, message, capsys):
    from vision.classifier_train import main

    with pytest.raises(SystemExit) as exit_:
        main(["fit", "--bank", "x.npz", "--width", arg])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("option, arg, message", [("--occlude", "half", "share 'half' is not a number"),
                                                  ("--occlude", "1.5", "share 1.5: choose a number from 0 to 1"),
                                                  ("--occlude", "nan", "share nan: choose a number from 0 to 1"),
                                                  ("--overexpose", "lots", "share 'lots' is not a number"),
                                                  ("--overexpose", "-0.1", "share -0.1: choose a number from 0 to 1")])
def test_the_command_names_a_bad_augmentation_share(option, arg, message, capsys):
    from vision.classifier_train import main

    with pytest.raises(SystemExit) as exit_:
        main(["fit", "--bank", "x.npz", option, arg])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("arg, message", [("3", "low-resolution side 3: choose a whole number of pixels from 4 to 48"),
                                          ("49", "low-resolution side 49: choose"),
                                          ("11.5", "low-resolution side '11.5' is not a whole number of pixels")])
def test_the_command_names_a_bad_low_resolution_side(arg, message, capsys):
    from vision.classifier_train import main

    with pytest.raises(SystemExit) as exit_:
        main(["fit", "--bank", "x.npz", "--low-res-side", arg])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(not HAVE_TORCH, reason="needs the training extra (torch)")
def test_a_lower_low_resolution_side_blurs_the_webcam_like_crops_more_and_only_them():
    """The same seeds draw the same augmentations whatever the side, so side 6 against
    16 changes exactly the webcam-like fifth of the batch, and leaves those with less fine detail."""
    import torch

    from vision.classifier_train import augment
    from vision.index_crops import STORE_SIZE

    b = 300
    yy, xx = np.mgrid[:STORE_SIZE, :STORE_SIZE]
    board = (((yy // 3 + xx // 3) % 2) * 255).astype(np.uint8)  # fine chequer: ink strokes a few px wide
    crops = np.repeat(board[None, :, :, None], 3, axis=3).repeat(b, axis=0)
    torch.manual_seed(5)  # the noise and the channel shuffle draw from torch's own generator
    sharp = augment(crops, np.random.default_rng(5), torch, low_res_side=16)
    torch.manual_seed(5)
    blurred = augment(crops, np.random.default_rng(5), torch, low_res_side=6)
    changed = (sharp != blurred).flatten(1).any(1)
    assert 0.1 < changed.float().mean() < 0.3  # the 20 % drawn webcam-like
    detail = lambda x: (x[..., 1:, :] - x[..., :-1, :]).abs().mean(dim=(1, 2, 3))  # noqa: E731
    assert bool((detail(blurred[changed]) < detail(sharp[changed])).all())


@pytest.mark.skipif(not HAVE_TORCH, reason="needs the training extra (torch)")
def test_an_occluding_card_edge_hides_part_of_the_index_in_its_paper_colour():
    """Dark ink on white paper: the cover is white, hides 10-40 % of the index box, and spares the rest."""
    import torch

    from vision.classifier_train import OCCLUDE_HIDDEN, occlude
    from vision.index_crops import INPUT_EXPAND

    size, b = 32, 64
    x = torch.ones(b, 3, size, size)
    lo, hi = round(size / 2 * (1 - 1 / INPUT_EXPAND)), round(size / 2 * (1 + 1 / INPUT_EXPAND))
    x[:, :, lo:hi, lo:hi] = 0.0  # the index box, all ink
    untouched = occlude(x, np.random.default_rng(0), torch, share=0.0)
    assert torch.equal(untouched, x)
    out = occlude(x, np.random.default_rng(0), torch, share=1.0)
    assert out.shape == x.shape and torch.equal(x[:, :, lo:hi, lo:hi], torch.zeros(b, 3, hi - lo, hi - lo))
    hidden = (out[:, :, lo:hi, lo:hi].mean(1) > 0.5).float().mean(dim=(1, 2))
    assert bool(((hidden > OCCLUDE_HIDDEN[0] - 0.06) & (hidden < OCCLUDE_HIDDEN[1] + 0.06)).all()), hidden
    assert hidden.std() > 0.05  # at any angle and depth, not one fixed cover
    some = occlude(x, np.random.default_rng(1), torch, share=0.25)
    changed = (some != x).flatten(1).any(1).float().mean()
    assert 0.1 < changed < 0.45


@pytest.mark.skipif(not HAVE_TORCH, reason="needs the training extra (torch)")
def test_an_overexposed_crop_clips_its_paper_to_white_and_washes_red_ink_out():
    """Grey paper, red ink: overexposed crops are never darker, their paper turns white and the
    red ink paler; the share picked is about the share asked, and share 0 changes nothing."""
    import torch

    from vision.classifier_train import overexpose

    b = 400
    x = torch.full((b, 3, 8, 8), 0.7)
    x[:, :, 2:6, 2:6] = torch.tensor([0.75, 0.1, 0.1]).view(3, 1, 1)  # red ink, RGB
    assert torch.equal(overexpose(x, np.random.default_rng(0), torch, share=0.0), x)
    out = overexpose(x, np.random.default_rng(0), torch, share=1.0)
    assert out.shape == x.shape and bool((out >= x - 1e-6).all()) and bool((out <= 1.0).all())
    assert bool((out[:, :, 2:6, 2:6] > x[:, :, 2:6, 2:6]).all())  # every ink pixel paler
    clipped = (out[:, :, 0, 0] == 1.0).all(1).float().mean()      # paper blown out by a gain over 1/0.7
    assert 0.4 < clipped < 0.95, clipped
    pink = out[:, :, 3, 3]
    assert bool((pink[:, 0] > pink[:, 1]).all())                   # still red, only paler
    some = overexpose(x, np.random.default_rng(1), torch, share=0.25)
    changed = (some != x).flatten(1).any(1).float().mean()
    assert 0.15 < changed < 0.35


@pytest.mark.parametrize("key, default_name, before_the_option",
                         [("occlude", "OCCLUDE_SHARE", 0.0), ("overexpose", "OVEREXPOSE_SHARE", 0.0),
                          ("low_res_side", "LOW_RES_SIDE", 16)])
def test_a_plain_resume_keeps_the_augmentation_shares_the_shipped_weights_were_trained_at(key, default_name,
                                                                                         before_the_option):
    """`fit` without --occlude, --overexpose or --low-res-side continues as the shipped
    classifier was made: the last index_classifier run in models/training_log.jsonl
    (runs before an option existed trained as its value before it: share 0, side 16)."""
    import json

    import vision.classifier_train as ct

    runs = [json.loads(line) for line in (ct.MODELS / "training_log.jsonl").read_text().splitlines() if line.strip()]
    last = [r for r in runs if r.get("model") == "index_classifier"][-1]
    assert last.get(key, before_the_option) == getattr(ct, default_name)


@pytest.mark.train
@pytest.mark.skipif(not HAVE_TORCH, reason="training extra (torch) not installed")
def test_a_candidate_resumes_from_its_own_weights_and_leaves_models_alone(tmp_path, scratch_models):
    """`fit --resume CANDIDATE.pt --out DIR`: the shipped files are not touched, DIR gets the
    weights, the export the reader runs, and a log line that says where the run started."""
    import json

    import torch

    from vision.classifier_train import load_checkpoint, save_checkpoint, train
    from vision.index_net import width_of

    bank = _tiny_bank(tmp_path / "bank.npz")
    train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=True, threads=1)  # the "shipped" 1x weights
    shipped = {p.name: p.read_bytes() for p in scratch_models.iterdir()}
    candidate = tmp_path / "kept" / "wide.pt"
    candidate.parent.mkdir()
    save_checkpoint(_seeded_model(1.5, torch), 32, torch, candidate)

    out = tmp_path / "cand"
    result = train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1, resume=candidate, out=out)
    assert result["width"] == 1.5 and result["resumed"] == str(candidate)
    assert {p.name: p.read_bytes() for p in scratch_models.iterdir()} == shipped
    assert width_of(load_checkpoint(out / "index_classifier.pt", torch)[0]) == 1.5
    logged = [json.loads(line) for line in (out / "training_log.jsonl").read_text().splitlines()]
    assert [r["resumed"] for r in logged] == [str(candidate)]

    again = train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1, out=out)
    assert again["width"] == 1.5 and "resumed" not in again, "--out alone resumes the folder's own weights"
    fresh_dir = tmp_path / "from_shipped"
    assert train([bank], None, minutes=0.001, batch=8, lr=1e-3, fresh=False, threads=1,
                 out=fresh_dir)["width"] == 1.0, "a new --out folder starts from the shipped weights"

    from vision.detector import Corner
    from vision.reader import CardReader

    reader = CardReader(ROOT / "models" / "corner_detector.onnx", out / "index_classifier.onnx", threads=1)
    read = reader.classify(np.full((200, 200, 3), 200, np.uint8), [Corner((10, 10, 40, 60), 0.9)])
    assert len(read) == 1 and read[0].code


def test_the_command_names_a_bad_resume_or_out(tmp_path, capsys):
    from vision.classifier_train import main

    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    cases = [(["--resume", str(tmp_path / "gone.pt")], f"--resume {tmp_path / 'gone.pt'}: no such weights file"),
             (["--resume", str(a_file), "--fresh"], "contradict each other"),
             (["--out", str(a_file)], f"--out {a_file}: is a file, not a folder")]
    for args, message in cases:
        with pytest.raises(SystemExit) as exit_:
            main(["fit", "--bank", "x.npz", *args])
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err
