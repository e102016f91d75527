"""The card codes the reader can output, in a fixed order.

The order is part of the shipped model's contract: the synthetic labels, the
classifier heads and ``models/classes.json`` all index into these tuples, so
never reorder them without retraining.  ``vision`` keeps its own copy of the
codes (rather than importing ``companion``) so the reader and the scoring
engine stay independent; a test checks both agree.
"""

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "C", "D", "H")

REGULAR_CODES = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS)

# The 10 kinds of optional card (WILD has three physical copies).
OPTIONAL_CODES = (
    "COUNT1", "COUNT2", "COUNT3", "COUNT4", "COUNT7", "COUNT12",
    "NOMELD0", "NOMELD2", "NODECLARE0", "WILD",
)

# Corner-index classes used in YOLO labels: 0..61.
CARD_CODES = REGULAR_CODES + OPTIONAL_CODES
CODE_TO_CLASS = {code: i for i, code in enumerate(CARD_CODES)}

# Extra label class for a whole card's outline (axis-aligned box of the card).
CARD_OUTLINE_CLASS = len(CARD_CODES)  # 62
LABEL_NAMES = CARD_CODES + ("CARD",)
