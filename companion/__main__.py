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
    except BrokenPipeError:  # `python -m companion ... | head`: stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
