"""Card features for learned agents: what each card kind is worth kept, how much it would
help an opponent, and whether it lays off on the table now.

The planner's discard choice (``agents.discard_choice``) weighs every card by its future
value in the hand (partners, weighted by their live outs among the unseen cards), the
danger of feeding an opponent (it relates to discards that seat took, or lays off on the
table once that seat has opened) and its penalty. A network reads 53 card counts per
pile; relating a card to its partners across suits and ranks is structure it would have
to learn from a noisy reward. These features give it the planner's terms, per kind:

================  ====================================================================
``keep`` (53)     ``discard_choice.keep_value`` of the kind in this hand (joker: 0)
``danger`` (53)   ``discard_choice.danger`` of the kind (joker: 0)
``fits`` (53)     1 if the kind lays off on a table meld now (a natural: the core's
                  ``fits.table_fits``, swaps and the ace-high end included, jokers too)
``held`` (53)     only with ``held=True``: before the seat has opened, the cards of each
                  kind in the hand's best joker-free melds by points (what the planner
                  holds back for its opening and never throws); 0 once opened
================  ====================================================================

They are a pure function of the observation (own hand, unseen counts, discards the
others took, who has opened, the table), computed for a batch at once with index tables
built from ``discard_choice``'s card relations, so the planner's rules of thumb have one
home. ``keep`` and ``danger`` are stored times ``STORE`` (they are multiples of 0.5 and
0.2) and scaled back by the network (``SCALE``).
"""

from __future__ import annotations

import functools

import numpy as np

from agents import obs_view as ov
from agents.discard_choice import danger_weights, run_neighbours, set_partners
from agents.meld_table import held_batch, meld_table, search_args
from zolik_env.rummy import fits
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS
from zolik_env.rummy.jit import kernel
from zolik_env.rummy.options import RuleSet

FIELDS = ("keep", "danger", "fits")
CARD_FEATURES = len(FIELDS) * NUM_KINDS  # without ``held``
HELD = slice(CARD_FEATURES, CARD_FEATURES + NUM_KINDS)  # with ``held=True``
KEEP, DANGER, FITS = (slice(i * NUM_KINDS, (i + 1) * NUM_KINDS) for i in range(len(FIELDS)))
STORE = 10  # keep and danger are stored as round(value * STORE)
SCALE = 1.0 / (20 * STORE)  # what the network multiplies stored keep and danger by
_PAD = NUM_KINDS  # index of an always-zero column appended to per-kind arrays


def _padded(lists: list[list[int]], width: int | None = None) -> np.ndarray:
    """int64 (len(lists), width) the lists, padded with ``_PAD``."""
    width = width or max(1, max(len(x) for x in lists))
    out = np.full((len(lists), width), _PAD, np.int64)
    for i, items in enumerate(lists):
        out[i, :len(items)] = items
    return out


@functools.cache
def _tables() -> dict[str, np.ndarray]:
    """Index tables over the 52 naturals (``_PAD`` where a list is shorter):

    ``sets`` (52, 3) set partners; ``near``/``far`` (52, 4) run neighbours one and two
    apart; ``ends`` (52, 4, E) the cards that extend kind + ``near`` partner to a run of
    three; ``middle`` (52, 4, M) the card between kind and its ``far`` partner;
    ``related`` (52, R) every card ``danger`` relates the kind to."""
    kinds = range(NUM_NATURALS)
    near = [run_neighbours(k, 1) for k in kinds]
    far = [run_neighbours(k, 2) for k in kinds]
    ends = [[sorted(set(run_neighbours(k, 2) + run_neighbours(p, 2)) - {k, p})
             for p in near[k]] for k in kinds]
    middle = [[sorted(set(run_neighbours(k, 1)) & set(run_neighbours(p, 1))) for p in far[k]]
              for k in kinds]
    width_e = max(len(e) for row in ends for e in row)
    width_m = max(len(m) for row in middle for m in row)
    return {
        "sets": _padded([set_partners(k) for k in kinds]),
        "near": _padded(near, 4), "far": _padded(far, 4),
        "ends": np.stack([_padded(row + [[]] * (4 - len(row)), width_e) for row in ends]),
        "middle": np.stack([_padded(row + [[]] * (4 - len(row)), width_m) for row in middle]),
        "related": _padded([set_partners(k) + run_neighbours(k, 1) + run_neighbours(k, 2)
                            for k in kinds]),
    }


def columns(obs: np.ndarray, rules: RuleSet) -> dict[str, np.ndarray]:
    """The observation's slices for a batch: name -> int64 (B, *shape)."""
    return {name: obs[:, start:stop].astype(np.int64).reshape(len(obs), *shape)
            for name, start, stop, shape in ov.slices(rules)}


def _pad(counts: np.ndarray) -> np.ndarray:
    """``counts`` (..., 53) with the zero ``_PAD`` column appended."""
    return np.concatenate([counts, np.zeros((*counts.shape[:-1], 1), counts.dtype)], -1)


