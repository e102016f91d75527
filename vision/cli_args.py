"""argparse types that turn a bad option value into a usage error naming it.

A value that fails deep inside a run (a width, a tile factor, an input side)
would otherwise surface as a traceback minutes later; argparse reports these
at once, with the value and the allowed range.
"""
from __future__ import annotations

import argparse
from typing import Callable, TypeVar

T = TypeVar("T")


def checked(convert: Callable[[str], T], check: Callable[[T], T], wrong_kind: str) -> Callable[[str], T]:
    """An argparse ``type``: ``convert`` the text, then ``check`` the value (which raises ValueError).

    ``wrong_kind`` is the message when the text does not convert, with ``{text!r}`` for the text.
    """
    def parse(text: str) -> T:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(wrong_kind.format(text=text)) from None
        try:
            return check(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse
