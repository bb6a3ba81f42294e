"""``pimc``: Perfect Information Monte Carlo search, determinized rollouts over worlds
sampled from the seat's belief.

At a decision with a real choice (the draw; the discard that ends the turn):

1. **Candidates**: the prior's own move first (the prior is the rollout policy unless
   ``prior`` names another), then the rollout policy's move when the prior is another
   policy, then the other draws (stock, top discard, sk's bottom card) or the next
   discards in the prior's ranking (its ``ranked_discards`` when it has one, as the
   planner does; a network's likeliest first; else the highest hand penalty first, a
   joker last); at most ``candidates`` of them.
2. **Worlds**: ``InfoState.worlds`` deals the seat cannot tell from the true one
   (``zolik_env.rummy.belief``: the hidden cards re-dealt uniformly).
3. **Rollouts**: every candidate is played in every world and the deal is played to its
   end with every seat following the rollout policy, which acts on its own observation
   in that world, so no seat of a rollout sees hidden cards either. All worlds x
   candidates step through the core as one batch.
4. **Choice**: sequential halving (Karnin, Koren & Somekh 2013) finds the best of the
   other candidates: each round plays the candidates still in on the same fresh worlds
   (paired samples) and drops the worse half. The survivor then meets the prior's
   move on fresh worlds, and replaces it only when its mean paired advantage
   (the seat's deal reward minus the mean of the others') is above zero by more than
   ``z`` standard errors: with few rollouts the search rarely overrules its policy, so a
   small budget costs little strength. Half the budget goes to the halving (none when
   there is only one other candidate), the rest to the test.

Every other decision (lays, lay-offs, joker swaps, UNDO) is the prior's move; with
``melds=1`` and a ``prior`` other than the rollout policy, the rollout policy's move
challenges it there too (two candidates, the same test), so search labels a network's
melds against the planner's as it does its draws and discards.

With the planner as rollout policy this is a one-step policy improvement of the planner
(Tesauro & Galperin's rollouts over sampled deals, as in Ginsberg's GIB for bridge).

**Truncated rollouts** (``horizon=N``): a rollout stops when the searching seat begins its
N-th turn after the move, and the network ``value`` (default: the rollout policy, when it
is a network) estimates the rest of the deal from that seat's observation there. A full
rollout's margin carries the noise of every later card; the estimate averages over it, at
the price of the value head's errors (``zolik strength labels`` measures which wins).

The budget per decision is ``rollouts`` (played deals in all; the same seed gives the
same move) or, when ``seconds`` is set, a time limit (anytime: as many worlds as fit,
so the moves depend on the machine's speed).

Spec: ``pimc`` or ``pimc:KEY=VALUE,...`` with ``rollouts`` (default 32), ``seconds``
(default 0: use ``rollouts``), ``candidates`` (default 4), ``z`` (default 1) and
``policy`` (the rollout policy: ``random``, ``greedy``, ``planner`` (default),
``ppo:PATH`` or any agent spec that acts on observations), ``prior`` (the policy whose
moves the search must beat, default the rollout policy), ``horizon`` (default 0: to the
deal's end), ``value`` (the network that values a truncated rollout) and ``melds``
(default 0; 1: search the prior's melds too, see above), e.g.
``pimc:rollouts=64,policy=greedy`` or, to improve a network on its own moves with
planner rollouts (``train.expert_iteration``), ``pimc:prior=ppo:RUN/final.zip:argmax``.
Each step of the search plays at least 2 worlds per candidate, so a small ``rollouts``
plays more (8 plays 14 deals with 4 candidates).
``seconds`` is a target, not a cap: every step plays at least one chunk of worlds, and a
decision early in a deal, when rollouts are longest, can run over.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Policy, is_oracle_policy, is_search_policy
from agents.registry import key_values, make_agent, number_value
from zolik_env.envs.zolik_common import SCORE_SCALE
from zolik_env.rummy import actions as A
from zolik_env.rummy import game
from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.cards import JOKER
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import State
from zolik_env.rummy.values import hand_values

DRAWS = (A.DRAW_STOCK, A.TAKE_DISCARD_BASE, A.TAKE_BOTTOM)
TIMED_CHUNK = 4  # worlds per batch when a time budget adds worlds until it is spent
HALVING_SHARE = 0.5  # of a decision's budget, for finding the best other move (rest: its test)


@dataclass(frozen=True)
class Budget:
    """What one decision may spend (``rollouts`` deals, or ``seconds`` when above 0), on how
    many candidates, and how sure a move must be to replace the rollout policy's (``z``)."""

    rollouts: int = 32
    seconds: float = 0.0
    candidates: int = 4
    z: float = 1.0


@dataclass(frozen=True)
class Verdict:
    """The outcome of one search: ``choice`` indexes the options (0: the rollout policy's
    move); ``gain`` and ``stderr`` are the best other move's mean paired advantage over it
    on the test's fresh worlds, and its standard error."""

    choice: int
    gain: float
    stderr: float

    @classmethod
    def of(cls, challenger: int, gains: np.ndarray, z: float) -> Verdict:
        """Take ``challenger`` when its mean gain is above 0 by more than ``z`` standard
        errors. The test uses worlds the halving did not see, so the halving's luck (the
        winner's curse) does not carry into it; a tie keeps the rollout policy's move."""
        gain = float(gains.mean())
        stderr = float(gains.std(ddof=1) / math.sqrt(gains.size)) if gains.size > 1 else math.inf
        wins = gain > 0 and gain > z * stderr
        return cls(challenger if wins else 0, gain, stderr)


@dataclass(frozen=True)
class _Share:
    worlds: int  # worlds per move, with a rollout budget
    until: float | None  # perf_counter deadline, with a time budget


class _Clock:
    """Hands out one decision's budget, a fraction at a time."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.start = time.perf_counter()
        self.spent = 0.0

    def share(self, fraction: float, moves: int) -> _Share:
        """The next ``fraction`` of the budget for ``moves`` moves: with rollouts, the worlds
        each move plays (two at least); with seconds, the deadline."""
        self.spent += fraction
        if self.budget.seconds > 0:
            return _Share(0, self.start + self.budget.seconds * self.spent)
        return _Share(max(2, round(self.budget.rollouts * fraction / moves)), None)


def play_out(rules: RuleSet, state: State, policy: Policy,
             rng: np.random.Generator) -> np.ndarray:
    """int (B, P): each deal's rewards (``game.rewards_of``) once every seat has played
    it to the end with ``policy``; finished deals leave the batch as they end."""
    rewards = np.zeros((state.batch_size, rules.num_players), np.int64)
    rows = np.arange(state.batch_size)
    while True:
        over = state.done
        if over.any():
            rewards[rows[over]] = game.rewards_of(rules, state.take(np.flatnonzero(over)))
            state, rows = state.take(np.flatnonzero(~over)), rows[~over]
        if not rows.size:
            return rewards
        state = advance(rules, state, policy, rng)


def advance(rules: RuleSet, state: State, policy: Policy, rng: np.random.Generator) -> State:
    """``state`` one move on: the seat to act in each deal plays ``policy``'s move."""
    mask = game.legal_action_mask(rules, state)
    obs = game.observe(rules, state, state.current)
    actions = np.asarray(policy.act_batch(obs, mask, rng), np.int64)
    return game.step(rules, state, actions, validate=False)[0]


def play_to_horizon(rules: RuleSet, state: State, policy: Policy, rng: np.random.Generator,
                    seat: int, turns: int, value: Any) -> np.ndarray:
    """float (B,): ``seat``'s margin in each deal played on with ``policy``: the deal's
    own (``margin``) where it ends before ``seat`` begins its ``turns``-th turn from here,
    else ``value``'s estimate (``values``: the ``score`` reward, a centred score / 100)
    from ``seat``'s observation at the start of that turn, as a margin."""
    players = rules.num_players
    to_margin = SCORE_SCALE * players / (players - 1)  # centred score -> own minus others' mean
    margins = np.zeros(state.batch_size)
    rows = np.arange(state.batch_size)
    begun = np.zeros(state.batch_size, np.int64)
    while True:
        over = state.done
        if over.any():
            ended = np.flatnonzero(over)
            margins[rows[ended]] = margin(game.rewards_of(rules, state.take(ended)), seat)
        cut = ~over & (begun >= turns)
        if cut.any():
            at = np.flatnonzero(cut)
            obs = game.observe(rules, state.take(at), seat)
            margins[rows[at]] = to_margin * np.asarray(value.values(obs), np.float64)
        keep = np.flatnonzero(~over & ~cut)
        if not keep.size:
            return margins
        state, rows, begun = state.take(keep), rows[keep], begun[keep]
        before = state.current.copy()
        state = advance(rules, state, policy, rng)
        begun += (state.current == seat) & (before != seat) & ~state.done


def margin(rewards: np.ndarray, seat: int) -> np.ndarray:
    """float (B,): ``seat``'s reward minus the mean of the other seats' rewards."""
    others = (rewards.sum(1) - rewards[:, seat]) / (rewards.shape[1] - 1)
    return rewards[:, seat] - others


class PIMCPolicy:
    """Determinized rollouts at draws and discards; see the module docstring."""

    name = "pimc"

    def __init__(self, rules: RuleSet, budget: Budget = Budget(),
                 policy: str = "planner", prior: str = "", horizon: int = 0,
                 value: str = "", melds: bool = False) -> None:
        self.rules = rules
        self.budget = budget
        # its moves off-search, its rankings: ``prior`` when given, else the rollout policy
        self.prior = _rollout_policy(prior or policy, rules)
        # another policy's move is a candidate too when the prior is not the rollout
        # policy's own network (its :argmax twin): e.g. the planner's, beside a network's
        self.second = bool(prior) and prior.removesuffix(":argmax") != policy
        if melds and not self.second:
            raise ValueError("pimc: melds=1 searches the prior's melds against the rollout "
                             "policy's; give prior= a policy other than the rollout policy")
        self.melds = melds  # the rollout policy's move challenges the prior's melds too
        self.rollout = _rollout_policy(policy, rules)  # own instance: caches see rollouts only
        self.penalty = hand_values(rules).astype(np.float64)
        self.horizon = horizon  # the searching seat's turns a rollout plays (0: all)
        self.value = _value_net(value or policy, rules) if horizon else None

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        raise ValueError(NEEDS_INFO)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        raise ValueError(NEEDS_INFO)

    def act_info(self, info: InfoState, rng: np.random.Generator) -> int:
        obs, mask = info.observation(), info.legal_mask()
        move = int(self.prior.act(obs, mask, rng))
        options = self.candidates(obs, mask, move)
        if len(options) < 2:
            return move
        return options[self.search(info, options, _seed(rng)).choice]

    def candidates(self, obs: np.ndarray, mask: np.ndarray, move: int) -> list[int]:
        """The moves worth searching, ``move`` (the rollout policy's) first."""
        if move < A.MELD_BASE:  # a draw: the stock, a discard (jolly: any depth), sk's bottom
            others = self.by_prior([a for a in DRAWS if mask[a]], obs, mask)
        elif move >= A.DISCARD_BASE:
            others = self.ranked_discards(obs, mask)
        elif self.melds:  # a meld, lay-off, joker swap or UNDO: only the rollout policy's
            others = []  # move challenges it (``self.second`` below)
        else:
            return [move]
        if self.second:
            others = [int(self.rollout.act(obs, mask, np.random.default_rng(0))), *others]
        options = list(dict.fromkeys([move, *others]))
        return options[: self.budget.candidates]

    def by_prior(self, moves: list[int], obs: np.ndarray, mask: np.ndarray) -> list[int]:
        """``moves`` likeliest first when the prior is a network (it has
        ``probabilities``: ``search:net=...``, ``pimc:prior=ppo:...``); else as given."""
        probabilities = getattr(self.prior, "probabilities", None)
        if not callable(probabilities) or len(moves) < 2:
            return moves
        p = probabilities(obs[None], mask[None])[0]
        return sorted(moves, key=lambda a: (-p[a], a))

    def ranked_discards(self, obs: np.ndarray, mask: np.ndarray) -> list[int]:
        """Legal discards, best first: the prior's ranking when it has one, a network's
        likeliest first, else the highest hand penalty first and a joker last."""
        rank = getattr(self.prior, "ranked_discards", None)
        if callable(rank):
            return list(rank(obs, mask))
        if callable(getattr(self.prior, "probabilities", None)):
            return self.by_prior([int(a) for a in np.flatnonzero(mask)
                                  if a >= A.DISCARD_BASE], obs, mask)
        kinds = np.flatnonzero(mask[A.DISCARD_BASE:])
        order = sorted(kinds, key=lambda k: (k == JOKER, -self.penalty[k], k))
        return [A.DISCARD_BASE + int(k) for k in order]

    def search(self, info: InfoState, options: list[int], seed: int) -> Verdict:
        """Pick among ``options`` (the rollout policy's move first): halving finds the best
        other move, a fresh test against the first decides (see ``Verdict``)."""
        rng = np.random.default_rng(seed)
        clock = _Clock(self.budget)
        others = list(range(1, len(options)))
        rounds = math.ceil(math.log2(len(others)))  # 0 when there is one other move
        halving = HALVING_SHARE if rounds else 0.0
        for _ in range(rounds):
            margins = self.sample(info, [options[i] for i in others],
                                  clock.share(halving / rounds, len(others)), rng)
            best_first = np.argsort(-margins.mean(1), kind="stable")
            others = sorted(others[i] for i in best_first[: math.ceil(len(others) / 2)])
        challenger = others[0]
        margins = self.sample(info, [options[0], options[challenger]],
                              clock.share(1.0 - halving, 2), rng)
        gain = margins[1] - margins[0]
        return Verdict.of(challenger, gain, self.budget.z)

    def sample(self, info: InfoState, moves: list[int], share: _Share,
               rng: np.random.Generator) -> np.ndarray:
        """float (len(moves), W): margins of ``moves`` on fresh worlds, as many as the
        share allows (chunks of ``TIMED_CHUNK`` until its time is up, one at least)."""
        if share.until is None:
            return self.evaluate(info, moves, info.worlds(share.worlds, _seed(rng)), rng)
        parts = []
        while not parts or time.perf_counter() < share.until:
            parts.append(self.evaluate(info, moves, info.worlds(TIMED_CHUNK, _seed(rng)), rng))
        return np.concatenate(parts, axis=1)

    def evaluate(self, info: InfoState, moves: list[int], worlds: State,
                 rng: np.random.Generator) -> np.ndarray:
        """float (len(moves), W): the seat's margin after each move in each world."""
        w, k = worlds.batch_size, len(moves)
        start = worlds.take(np.repeat(np.arange(w), k))  # row i * k + j: world i, move j
        state, _ = game.step(self.rules, start, np.tile(np.asarray(moves, np.int64), w))
        if self.horizon:
            margins = play_to_horizon(self.rules, state, self.rollout, rng, info.seat,
                                      self.horizon, self.value)
        else:
            margins = margin(play_out(self.rules, state, self.rollout, rng), info.seat)
        return margins.reshape(w, k).T


