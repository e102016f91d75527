"""Train the corner-index classifier (torch) and export it to ONNX.

The crop bank is built once from labelled YOLO datasets (synthetic scenes and
the real photos' training split): each labelled index is cut with a wide
margin, plus 'junk' crops of the same size from places with no index
(background, card centres, pips, card backs) so the classifier can veto the
detector's false alarms.  Training then augments on the fly in torch (scale,
shift, rotation, colour, inversion for dark-faced decks, blur, noise, and
the edge of another card laid over part of the index).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CARD_CODES
from vision.cli_args import checked
from vision.index_crops import (INPUT_EXPAND, INPUT_SIZE, JUNK, MAX_INPUT_SIZE, STORE_EXPAND,
                                STORE_SIZE, code_to_targets, cut_crop)
from vision.index_net import channels, channels_of, check_width, make_model, widen_state, width_of
from vision.onnx_half import store_weights_half
from vision.yolo_data import box_iou, dataset_images, label_path, read_boxes

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"
CLASSIFIER_PT = MODELS / "index_classifier.pt"
CLASSIFIER_ONNX = MODELS / "index_classifier.onnx"
BANKS = REPO / "datasets" / "work" / "crop_banks"


# Share of training crops with part of the index hidden under the straight
# edge of another card (``occlude``).  Cards whose best index shows only 60-80 %
# (the labelling rule's floor, vision.synth.scene.MIN_VISIBLE_FRACTION) are 5 %
# of synth_hr_val's cards but were 22 of its 41 misses (``vision eval``'s
# breakdown by visibility): the banks hold too few of them to learn from.
# Off by default until weights trained with it ship: the shipped classifier
# was trained without it, and a resume should keep to what made it unless
# asked (``fit --occlude 0.2`` to try it; the model card says how it went).
OCCLUDE_SHARE = 0.0
OCCLUDE_HIDDEN = (0.1, 0.4)  # share of the index box hidden, uniform (at most what the labels allow)

# Share of training crops seen as if overexposed: a bright lamp, a flash or
# glare, where the camera clips the paper to white and washes red ink out to
# pink (``overexpose``).  On labelled boxes of the real training photos the
# shipped classifier names 99.6 % of the indices as taken but 93.4 % at 1.6x
# the light and 82.5 % at 2x (``python -m vision eval --exposure``'s
# transform), nearly all of the losses read as JUNK: its colour jitter never
# goes past a 1.25 gain.  Off by default until weights trained with it ship
# (``fit --overexpose 0.15``; the model card says how it went).
OVEREXPOSE_SHARE = 0.0
OVEREXPOSE_GAIN = (1.3, 2.6)  # times the light, log-uniform; clipped at white as a camera clips
OVEREXPOSE_GAMMA_SHARE = 0.3  # of those, lit by a tone curve (x ** gamma) instead: brighter, softer, unclipped
OVEREXPOSE_GAMMA = (0.35, 0.75)


# ---------------------------------------------------------------- crop bank
def build_bank(sources: list[tuple[Path, str]], out: Path, junk_per_image: int = 2, limit: int | None = None,
               seed: int = 0) -> Path:
    """Cut every labelled index (and some junk) from ``sources`` [(data.yaml, split)] into ``out`` (.npz)."""
    rng = np.random.default_rng(seed)
    crops, ranks, suits = [], [], []
    for data_yaml, split in sources:
        images, names = dataset_images(Path(data_yaml), split)
        if limit:
            images = images[:limit]
        for img_path in images:
            img = cv2.imread(str(img_path))
            if img is None:
                continue
            h, w = img.shape[:2]
            boxes = []
            for name, box in read_boxes(label_path(img_path), names, w, h):
                if name == "CARD":
                    continue
                boxes.append(box)
                if name not in CARD_CODES:
                    continue
                r, s = code_to_targets(name)
                crops.append(cut_crop(img, box, STORE_EXPAND, STORE_SIZE))
                ranks.append(r)
                suits.append(s)
            for _ in range(junk_per_image if boxes else 1):
                box = _junk_box(rng, w, h, boxes)
                if box is not None:
                    r, s = code_to_targets(JUNK)
                    crops.append(cut_crop(img, box, STORE_EXPAND, STORE_SIZE))
                    ranks.append(r)
                    suits.append(s)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, crops=np.stack(crops), rank=np.array(ranks, np.int64), suit=np.array(suits, np.int64))
    print(f"bank {out.name}: {len(crops)} crops", flush=True)
    return out


def _junk_box(rng, w, h, boxes):
    """A box the size of a typical index that overlaps no labelled index much."""
    sizes = [(b[2] - b[0], b[3] - b[1]) for b in boxes] or [(w * 0.06, h * 0.09)]
    for _ in range(20):
        bw, bh = sizes[rng.integers(len(sizes))]
        s = rng.uniform(0.7, 1.5)
        bw, bh = bw * s, bh * s
        x1, y1 = rng.uniform(0, max(w - bw, 1)), rng.uniform(0, max(h - bh, 1))
        cand = (x1, y1, x1 + bw, y1 + bh)
        if all(box_iou(cand, b) < 0.05 for b in boxes):
            return cand
    return None


# ---------------------------------------------------------------- augmentation
# How far a detector box strays from the true index (measured on the tuning
# scenes and real training photos: scripts/box_errors.py), as a fraction of the
# box's side.  The classifier trains on crops wobbled this much so that it reads
# the crop of a found box as well as the crop of a labelled one.
BOX_SHIFT_STD = 0.09
BOX_LOG_SCALE_STD = 0.14
# Low-resolution (webcam-like) crops are shrunk to this side whatever the input
# size, so a larger input does not make the low-resolution lesson easier.
# ``fit --low-res-side 11`` tries a harsher lesson for the far indices of 640 px
# photos (the model card's "Tried and not shipped" says how it went).
LOW_RES_SIDE = 16


def occlude(x, rng, torch, share: float = OCCLUDE_SHARE):
    """Lay the straight edge of another card over part of the index in ``share`` of the crops.

    The cover is a half-plane at any angle, placed so it hides a uniform
    ``OCCLUDE_HIDDEN`` share of the index box (the central 1/INPUT_EXPAND of the
    crop), painted the paper colour of the crop's rim (the covering card is
    usually of the same deck), sometimes with a dark card edge and a soft
    shadow on the uncovered side.  Labels are kept: the scenes label an index
    down to 60 % in sight, so the classifier must read them as they are.
    """
    b, _, size, _ = x.shape
    pick = np.flatnonzero(rng.random(b) < share)
    if len(pick) == 0:
        return x
    n = len(pick)
    t = (torch.arange(size, dtype=torch.float32) + 0.5) / size * 2 - 1
    yy, xx = torch.meshgrid(t, t, indexing="ij")
    phi = torch.from_numpy(rng.uniform(0, 2 * np.pi, n)).float().view(n, 1, 1)
    proj = torch.cos(phi) * xx + torch.sin(phi) * yy                        # [n, S, S]
    half = 1.0 / INPUT_EXPAND
    in_box = ((xx.abs() <= half) & (yy.abs() <= half)).flatten()
    hidden = torch.from_numpy(rng.uniform(*OCCLUDE_HIDDEN, n)).float()
    d = torch.stack([torch.quantile(proj[i].flatten()[in_box], 1 - hidden[i]) for i in range(n)]).view(n, 1, 1)
    px = 2.0 / size
    alpha = torch.sigmoid((proj - d) / (0.5 * px)).unsqueeze(1)             # anti-aliased cover
    sub = x[pick]
    rim = torch.cat([sub[:, :, :2].flatten(2), sub[:, :, -2:].flatten(2),
                     sub[:, :, :, :2].flatten(2), sub[:, :, :, -2:].flatten(2)], 2)
    paper = rim.median(dim=2).values.view(n, 3, 1, 1)
    paper = paper * torch.from_numpy(rng.uniform(0.85, 1.1, (n, 1, 1, 1))).float()
    edge = torch.from_numpy((rng.random(n) < 0.5) * rng.uniform(0.3, 0.6, n)).float().view(n, 1, 1, 1)
    line = torch.exp(-((proj - d) / px).pow(2)).unsqueeze(1)
    shade = torch.from_numpy((rng.random(n) < 0.5) * rng.uniform(0.1, 0.35, n)).float().view(n, 1, 1, 1)
    reach = torch.from_numpy(rng.uniform(1.5, 4.0, n)).float().view(n, 1, 1, 1) * px
    shadow = torch.exp(-(d - proj).clamp(min=0).unsqueeze(1) / reach) * (1 - alpha)
    out = sub * (1 - shade * shadow)
    out = out * (1 - alpha) + paper * alpha
    out = out * (1 - edge * line)
    x = x.clone()
    x[pick] = out.clamp(0, 1)
    return x


def overexpose(x, rng, torch, share: float = OVEREXPOSE_SHARE):
    """Brighten ``share`` of the crops as an overexposed photo would show them.

    Most are multiplied by a gain (``OVEREXPOSE_GAIN``) and clipped at
    white, per channel, as a sensor clips: paper and pale ink merge, red
    ink turns pink.  The rest are lifted by a tone curve (``x ** gamma``),
    which phones apply to bright scenes as well: midtones rise, nothing clips.
    """
    b = x.shape[0]
    pick = rng.random(b) < share
    if not pick.any():
        return x
    gain = np.exp(rng.uniform(*np.log(OVEREXPOSE_GAIN), b))
    curve = rng.random(b) < OVEREXPOSE_GAMMA_SHARE
    gamma = rng.uniform(*OVEREXPOSE_GAMMA, b)
    to = lambda a: torch.from_numpy(a).float().view(b, 1, 1, 1)  # noqa: E731
    lit = torch.where(to(curve) > 0, x.clamp(min=1e-6) ** to(gamma), (x * to(gain)).clamp(max=1.0))
    return torch.where(to(pick) > 0, lit, x)


def augment(batch_u8, rng, torch, train=True, size=INPUT_SIZE, occlude_share: float = 0.0,
            overexpose_share: float = 0.0, low_res_side: int = LOW_RES_SIDE):
    """uint8 [B, S, S, 3] BGR stored crops -> float tensor [B, 3, size, size] RGB."""
    import torch.nn.functional as F

    x = torch.from_numpy(batch_u8[..., ::-1].copy()).permute(0, 3, 1, 2).float() / 255.0
    b = x.shape[0]
    window = INPUT_EXPAND / STORE_EXPAND  # fraction of the stored crop the classifier sees
    if train:
        # box wobble as wide as the detector's (see BOX_SHIFT_STD above)
        scale = torch.from_numpy(np.exp(rng.normal(0, BOX_LOG_SCALE_STD, b))).float() * window
        aspect = torch.from_numpy(np.exp(rng.normal(0, BOX_LOG_SCALE_STD, b))).float()
        angle = torch.from_numpy(rng.normal(0, 0.12, b)).float()
        k90 = torch.from_numpy(rng.integers(0, 4, b) * (rng.random(b) < 0.15)).float()
        # cards lie at any angle, and an axis-aligned box around a tilted index holds it tilted
        tilt = torch.from_numpy(rng.uniform(-np.pi / 4, np.pi / 4, b) * (rng.random(b) < 0.15)).float()
        angle = angle + k90 * (np.pi / 2) + tilt
        # affine_grid shifts in units of half the stored crop, which spans STORE_EXPAND box sides
        tx = torch.from_numpy(rng.normal(0, BOX_SHIFT_STD, b).clip(-0.25, 0.25) * 2 / STORE_EXPAND).float()
        ty = torch.from_numpy(rng.normal(0, BOX_SHIFT_STD, b).clip(-0.25, 0.25) * 2 / STORE_EXPAND).float()
    else:
        scale = torch.full((b,), window)
        aspect = torch.ones(b)
        angle = torch.zeros(b)
        tx = ty = torch.zeros(b)
    cos, sin = torch.cos(angle), torch.sin(angle)
    sx, sy = scale * aspect.sqrt(), scale / aspect.sqrt()
    theta = torch.stack([torch.stack([cos * sx, -sin * sy, tx], 1), torch.stack([sin * sx, cos * sy, ty], 1)], 1)
    grid = F.affine_grid(theta, (b, 3, size, size), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    if not train:
        return x
    if occlude_share > 0:
        x = occlude(x, rng, torch, occlude_share)
    if overexpose_share > 0:
        x = overexpose(x, rng, torch, overexpose_share)
    # colour: brightness, contrast, per-channel gain (white balance), grey, inversion, blur, noise
    bright = torch.from_numpy(rng.uniform(-0.25, 0.2, (b, 1, 1, 1))).float()
    contrast = torch.from_numpy(rng.uniform(0.45, 1.3, (b, 1, 1, 1))).float()
    gain = torch.from_numpy(rng.uniform(0.75, 1.25, (b, 3, 1, 1))).float()
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = ((x - mean) * contrast + mean + bright) * gain
    grey = torch.from_numpy(rng.random(b) < 0.15).view(b, 1, 1, 1)
    x = torch.where(grey, x.mean(1, keepdim=True).expand_as(x), x)
    hue = torch.from_numpy(rng.random(b) < 0.1).view(b, 1, 1, 1)
    x = torch.where(hue, x[:, torch.randperm(3)], x)
    inv = torch.from_numpy(rng.random(b) < 0.08).view(b, 1, 1, 1)
    x = torch.where(inv, 1.0 - x, x)
    blur = torch.from_numpy(rng.random(b) < 0.25).view(b, 1, 1, 1)
    x = torch.where(blur, F.avg_pool2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), 3, 1), x)
    low = torch.from_numpy(rng.random(b) < 0.2).view(b, 1, 1, 1)   # low-resolution webcam-like index
    small = F.interpolate(F.interpolate(x, size=low_res_side, mode="area"), size=size, mode="bilinear",
                          align_corners=False)
    x = torch.where(low, small, x)
    x = x + torch.randn_like(x) * torch.from_numpy(rng.uniform(0, 0.06, (b, 1, 1, 1))).float()
    return x.clamp(0, 1)


# ---------------------------------------------------------------- training
def train(banks: list[Path], val_bank: Path | None, minutes: float, batch: int, lr: float, fresh: bool,
          threads: int, seed: int = 0, checkpoint_minutes: float = 10.0, input_size: int | None = None,
          shares: list[float] | None = None, width: float | None = None,
          occlude_share: float = OCCLUDE_SHARE, resume: Path | None = None, out: Path | None = None,
          overexpose_share: float = OVEREXPOSE_SHARE, low_res_side: int = LOW_RES_SIDE) -> dict:
    """Train for ``minutes``, resuming from models/index_classifier.pt unless ``fresh``.

    ``resume`` starts from other weights (a candidate kept aside, say) and
    ``out`` writes the weights, the ONNX export and the training-log line to
    another folder, so a candidate can be trained and compared without
    touching the shipped model (``fit --resume --out``).

    ``input_size`` None keeps the resumed model's side (``INPUT_SIZE`` when
    fresh); another side fine-tunes the resumed layers at that side.
    ``shares`` weighs how often each bank is drawn (default: all equally,
    whatever their sizes), so that adding banks of one kind need not shrink
    the share of the others: a resume that adds two 2048 px banks at equal
    shares read the 640 px tuning scenes worse than the run before it.
    ``width`` None keeps the resumed model's width (1 when fresh); a wider
    one widens the resumed weights without changing what they read
    (``index_net.widen_state``), then trains all of them.
    """
    shares = [1.0] * len(banks) if shares is None else list(shares)
    if len(shares) != len(banks):
        raise ValueError(f"{len(shares)} shares for {len(banks)} banks")
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    parts = [np.load(b) for b in banks]
    crops = np.concatenate([p["crops"] for p in parts])
    rank = np.concatenate([p["rank"] for p in parts])
    suit = np.concatenate([p["suit"] for p in parts])
    weights = draw_weights([len(p["rank"]) for p in parts], shares)
    size = INPUT_SIZE
    start, out_dir = resume_and_out(resume, out, fresh)
    if start.exists() and not fresh:
        state, size = load_checkpoint(start, torch)
        if width is not None and channels(check_width(width)) != channels_of(state):
            print(f"classifier: widening from {width_of(state):g}x to {width:g}x", flush=True)
            state = widen_state(state, width, rng)
        model = make_model(counts=channels_of(state))
        model.load_state_dict(state)
        print(f"classifier: resuming from {start} ({size} px)", flush=True)
    else:
        model = make_model(1.0 if width is None else width)
    size = check_input_size(input_size or size)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    deadline = time.time() + minutes * 60
    step, seen, t0 = 0, 0, time.time()
    last_save = t0
    while time.time() < deadline:
        idx = rng.choice(len(rank), size=batch, p=weights)
        x = augment(crops[idx], rng, torch, train=True, size=size, occlude_share=occlude_share,
                    overexpose_share=overexpose_share, low_res_side=low_res_side)
        yr, ys = torch.from_numpy(rank[idx]), torch.from_numpy(suit[idx])
        frac = min(1.0, (time.time() - t0) / (minutes * 60))
        for g in opt.param_groups:
            g["lr"] = lr * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * frac)))
        model.train()
        out_r, out_s = model(x)
        loss = F.cross_entropy(out_r, yr, label_smoothing=0.05) + F.cross_entropy(out_s, ys, label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        seen += batch
        if time.time() - last_save > checkpoint_minutes * 60:
            _checkpoint(model, torch, size, out_dir)
            last_save = time.time()
        if step % 50 == 0:
            print(f"step {step} crops {seen} loss {loss.item():.3f} {seen / (time.time() - t0):.0f} crops/s", flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_checkpoint(model, size, torch, out_dir / CLASSIFIER_PT.name)
    result = {"crops_seen": seen, "seconds": round(time.time() - t0), "banks": [b.name for b in banks], "lr": lr,
              "seed": seed, "input_size": size, "width": model.width}
    if any(share != 1.0 for share in shares):
        result["shares"] = shares
    result["occlude"] = occlude_share
    if overexpose_share:
        result["overexpose"] = overexpose_share
    if low_res_side != LOW_RES_SIDE:
        result["low_res_side"] = low_res_side
    if val_bank is not None:
        result["val"] = evaluate_bank(model, val_bank, torch, size)
    if resume is not None:
        result["resumed"] = str(resume)
    export_onnx(model, torch, size, out_dir / CLASSIFIER_ONNX.name)
    with open(out_dir / "training_log.jsonl", "a") as fh:
        fh.write(json.dumps({"model": "index_classifier", **result,
                             "finished": time.strftime("%Y-%m-%d %H:%M:%S")}) + "\n")
    return result


def resume_and_out(resume: Path | None, out: Path | None, fresh: bool) -> tuple[Path, Path]:
    """(weights to start from, folder to write to): models/ unless ``fit --resume``/``--out`` say otherwise.

    Asking to resume named weights that are not there, or to resume and
    start fresh at once, is a ValueError before any training time is spent.
    """
    if resume is not None:
        if fresh:
            raise ValueError(f"--resume {resume} and --fresh contradict each other: choose one")
        if not Path(resume).is_file():
            raise ValueError(f"--resume {resume}: no such weights file")
    out_dir = MODELS if out is None else Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {out_dir}: is a file, not a folder")
    start = Path(resume) if resume is not None else (CLASSIFIER_PT if out is None else out_dir / CLASSIFIER_PT.name)
    if resume is None and out is not None and not start.exists():
        start = CLASSIFIER_PT  # a new candidate folder starts from the shipped weights
    return start, out_dir


def _checkpoint(model, torch, size: int, out_dir: Path | None = None) -> None:
    """Save and export mid-run so the reader can be evaluated while training goes on."""
    out_dir = MODELS if out_dir is None else out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    save_checkpoint(model, size, torch, out_dir / CLASSIFIER_PT.name)
    export_onnx(model, torch, size, out_dir / CLASSIFIER_ONNX.name)
    model.train()
    print("checkpoint written", flush=True)


def save_checkpoint(model, size: int, torch, path: Path | None = None) -> None:
    """The weights with the input side they were trained at (resuming needs both).

    The width is not stored: the weights' shapes carry it (``index_net.channels_of``).
    Floating-point tensors are stored at half precision: the reader runs the
    ONNX export (full precision), this file only seeds the next resume, and
    at full precision the 1.5x-wide weights would take ``models/`` past its
    15 MB budget.  ``load_checkpoint`` widens them back to float32.
    """
    state = {k: v.half() if v.is_floating_point() else v for k, v in model.state_dict().items()}
    torch.save({"state_dict": state, "input_size": size, "stored_as": "float16"},
               CLASSIFIER_PT if path is None else path)


def load_checkpoint(path: Path, torch) -> tuple[dict, int]:
    """(float32 state dict, input side); checkpoints older than the side record are 32 px state dicts."""
    saved = torch.load(path, map_location="cpu")
    state, size = (saved["state_dict"], int(saved["input_size"])) if "state_dict" in saved else (saved, 32)
    return {k: v.float() if v.is_floating_point() else v for k, v in state.items()}, size


def evaluate_bank(model, bank: Path, torch, size: int = INPUT_SIZE) -> dict:
    data = np.load(bank)
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for i in range(0, len(data["rank"]), 512):
            x = augment(data["crops"][i:i + 512], None, torch, train=False, size=size)
            r, s = model(x)
            pr, ps = r.argmax(1).numpy(), s.argmax(1).numpy()
            ok = (pr == data["rank"][i:i + 512]) & (ps == data["suit"][i:i + 512])
            correct += int(ok.sum())
            total += len(ok)
    acc = correct / max(total, 1)
    print(f"val {bank.name}: {acc:.4f} of {total} crops", flush=True)
    return {"bank": bank.name, "accuracy": round(acc, 4), "crops": total}


def export_onnx(model, torch, size: int = INPUT_SIZE, path: Path | None = None) -> Path:
    """Export with a fixed crop side, which the reader reads back (``index_crops.input_size``).

    The weights are stored at half precision (``vision.onnx_half``), so a
    classifier wider than 1.5x fits ``models/``' 15 MB budget.
    """
    path = CLASSIFIER_ONNX if path is None else path
    model.eval()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(model, dummy, str(path), input_names=["crops"], output_names=["rank", "suit"],
                      dynamic_axes={"crops": {0: "n"}, "rank": {0: "n"}, "suit": {0: "n"}}, opset_version=17,
                      dynamo=False)
    store_weights_half(path)  # half the bytes, the same arithmetic (vision.onnx_half)
    return path


def check_input_size(side: int) -> int:
    """``side`` if the stored crops can fill a classifier input that size, else a ValueError saying why."""
    if not 8 <= side <= MAX_INPUT_SIZE:
        raise ValueError(f"input size {side} px: must be 8 to {MAX_INPUT_SIZE} (the stored crops hold "
                         f"{MAX_INPUT_SIZE} px of the classifier's window)")
    return side


def draw_weights(sizes: list[int], shares: list[float]) -> np.ndarray:
    """Per-crop draw probabilities: each bank drawn in proportion to its share, whatever its size."""
    weights = np.concatenate([np.full(n, share / n) for n, share in zip(sizes, shares)])
    return weights / weights.sum()


def bank_with_share(text: str) -> tuple[Path, float]:
    """``BANK.npz`` or ``BANK.npz=SHARE``: a bank and how often it is drawn against the others."""
    path, sep, share_text = text.rpartition("=")
    if not sep:
        return Path(text), 1.0
    try:
        share = float(share_text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bank {text!r}: share {share_text!r} is not a number") from None
    if not 0 < share < float("inf"):  # also turns down nan
        raise argparse.ArgumentTypeError(f"bank {text!r}: share must be a positive number, not {share_text}")
    return Path(path), share


# argparse types for --input-size and --width: a clear usage error instead of a traceback mid-run.
_input_side = checked(int, check_input_size, "{text!r} is not a whole number of pixels")
_width = checked(float, check_width, "width {text!r} is not a number")


def check_share(share: float) -> float:
    if not 0 <= share <= 1:
        raise ValueError(f"share {share:g}: choose a number from 0 to 1")
    return share


_share = checked(float, check_share, "share {text!r} is not a number")


def check_low_res_side(side: int) -> int:
    """The webcam-like lesson's side: under 4 px no index survives; over the largest input
    (``MAX_INPUT_SIZE``) nothing is shrunk."""
    if not 4 <= side <= MAX_INPUT_SIZE:
        raise ValueError(f"low-resolution side {side}: choose a whole number of pixels from 4 to {MAX_INPUT_SIZE}")
    return side


_low_res_side = checked(int, check_low_res_side, "low-resolution side {text!r} is not a whole number of pixels")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision train classifier")
    sub = p.add_subparsers(dest="what", required=True)
    b = sub.add_parser("bank", help="cut a crop bank from YOLO datasets")
    b.add_argument("--source", action="append", required=True, help="DATA.yaml:split (repeatable)")
    b.add_argument("--out", required=True)
    b.add_argument("--limit", type=int, default=None)
    b.add_argument("--junk", type=int, default=2)
    m = sub.add_parser("mine", help="crop bank of the detector's hits and false alarms on training photos")
    m.add_argument("--source", action="append", required=True, help="DATA.yaml:split (training splits only)")
    m.add_argument("--out", required=True)
    m.add_argument("--limit", type=int, default=None, help="at most this many images per source (random)")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--refine", action="store_true", help="mine the boxes of the refining second look")
    m.add_argument("--detector", type=Path, default=None,
                   help="mine with candidate detector weights (ONNX) instead of the shipped ones")
    t = sub.add_parser("fit", help="train on crop banks")
    t.add_argument("--bank", action="append", required=True, type=bank_with_share, metavar="BANK.npz[=SHARE]",
                   help="crop bank (repeatable); each is drawn in proportion to its share, 1 unless given")
    t.add_argument("--val", default=None)
    t.add_argument("--minutes", type=float, default=10)
    t.add_argument("--batch", type=int, default=256)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--fresh", action="store_true")
    t.add_argument("--input-size", type=_input_side, default=None,
                   help=f"crop side in px (default: the resumed model's, or {INPUT_SIZE} when fresh); "
                        f"at most {MAX_INPUT_SIZE}")
    t.add_argument("--width", type=_width, default=None,
                   help="channel multiplier (default: the resumed model's, or 1 when fresh); a wider one than "
                        "the resumed model's widens it first, keeping what it reads")
    t.add_argument("--seed", type=int, default=0, help="sampling and augmentation seed (vary it when resuming, "
                   "or a resumed run sees the same crops in the same order again)")
    t.add_argument("--occlude", type=_share, default=OCCLUDE_SHARE,
                   help=f"share of crops with part of the index under another card's edge (default {OCCLUDE_SHARE}; "
                        "0 trains as before this option)")
    t.add_argument("--overexpose", type=_share, default=OVEREXPOSE_SHARE,
                   help=f"share of crops seen as if overexposed: clipped at white, or lifted by a tone curve "
                        f"(default {OVEREXPOSE_SHARE}; 0 trains as before this option)")
    t.add_argument("--low-res-side", type=_low_res_side, default=LOW_RES_SIDE,
                   help=f"side in px the webcam-like fifth of the crops is shrunk to before being enlarged back "
                        f"(default {LOW_RES_SIDE}, as the shipped classifier was trained)")
    t.add_argument("--resume", type=Path, default=None, metavar="WEIGHTS.pt",
                   help="start from these weights instead of models/index_classifier.pt (a kept candidate)")
    t.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="write the weights, ONNX export and training-log line here instead of models/ "
                        "(resumes DIR's own weights if it has them and --resume is not given)")
    a = p.parse_args(argv)
    if a.what == "fit":
        try:
            resume_and_out(a.resume, a.out, a.fresh)
        except ValueError as err:
            p.error(str(err))
    if a.what in ("bank", "mine"):
        sources = [(Path(s.rsplit(":", 1)[0]), s.rsplit(":", 1)[1] if ":" in s else "train") for s in a.source]
        if a.what == "mine":
            from vision.hard_negatives import mine
            mine(sources, Path(a.out), a.limit, a.seed, a.refine, a.detector)
        else:
            build_bank(sources, Path(a.out), a.junk, a.limit)
    else:
        print(json.dumps(train([path for path, _ in a.bank], Path(a.val) if a.val else None, a.minutes, a.batch,
                               a.lr, a.fresh, a.threads, a.seed, input_size=a.input_size,
                               shares=[share for _, share in a.bank], width=a.width, occlude_share=a.occlude,
                               resume=a.resume, out=a.out, overexpose_share=a.overexpose,
                               low_res_side=a.low_res_side)))
    return 0
