"""agents.search.meld_table: the fixed list every hand's candidates are chosen from."""

import numpy as np
import pytest

from agents.search.hand_search import candidates
from agents.search.meld_table import meld_table, select
from zolik_env.rummy import rules
from zolik_env.rummy.cards import JOKER, deck_counts


@pytest.mark.parametrize("preset", ["cz", "sk", "jolly"])
def test_every_table_meld_is_valid_and_worth_its_points(preset):
    r = rules.preset(preset)
    table = meld_table(r)
    assert len(table.cands) == len(set(table.cands))  # no meld twice
    for cand in table.cands:
        check = rules.check_meld(list(cand.cards), r)
        assert check.valid, (cand.cards, check.reason)
        assert check.points == cand.points


@pytest.mark.parametrize("preset", ["cz", "jolly"])
def test_select__picks_the_hands_candidates_in_the_searchs_order(preset):
    """Equal to ``candidates`` stably sorted by the lowest natural, on random hands."""
    r = rules.preset(preset)
    table = meld_table(r)
    rng = np.random.default_rng(3)
    pack = [k for k, c in enumerate(deck_counts(4)) for _ in range(c)]
    for _ in range(400):
        counts = np.bincount(rng.choice(pack, size=int(rng.integers(3, 21)), replace=False),
                             minlength=JOKER + 1).astype(np.int64)
        want = sorted(candidates(counts, int(counts[JOKER]), r), key=lambda c: c.naturals[0])
        rows, *_ = select(counts, int(counts[JOKER]), table.group, table.naturals,
                          table.sizes, table.absent, table.jokers)
        assert [table.cands[i] for i in rows] == want
