"""``oracle``: privileged players that see the true deal, every hand and the stock.

They are yardsticks, not players. Set beside the same agent playing from its seat's view,
an oracle bounds what hidden information is worth at this table (``zolik strength
oracle``, ``docs/yardsticks.md``). Only the evaluation harness gives them the deal
(``agents.base.OraclePolicy``: ``act_state``); ``act``, ``act_batch`` and ``act_info``,
which places that give a seat its own view call, refuse with a message, so an oracle
never sits in a training pool, an environment's opponent seat, the web table or a
search's rollouts. Reports and ratings mark it as privileged (``eval.tournament``).

- ``oracle:planner[:KEY=VALUE,...]``: the planner (``agents.planner.planner``, with the
  same weights as ``planner:KEY=VALUE,...``) deciding from the observation it would have
  if it knew the other hands: each opponent's row of ``known_taken`` (the cards the
  planner knows a seat holds, which its danger rule guards against feeding) is that
  opponent's whole hand, and ``unseen`` (the cards it counts as live outs) is the stock
  alone, the cards it may still draw. The planner's rules are left as they are: it uses
  the hands through the two inputs its rules already read, and does not use the order of
  the stock.
- ``oracle:pimc[:KEY=VALUE,...]``: ``pimc`` with the same keys and budget, whose worlds are
  all the true deal (perfect-information rollouts: the true hands and the true order of
  the stock). The rollout seats still act on their own observations in that world; with
  a deterministic rollout policy (the planner, greedy) every copy of the world plays
  alike, so the budget buys the same decision as two rollouts per candidate would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Policy
from agents.registry import make_agent
from agents.search import pimc
from zolik_env.rummy import game
from zolik_env.rummy.observe import obs_slices
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import count_pile
from zolik_env.rummy.state import State

KINDS = ("planner", "pimc")


def needs_state(name: str) -> str:
    """The message of an oracle asked to act from a seat's view."""
    return (f"agent {name!r} is an oracle: it sees every card (the true deal, which only the "
            f"evaluation harness gives it: zolik eval, zolik strength oracle); it cannot play "
            f"from a seat's view (a training pool, an environment's opponents, the web table, "
            f"a search's rollouts)")


class _Oracle:
    """The refusals every oracle shares; subclasses define ``act_state``."""

    name = "oracle"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        raise ValueError(needs_state(self.name))

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        raise ValueError(needs_state(self.name))

    def act_info(self, info: Any, rng: np.random.Generator) -> int:
        raise ValueError(needs_state(self.name))


def seen_view(rules: RuleSet, state: State) -> tuple[np.ndarray, np.ndarray]:
    """(obs int16 (OBS,), mask bool (A,)) of the seat to act in deal 0 of ``state``, its
    observation told the other hands: ``known_taken`` of each opponent is its hand and
    ``unseen`` the stock's cards (see the module docstring)."""
    seat = int(state.current[0])
    obs = game.observe(rules, state, state.current)[0].copy()
    mask = game.legal_action_mask(rules, state)[0]
    where = {name: (start, stop) for name, start, stop in obs_slices(rules)}
    p = rules.num_players
    hands = state.hands[0].astype(np.int16)
    start, stop = where["known_taken"]
    known = obs[start:stop].reshape(p, -1)
    for j in range(1, p):
        known[j] = hands[(seat + j) % p]
    start, stop = where["unseen"]
    obs[start:stop] = count_pile(state.stock, state.stock_len)[0]
    return obs, mask


class OraclePlanner(_Oracle):
    """The planner on the observation told the other hands (``seen_view``)."""

    def __init__(self, rules: RuleSet, argument: str = "") -> None:
        self.rules = rules
        self.planner = make_agent(f"planner:{argument}" if argument else "planner", rules)
        self.name = f"oracle:planner{':' + argument if argument else ''}"

    def act_state(self, rules: RuleSet, state: State, rng: np.random.Generator) -> int:
        obs, mask = seen_view(self.rules, state)
        return int(self.planner.act(obs, mask, rng))


class _TrueDeal:
    """What ``pimc``'s search reads of an information state (``seat`` and ``worlds``),
    with every world the true deal."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.seat = int(state.current[0])

    def worlds(self, n: int, seed: int) -> State:
        return self.state.take(np.zeros(n, np.int64))


class OraclePIMC(_Oracle):
    """``pimc``'s search with the true deal as its only world."""

    def __init__(self, rules: RuleSet, argument: str = "") -> None:
        self.rules = rules
        self.search = pimc.make(rules, argument)
        self.name = f"oracle:pimc{':' + argument if argument else ''}"

    def act_state(self, rules: RuleSet, state: State, rng: np.random.Generator) -> int:
        search = self.search
        obs = game.observe(self.rules, state, state.current)[0]
        mask = game.legal_action_mask(self.rules, state)[0]
        move = int(search.prior.act(obs, mask, rng))
        options = search.candidates(obs, mask, move)
        if len(options) < 2:
            return move
        verdict = search.search(_TrueDeal(state), options,  # type: ignore[arg-type]
                                int(rng.integers(2**62)))
        return options[verdict.choice]


def make(rules: RuleSet, argument: str = "") -> Policy:
    """The agent for spec ``oracle:planner[:...]`` or ``oracle:pimc[:...]``."""
    kind, _, rest = argument.partition(":")
    if kind == "planner":
        return OraclePlanner(rules, rest)  # type: ignore[return-value]
    if kind == "pimc":
        return OraclePIMC(rules, rest)  # type: ignore[return-value]
    raise ValueError(f"oracle: {argument!r} is not one of {', '.join(KINDS)} (oracle:planner, "
                     f"oracle:planner:KEY=VALUE,..., oracle:pimc, oracle:pimc:KEY=VALUE,...)")
