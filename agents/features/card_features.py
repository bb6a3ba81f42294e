"""Card features for learned agents: what each card kind is worth kept, how much it would
help an opponent, and whether it lays off on the table now.

The planner's discard choice (``agents.planner.choice_kernel``) weighs every card by its future
value in the hand (partners, weighted by their live outs among the unseen cards), the
danger of feeding an opponent (it relates to discards that seat took, or lays off on the
table once that seat has opened) and its penalty. A network reads 53 card counts per
pile; relating a card to its partners across suits and ranks is structure it would have
to learn from a noisy reward. These features give it the planner's terms, per kind:

================  ====================================================================
``keep`` (53)     ``rules_of_thumb.keep_values`` of the kind in this hand (joker: 0)
``danger`` (53)   ``rules_of_thumb.danger_values`` of the kind (joker: 0)
``fits`` (53)     1 if the kind lays off on a table meld now (a natural: the core's
                  ``fits.table_fits``, swaps and the ace-high end included, jokers too)
``held`` (53)     only with ``held=True``: before the seat has opened, the cards of each
                  kind in the hand's best joker-free melds by points (what the planner
                  holds back for its opening and never throws); 0 once opened
================  ====================================================================

They are a pure function of the observation (own hand, unseen counts, discards the
others took, who has opened, the table), computed for a batch at once by the functions
the planner calls too (``agents.features.rules_of_thumb``): the rules of thumb have one
home. ``keep`` and ``danger`` are stored times ``STORE`` (they are multiples of 0.5 and
0.2) and scaled back by the network (``SCALE``).
"""

from __future__ import annotations

import numpy as np

from agents import obs_view as ov
from agents.features import rules_of_thumb
from zolik_env.rummy import fits
from zolik_env.rummy.cards import JOKER, NUM_KINDS, NUM_NATURALS
from zolik_env.rummy.options import RuleSet

FIELDS = ("keep", "danger", "fits")
CARD_FEATURES = len(FIELDS) * NUM_KINDS  # without ``held``
HELD = slice(CARD_FEATURES, CARD_FEATURES + NUM_KINDS)  # with ``held=True``
KEEP, DANGER, FITS = (slice(i * NUM_KINDS, (i + 1) * NUM_KINDS) for i in range(len(FIELDS)))
STORE = 10  # keep and danger are stored as round(value * STORE)
SCALE = 1.0 / (20 * STORE)  # what the network multiplies stored keep and danger by


def columns(obs: np.ndarray, rules: RuleSet) -> dict[str, np.ndarray]:
    """The observation's slices for a batch: name -> int64 (B, *shape)."""
    return {name: obs[:, start:stop].astype(np.int64).reshape(len(obs), *shape)
            for name, start, stop, shape in ov.slices(rules)}


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


def held_cards(cols: dict[str, np.ndarray], rules: RuleSet) -> np.ndarray:
    """int64 (B, 53): ``held`` (see the module docstring) of each row."""
    unopened = cols["opened"][:, ov.OBSERVER] == 0
    return rules_of_thumb.held_for_opening(cols["hand"], unopened, rules)


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
    keep = rules_of_thumb.keep_values(cols["hand"], cols["unseen"])
    danger = rules_of_thumb.danger_values(cols["known_taken"], cols["opened"], fit,
                                          rules_of_thumb.danger_weights(rules))
    out[:, KEEP][:, :NUM_NATURALS] = np.rint(STORE * keep)
    out[:, DANGER][:, :NUM_NATURALS] = np.rint(STORE * danger)
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
           "card_scale", "card_width", "held_cards", "table_fits"]
