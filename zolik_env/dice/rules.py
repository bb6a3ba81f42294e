"""Rules of Pět kostek (docs/rules-spec.md §5): the options dataclass, boxes and box scoring.

Glossary:
    box        one line of a scorecard column (Ones ... Chance); filled exactly once.
    column     13 boxes; the ``classic`` table has one, ``triple`` three (scored x1, x2, x3).
    Yahtzee    five dice showing one face (Czech "pět stejných").
    joker      a Yahtzee rolled while the Yahtzee box is already filled (with 50 or 0);
               the joker rule says where it may go and what it scores.
    Yahtzee bonus  +100 for such a further Yahtzee while the Yahtzee box holds 50.
    upper bonus    +35 for a column whose Ones..Sixes total at least 63.

All scoring functions are pure and batched over a leading axis. Dice are given as face
counts ``counts: (N, 6) int`` (faces 1..6). This module imports only numpy and stdlib.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np

from zolik_env.arrays import Int16Array

# Box indices within one column (docs/rules-spec.md §5.2 order; fixed order fills in this order).
ONES, TWOS, THREES, FOURS, FIVES, SIXES = range(6)
THREE_KIND, FOUR_KIND, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, YAHTZEE, CHANCE = range(6, 13)
NUM_BOXES = 13
NUM_UPPER = 6
NUM_DICE = 5
NUM_FACES = 6
BOX_NAMES = (
    "ones", "twos", "threes", "fours", "fives", "sixes", "three_kind", "four_kind",
    "full_house", "small_straight", "large_straight", "yahtzee", "chance",
)  # fmt: skip
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS = 35
YAHTZEE_SCORE = 50
YAHTZEE_BONUS = 100
# Full values of full house / small / large straight when a joker counts (docs/rules-spec.md §5).
JOKER_VALUES = {FULL_HOUSE: 25, SMALL_STRAIGHT: 30, LARGE_STRAIGHT: 40}

Table = Literal["classic", "triple"]
Joker = Literal["none", "forced", "free"]
TABLES = ("classic", "triple")
JOKERS = ("none", "forced", "free")


@dataclasses.dataclass(frozen=True, slots=True)
class DiceRules:
    """Every variant knob of Pět kostek; passed to every core function.

    Attributes:
        num_players: number of seats, 1 (solitaire) or more (highest total wins).
        table: ``"classic"`` (one column) or ``"triple"`` (three columns, x1 x2 x3).
        joker: ``"none"`` (default here), ``"forced"`` (official) or ``"free"``.
        yahtzee_bonus: award +100 per further Yahtzee while a Yahtzee box holds 50.
        fixed_order: boxes are filled top to bottom, column by column; no choice.
        num_rolls: rolls per turn (the first roll is automatic), 3 in every source.
        multiply_upper_bonus: decision for ``triple``: a column's upper bonus is scaled by
            the column's factor like its boxes (the whole column total is multiplied).
        triple_bonus_needs_all_yahtzee: decision for ``triple``: the Yahtzee bonus starts
            only once all three Yahtzee boxes are filled and at least one holds 50; if
            False, any filled Yahtzee box holding 50 suffices.
    """

    num_players: int = 1
    table: Table = "classic"
    joker: Joker = "none"
    yahtzee_bonus: bool = True
    fixed_order: bool = False
    num_rolls: int = 3
    multiply_upper_bonus: bool = True
    triple_bonus_needs_all_yahtzee: bool = True

    def __post_init__(self) -> None:
        if self.num_players < 1:
            raise ValueError(f"num_players must be >= 1, got {self.num_players}")
        if self.table not in TABLES:
            raise ValueError(f"table must be one of {TABLES}, got {self.table!r}")
        if self.joker not in JOKERS:
            raise ValueError(f"joker must be one of {JOKERS}, got {self.joker!r}")
        if self.num_rolls < 1:
            raise ValueError(f"num_rolls must be >= 1, got {self.num_rolls}")

    @property
    def num_columns(self) -> int:
        return 1 if self.table == "classic" else 3

    @property
    def num_boxes(self) -> int:
        """Boxes per player: 13 per column."""
        return NUM_BOXES * self.num_columns

    @property
    def column_factors(self) -> tuple[int, ...]:
        return (1,) if self.table == "classic" else (1, 2, 3)


def counts_of(dice: np.ndarray) -> np.ndarray:
    """Face counts ``(N, 6) int16`` of dice ``(N, 5)`` with faces 1..6."""
    faces = np.arange(1, NUM_FACES + 1, dtype=dice.dtype)
    counts: Int16Array = (dice[:, :, None] == faces).sum(axis=1, dtype=np.int16)
    return counts


def base_scores(counts: np.ndarray) -> np.ndarray:
    """Score of every box of one column for each roll, without joker values.

    Args:
        counts: ``(N, 6)`` face counts.

    Returns:
        ``(N, 13) int16``: what the dice make in each box (docs/rules-spec.md §5.2). Five of a
        kind is not a full house here; a joker rule adds that (see ``joker_scores``).
    """
    counts = counts.astype(np.int16)
    faces = np.arange(1, NUM_FACES + 1, dtype=np.int16)
    total = counts @ faces  # (N,)
    top = counts.max(axis=1)
    present = counts > 0
    out = np.zeros((counts.shape[0], NUM_BOXES), np.int16)
    out[:, :NUM_UPPER] = counts * faces
    out[:, THREE_KIND] = np.where(top >= 3, total, 0)
    out[:, FOUR_KIND] = np.where(top >= 4, total, 0)
    is_full = (top == 3) & ((counts == 2).sum(axis=1) == 1)
    out[:, FULL_HOUSE] = np.where(is_full, 25, 0)
    run4 = np.zeros(counts.shape[0], bool)
    for low in range(3):  # 1-2-3-4, 2-3-4-5, 3-4-5-6
        run4 |= present[:, low : low + 4].all(axis=1)
    run5 = present[:, 0:5].all(axis=1) | present[:, 1:6].all(axis=1)
    out[:, SMALL_STRAIGHT] = np.where(run4, 30, 0)
    out[:, LARGE_STRAIGHT] = np.where(run5, 40, 0)
    out[:, YAHTZEE] = np.where(top == NUM_DICE, YAHTZEE_SCORE, 0)
    out[:, CHANCE] = total
    return out


def joker_scores(base: np.ndarray, joker_values: np.ndarray) -> np.ndarray:
    """``base`` with full house / straights raised to 25 / 30 / 40 where ``joker_values``.

    Args:
        base: ``(N, 13)`` from ``base_scores``.
        joker_values: ``(N,) bool`` rows where the joker's full values count.
    """
    out = base.copy()
    for box, value in JOKER_VALUES.items():
        out[:, box] = np.where(joker_values, value, base[:, box])
    return out


def box_score_text(box: int) -> str:
    """Human name of a column box index (``0..12``)."""
    return BOX_NAMES[box]


_CODE_WEIGHTS = NUM_FACES ** np.arange(NUM_DICE - 1, -1, -1)  # (5,) 1296, 216, 36, 6, 1


def dice_code(dice: np.ndarray) -> np.ndarray:
    """Index ``(N,) int64`` in ``0 .. 6**5 - 1`` of dice ``(N, 5)`` (faces 1..6), for lookups."""
    return (dice.astype(np.int64) - 1) @ _CODE_WEIGHTS


def _all_dice() -> np.ndarray:
    """Every ordered roll of five dice ``(7776, 5) int8``, indexed by ``dice_code``."""
    codes = np.arange(NUM_FACES**NUM_DICE)
    return (codes[:, None] // _CODE_WEIGHTS % NUM_FACES + 1).astype(np.int8)


# Lookup tables by dice_code: box values without joker, Yahtzee flag, face index (0..5).
_COUNTS = counts_of(_all_dice())
CODE_SCORES = base_scores(_COUNTS)  # (7776, 13) int16
CODE_IS_YAHTZEE = _COUNTS.max(axis=1) == NUM_DICE  # (7776,) bool
CODE_TOP_FACE = _COUNTS.argmax(axis=1)  # (7776,) face index of the most common face
