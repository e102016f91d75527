"""Make Ultralytics run with no network: no weight, font or package downloads.

Ultralytics reaches for the internet in three places during training: the
Arial font for plots, ``*.pt`` weights (pretrained start and the AMP check),
and pip auto-install of missing extras.  We build models from yaml (no
pretrained weights), disable AMP (CPU training anyway), turn auto-install off,
and point its config dir at a project folder holding a shipped font copied
under the names it looks for.  Call ``configure()`` before importing it.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG_DIR = REPO / "datasets" / "work" / "ultralytics_config"
FONT_CANDIDATES = [
    Path(__file__).resolve().parent / "assets" / "fonts" / "DejaVuSans.ttf",
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
]


def configure() -> Path:
    CONFIG_DIR.mkdir(parents=True, exist_ok=True)
    font = next((f for f in FONT_CANDIDATES if f.exists()), None)
    if font is not None:
        for name in ("Arial.ttf", "Arial.Unicode.ttf"):
            target = CONFIG_DIR / name
            if not target.exists():
                shutil.copyfile(font, target)
    os.environ["YOLO_CONFIG_DIR"] = str(CONFIG_DIR)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ.setdefault("WANDB_DISABLED", "true")
    return CONFIG_DIR