def keep_values(hand: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """float64 (B, 52): ``discard_choice.keep_value`` of every natural kind, batched."""
    t = _tables()
    return _keep_kernel(np.ascontiguousarray(hand, np.int64),
                        np.ascontiguousarray(unseen, np.int64), t["sets"], t["near"], t["far"],
                        t["ends"], t["middle"])


@kernel
def _keep_kernel(hand: np.ndarray, unseen: np.ndarray, sets: np.ndarray, near: np.ndarray,
                 far: np.ndarray, ends: np.ndarray, middle: np.ndarray) -> np.ndarray:
    """``keep_values`` over the ``_tables`` (``_PAD`` entries: never held, never live).
    Every term is a multiple of 0.5, so the sums are exact in any order."""
    out = np.zeros((hand.shape[0], NUM_NATURALS))
    for b in range(hand.shape[0]):
        held = np.zeros(NUM_KINDS + 1, np.bool_)
        live = np.zeros(NUM_KINDS + 1, np.int64)
        held[:NUM_KINDS] = hand[b] > 0
        live[:NUM_KINDS] = unseen[b]
        for k in range(NUM_NATURALS):
            value = 0.0
            for i in range(sets.shape[1]):  # set partners: the other partners' live outs
                if held[sets[k, i]]:
                    outs = 0
                    for j in range(sets.shape[1]):
                        if j != i and not held[sets[k, j]]:
                            outs += live[sets[k, j]]
                    value += 3.0 + 2.0 * min(outs, 4)
            for i in range(near.shape[1]):
                if held[near[k, i]]:  # a run neighbour: the cards that make it three
                    outs = 0
                    for j in range(ends.shape[2]):
                        outs += live[ends[k, i, j]]
                    value += 3.0 + 2.0 * min(outs, 4)
                if held[far[k, i]]:  # two apart: the card between
                    outs = 0
                    for j in range(middle.shape[2]):
                        outs += live[middle[k, i, j]]
                    value += 2.0 + 1.5 * min(outs, 3)
            out[b, k] = value
    return out


def table_fits(cols: dict[str, np.ndarray], rules: RuleSet) -> np.ndarray:
    """bool (B, 53): each kind lays off on some meld of the table (``fits``)."""
    naturals, ace_high, jokers = fits.table_fits(rules, cols["meld_kind"], cols["meld_key"],
                                                 cols["meld_cells"])
    out = np.zeros((len(naturals), NUM_KINDS), bool)
    out[:, :NUM_NATURALS] = naturals.any(1)
    aces = np.arange(ace_high.shape[-1]) * (NUM_NATURALS // ace_high.shape[-1])
    out[:, aces] |= ace_high.any(1)
    out[:, JOKER] = jokers.any((1, 2))
    return out


def dangers(cols: dict[str, np.ndarray], fit: np.ndarray, rules: RuleSet) -> np.ndarray:
    """float64 (B, 52): ``discard_choice.danger`` of every natural kind, batched."""
    related = _tables()["related"]
    known = _pad(cols["known_taken"])  # (B, P, 54)
    out = np.zeros((len(known), NUM_NATURALS))
    for seat, weight in enumerate(danger_weights(rules), start=1):
        hits = known[:, seat][:, related].sum(-1)
        lays = fit[:, :NUM_NATURALS] & (cols["opened"][:, seat, None] > 0)
        out += weight * (12.0 * np.minimum(hits, 2) + 6.0 * lays)
    return out


def held_cards(cols: dict[str, np.ndarray], rules: RuleSet) -> np.ndarray:
    """int64 (B, 53): ``held`` (see the module docstring) of each row."""
    table = meld_table(rules)
    unopened = cols["opened"][:, ov.OBSERVER] == 0
    return held_batch(np.ascontiguousarray(cols["hand"]), unopened, table.points,
                      *search_args(table))


def card_width(held: bool) -> int:
    """Entries ``card_features`` gives per observation, with or without ``held``."""
    return CARD_FEATURES + (NUM_KINDS if held else 0)


def card_features(obs: np.ndarray, rules: RuleSet, held: bool = False) -> np.ndarray:
    """int16 (B, card_width(held)): ``keep``, ``danger`` (times ``STORE``) and ``fits``
    of every kind, then ``held`` if asked, for each observation row; all 0 once the deal
    is over."""
    obs = np.asarray(obs, np.int16)
    cols = columns(obs, rules)
    fit = table_fits(cols, rules)
    out = np.zeros((len(obs), card_width(held)), np.int16)
    out[:, KEEP][:, :NUM_NATURALS] = np.rint(STORE * keep_values(cols["hand"], cols["unseen"]))
    out[:, DANGER][:, :NUM_NATURALS] = np.rint(STORE * dangers(cols, fit, rules))
    out[:, FITS] = fit
    if held:
        out[:, HELD] = held_cards(cols, rules)
    over = cols["phase"][:, ov.PHASE_OVER] > 0
    out[over] = 0
    return out


def card_scale(held: bool = False) -> np.ndarray:
    """float32 (card_width(held),): the network's factor per feature."""
    return np.concatenate([np.full(2 * NUM_KINDS, SCALE, np.float32),
                           np.ones(card_width(held) - 2 * NUM_KINDS, np.float32)])


__all__ = ["CARD_FEATURES", "DANGER", "FIELDS", "FITS", "HELD", "KEEP", "STORE", "card_features",
           "card_scale", "card_width", "dangers", "held_cards", "keep_values", "table_fits"]
