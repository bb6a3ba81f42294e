"""Labels from a search agent, for expert iteration: the move ``pimc`` finds best for the
seat to act, from that seat's information state.

``train.imitation.collect`` uses it when its teacher is a search agent (a DAgger round's
``dagger_teacher: pimc:...``): the network plays, the search labels its decisions, and
the network learns the search's improvement on its own games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.options import RuleSet


def search_labels(policy: Any, rules: RuleSet, state: Any,
                  rng: np.random.Generator) -> np.ndarray:
    """int64 (B,): a search agent's move for the seat to act in each deal, from that
    seat's information state (``zolik_env.rummy.belief.InfoState``: its own view, and
    worlds sampled from its belief; never the deal itself); 0 for finished deals."""
    out = np.zeros(state.batch_size, np.int64)
    for b in np.flatnonzero(~state.done):
        out[b] = policy.act_info(InfoState.of_seat_to_act(rules, state, b), rng)
    return out
