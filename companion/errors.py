"""The engine's small error hierarchy.

Every error is a ``ValueError`` so callers that only care about "bad input"
can catch one thing, while the CLI and the web page show ``str(error)``
directly to people: each message names the offending token, card or field
and says what was expected.
"""


class RummyError(ValueError):
    """Base class for every error the scoring engine raises on bad input."""


class CardParseError(RummyError):
    """Text that is not a card.  ``token`` holds the text, the message says why."""

    def __init__(self, token, why):
        self.token = token
        self.why = why
        shown = token if len(token) <= 24 else token[:21] + "..."
        super().__init__(f"{shown!r} is not a card: {why}")


class DuplicateCardError(RummyError):
    """A card seen more often than the deck holds it (any card but WILD twice,
    or a fourth WILD).  ``card`` is the card."""

    def __init__(self, card, message):
        self.card = card
        super().__init__(message)


class MeldError(RummyError):
    """Cards that do not form a meld; the message explains why for a newcomer."""


class RoundSpecError(RummyError):
    """A round (or score request) description that is malformed: the message
    names the field and what is expected there."""


class DealError(RummyError):
    """An impossible deal or first-dealer draw."""
