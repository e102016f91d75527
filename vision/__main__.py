"""``python -m vision COMMAND ...``: one entry point, commands live in their modules.

Each command is imported lazily so ``detect`` never pulls in training code
(torch, ultralytics) and ``synth`` never loads the ONNX runtime.
"""
from __future__ import annotations

import importlib
import sys

# command -> (module, function, one-line help)
COMMANDS = {
    "cards": ("vision.printing", "main", "write the printable optional cards (PNG faces + PDF sheets)"),
    "synth": ("vision.synth.cli", "main", "generate labelled synthetic table photos"),
    "contact": ("vision.synth.contact", "main", "draw a contact sheet of a dataset with its labels"),
    "detect": ("vision.cli_detect", "main", "read the cards in photos"),
    "eval": ("vision.evaluate", "main", "card-level precision/recall of the reader on labelled photos"),
    "bench": ("vision.bench", "main", "time the reader on photos"),
    "train": ("vision.train", "main", "train the corner detector and the index classifier"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help"} or argv[0] not in COMMANDS:
        print("usage: python -m vision COMMAND [ARGS...]\n\ncommands:")
        for name, (_, _, help_text) in COMMANDS.items():
            print(f"  {name:<8} {help_text}")
        if argv and argv[0] not in {"-h", "--help"}:
            print(f"\nunknown command: {argv[0]!r}", file=sys.stderr)
            return 2
        return 0
    module_name, func_name, _ = COMMANDS[argv[0]]
    func = getattr(importlib.import_module(module_name), func_name)
    try:
        return int(func(argv[1:]) or 0)
    except BrokenPipeError:
        from companion.__main__ import quiet_broken_pipe  # stdlib only: the engine's entry point has the recipe

        return quiet_broken_pipe()


if __name__ == "__main__":
    sys.exit(main())
