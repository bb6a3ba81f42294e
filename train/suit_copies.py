"""Corrections in renamed suits: the repeats of a search's corrections, each in other suits.

Expert iteration weights the labels that overrule the round's network by repeating them
(``ExitPlan.deviation_weight``). A network that learns them so plays most of the
corrections it was taught and few of those it was not: on a cz round's labels, six
passes made it play 74% of the corrections it was taught and 21% of the held-out ones
(``docs/results/suit-symmetry.md``). The rules treat the suits alike
(``zolik_env.rummy.symmetry``), so a correction is also a correction in the deal with its
suits renamed: each repeat in other suits gives the network the same correction in a
position it has not seen, where a plain repeat gives it the same position again.

    data = renamed_repeats(raw, overruled, weight=4, rules=rules, seed=7)

Each repeat renames the suits by a renaming drawn per label (one of the 23 that change
something) from ``seed``: the same seed gives the same bytes. As with plain repeats
(``train.expert_iteration.stressed``) the repeats go in front, so the held-out tail holds
none.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from train.imitation import TeacherData, concat
from zolik_env.rummy.actions import NUM_ACTIONS
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.symmetry import (
    SUIT_PERMUTATIONS,
    action_map,
    permute_counts,
    permute_masks,
    permute_observations,
)


def renamed(data: TeacherData, rules: RuleSet, perm: tuple[int, ...]) -> TeacherData:
    """``data`` (plain observations, before features) in the deals with suits renamed by
    ``perm``: observations, legal moves, moves and critic views; the returns stay."""
    legal = np.unpackbits(data.mask, axis=1, count=NUM_ACTIONS).astype(bool)
    critic = permute_counts(data.critic, perm) if data.critic.shape[1] else data.critic
    return TeacherData(obs=permute_observations(rules, data.obs, perm),
                       mask=np.packbits(permute_masks(legal, perm), axis=1),
                       action=action_map(perm)[data.action].astype(data.action.dtype),
                       ret=data.ret.copy(), critic=critic)


def renamed_repeats(data: TeacherData, overruled: np.ndarray, weight: int, rules: RuleSet,
                    seed: int, holdout: float) -> TeacherData:
    """``data`` with ``weight - 1`` repeats of each overruled training label (not of its
    last ``holdout``) in front, each repeat in a renaming of its own."""
    if weight < 1:
        raise ValueError(f"deviation weight {weight}: want 1 or more")
    n_train = int(len(data) * (1 - holdout))
    rows = np.flatnonzero(overruled[:n_train])
    rng = np.random.default_rng(seed)
    repeats = [in_random_suits(data.take(rows), rules, rng) for _ in range(weight - 1)]
    return concat(*repeats, data)


def in_random_suits(data: TeacherData, rules: RuleSet,
                    rng: np.random.Generator) -> TeacherData:
    """``data`` with each label renamed by a renaming drawn from ``rng`` (one that changes
    the suits)."""
    which = rng.integers(1, len(SUIT_PERMUTATIONS), len(data))
    out = data.take(np.arange(len(data)))
    for p in np.unique(which):
        at = np.flatnonzero(which == p)
        moved = renamed(data.take(at), rules, SUIT_PERMUTATIONS[p])
        for f in dataclasses.fields(TeacherData):
            getattr(out, f.name)[at] = getattr(moved, f.name)
    return out
