"""``python -m companion``: the command line (see companion.cli), plus
``serve`` for the web page (companion.web.server, imported only when asked,
so the scoring commands never load Flask)."""

from __future__ import annotations

import os
import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "serve":
        try:
            from companion.web.server import main as serve_main
        except ImportError as e:
            print(f"error: the web page is not available ({e}); "
                  "install the companion with `python3 -m pip install -e .`", file=sys.stderr)
            return 2
        return serve_main(argv[1:])
    from .cli import main as cli_main
    try:
        return cli_main(argv)
    except BrokenPipeError:
        return quiet_broken_pipe()


def quiet_broken_pipe() -> int:
    """The program reading our output went away (``... | head``): stop quietly, as Unix tools do.

    Python would print a traceback, and another when it flushes stdout at exit;
    pointing stdout at /dev/null stops the second (the Python docs' recipe).
    ``python -m vision`` uses it too.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


if __name__ == "__main__":
    sys.exit(main())
