"""``planner``: searches the hand's decompositions, takes useful discards, guards its discards."""

from __future__ import annotations

import numpy as np

from agents.base import SingleFromBatched
from agents.planner.plan_tables import plan_tables, weight_array
from agents.planner.planner_kernel import GREEDY, PLANNER, batch_actions, ranked_discards
from agents.planner.planner_weights import DEFAULT_WEIGHTS, PlannerWeights, parse_weights
from zolik_env.rummy.options import RuleSet


class PlannerPolicy(SingleFromBatched):
    """Strategy (deterministic; the rng is not used):

    - Melds: an exact search over the hand's count vector (``hand_search.best_melds``) for
      the disjoint runs and sets worth most; cards that already fit a table meld count as
      laid (lay-offs), and a taken cz/sk discard must be used.
    - Opening: as soon as the best joker-free choice (else one with jokers) reaches the
      preset's points and clean run; the whole opening is planned before the first lay,
      and a hand that melds completely closes from hand (an end card kept to discard).
    - After opening: lays every joker-free meld and lay-off; keeps its jokers unless
      using them goes out this turn or an opponent is down to a few cards.
    - Joker swaps: a natural that replaces a table joker is swapped when the freed joker,
      re-laid at once, lowers what the hand would pay.
    - Draw (cz/sk): the top discard only when the planned turn lays it (and completes the
      opening if not yet open); sk's bottom card likewise. Otherwise the stock.
    - Draw (jolly, after opening): the pick-up depth whose planned turn adds most (laid
      points minus what the taken cards cost in hand), if it beats the stock by a margin;
      the 20-card cap is the mask's.
    - Discard: the free card with the lowest score of future value (partners weighted by
      live outs among unseen cards; cards of melds held for the opening protected) plus
      danger (it joins discards an opponent, above all the next seat, took, or lays off on
      the table for an opened one) minus its hand penalty (weighted more after opening and
      when an opponent is close to going out). Never a joker if anything else may go.
    - Obligations: the plan meets must-use, freed jokers and the provisional opening
      before its discard; if a planned step is not legal, a legal discard or UNDO.
    - Every decision is planned from the observation alone, so a deal plays the same in
      any batch (``agents.planner.choice_kernel``).

    The numbers these choices trade off are ``weights`` (``agents.planner.planner_weights``).
    Compiled batch kernels play it (``agents.planner.planner_kernel``); the readable
    per-row version they are held to is ``tests/agents/planner_reference``.
    """

    name = "planner"

    def __init__(self, rules: RuleSet, weights: PlannerWeights = DEFAULT_WEIGHTS) -> None:
        self.rules = rules
        self.weights = weights
        self._tables = plan_tables(rules)
        self._weights = weight_array(weights)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        return batch_actions(self._tables, self._weights, np.ascontiguousarray(obs, np.int16),
                             np.ascontiguousarray(mask, np.bool_), PLANNER)

    def ranked_discards(self, obs: np.ndarray, mask: np.ndarray) -> list[int]:
        """The legal discard actions, best first by the planner's discard score (after the
        lays its plan would still make); a joker last. For search agents' candidates."""
        ranked = ranked_discards(self._tables, self._weights,
                                 np.ascontiguousarray(obs, np.int16),
                                 np.ascontiguousarray(mask, np.bool_))
        return [int(a) for a in ranked]


def make(rules: RuleSet, argument: str = "") -> PlannerPolicy:
    """The agent for spec ``planner[:KEY=VALUE,...]`` (``agents.planner.planner_weights``)."""
    return PlannerPolicy(rules, parse_weights(argument))


def compile_kernels() -> None:
    """Compile (or load from the on-disk cache) the planner's and greedy's kernels, by
    deciding the first positions of one deal; ``scripts/test.sh`` calls it before the
    test workers start."""
    from zolik_env.rummy import game
    from zolik_env.rummy.observe import observe
    from zolik_env.rummy.options import preset

    rules = preset("cz")
    policy = PlannerPolicy(rules)
    state = game.init(rules, [0])
    obs = observe(rules, state, state.current.astype(np.int64))
    mask = game.legal_action_mask(rules, state)
    for who in (PLANNER, GREEDY):
        batch_actions(policy._tables, policy._weights, obs, mask, who)
    policy.ranked_discards(obs[0], mask[0])