NEEDS_INFO = ("agent 'pimc' searches over its seat's information state, which the "
              "evaluation harness gives it (zolik eval, zolik strength pairs); it cannot act "
              "on an observation alone (e.g. in a training pool)")

_KEYS = {"rollouts": int, "seconds": float, "candidates": int, "z": float, "policy": str,
         "prior": str, "horizon": int, "value": str, "melds": int}


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**62))


def _rollout_policy(spec: str, rules: RuleSet) -> Policy:
    try:
        policy = make_agent(spec, rules)
    except ValueError as error:
        raise ValueError(f"pimc: rollout policy {spec!r}: {error}") from None
    if is_search_policy(policy) or is_oracle_policy(policy):
        raise ValueError(f"pimc: rollout policy {spec!r} searches itself or sees every card; "
                         f"give one that acts on observations (random, greedy, planner, "
                         f"ppo:PATH)")
    return policy


def _value_net(spec: str, rules: RuleSet) -> Any:
    """The network that values truncated rollouts: an agent with ``values``."""
    try:
        net = make_agent(spec, rules)
    except ValueError as error:
        raise ValueError(f"pimc: value {spec!r}: {error}") from None
    if not callable(getattr(net, "values", None)):
        raise ValueError(f"pimc: value {spec!r} has no value head; with horizon=N give "
                         f"value=pretrained:NAME or value=ppo:PATH")
    return net


def _number(agent: str, key: str, text: str, low: float) -> float:
    return float(number_value(agent, key, text, low, _KEYS[key]))


def budget_of(agent: str, given: dict[str, str]) -> Budget:
    """The ``Budget`` of an agent spec's ``rollouts``, ``seconds``, ``candidates`` and ``z``
    (defaults where absent), naming a bad value."""
    return Budget(rollouts=int(_number(agent, "rollouts", given.get("rollouts", "32"), 1)),
                  seconds=_number(agent, "seconds", given.get("seconds", "0"), 0),
                  candidates=int(_number(agent, "candidates", given.get("candidates", "4"), 1)),
                  z=_number(agent, "z", given.get("z", "1"), 0))


def make(rules: RuleSet, argument: str = "") -> PIMCPolicy:
    """The agent for spec ``pimc:ARGUMENT`` (see the module docstring)."""
    given = key_values("pimc", argument, _KEYS)
    horizon = int(number_value("pimc", "horizon", given.get("horizon", "0"), 0, int))
    if "value" in given and not horizon:
        raise ValueError("pimc: value= values truncated rollouts; give horizon=N too")
    melds = given.get("melds", "0")
    if melds not in ("0", "1"):
        raise ValueError(f"pimc: melds={melds!r}: give 0 or 1")
    return PIMCPolicy(rules, budget_of("pimc", given), given.get("policy", "planner"),
                      given.get("prior", ""), horizon, given.get("value", ""), melds == "1")
