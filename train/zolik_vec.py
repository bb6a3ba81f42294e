"""Batched Stable-Baselines3 ``VecEnv`` of Žolík: ``num_envs`` deals in one core ``State``.

The training fast path. Every row is one learner against ``opponents`` (as in
``zolik/Zolik-v0``: ``"random"`` or Policy objects with ``act_batch``), or against the
opponents an ``OpponentHook`` chooses per row (self-play draws them from a pool, see
``train.selfplay``). A step applies the learner's actions to all rows in one core call,
then plays opponents batched: on each pass, the rows whose opponent is to act are stepped
together, until every row waits for its learner again. The env owns its ``state``: the
learner's moves and new deals are written into it in place (``game.step_in_place``,
``game.reset_in_place``), and ``get_state``/``set_state`` copy it. Finished deals restart
at once (SB3 auto-reset): the returned observation is the new deal's; the
last one is ``infos[i]["terminal_observation"]``, with ``deal_scores``, ``winner``,
``seat``, ``opened`` (whether the learner opened) and ``TimeLimit.truncated`` for deals
cut off.

``action_masks()`` is ``bool (num_envs, 2658)`` for sb3-contrib's ``MaskablePPO``;
observations are the learner's int16 view, rewards the ``reward`` mode's entry of the
learner's seat (see ``zolik_env.envs.zolik_common``). Deal seeds and learner seats come
from ``(seed, env index, episode)``, so runs are reproducible for the same ``seed`` and
``num_envs`` (the random opponents draw from one generator shared by all rows); with
``seed_limit``, deal seeds are reduced below it.
An illegal learner action raises ``ValueError`` naming the env and the move.

**Reward shaping** (``shaping`` > 0, Ng, Harada & Russell 1999): the potential of a
learner decision point is ``shaping * (hand points at the deal's first learner decision -
hand points now) / 100``, the points the learner has shed (``game.hand_points``), and 0
once the deal is over. Each step adds ``gamma * potential(next) - potential(now)``: the
discounted sum over a deal telescopes to 0 (the potential is 0 at both ends), so the
best policy for the shaped rewards is the best one for the deal scores, while laying
cards down is credited when it happens. ``infos`` of an ended deal carry
``deal_reward``, the unshaped reward.

**Privileged critic** (``critic=True``): every observation ends with the learner's
``critic_view`` (the other hands and the next stock cards, ``zolik_env.rummy.observe``),
for a value network that judges a position by the cards that will decide it. Only
``agents.learned.ppo_net.SplitMlpExtractor``'s value MLP reads those entries; the actor, and so
every checkpoint played as ``ppo:PATH``, sees the observation without them.

**Duplicate reference** (``reference``, a Policy such as the planner): when a deal
starts, a copy of it is played to its end with the reference in the learner's seat and
the row's opponents in the others, and the learner's deal reward is its own minus the
reference's on that deal (``infos["reference_reward"]``). The cards that luck dealt
both count the same for both, so most of the deal-to-deal noise cancels, as in the
duplicate deals of the evaluation. The reference's result does not depend on the
learner's moves, so it is a baseline: the expected policy gradient, and so the best
policy, stay those of the plain reward.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from agents.features.hand_features import augment, check_features, training_space
from train.vec_base import BatchedVecEnv
from zolik_env.envs.zolik_common import (
    SCORE_SCALE,
    check_reward_mode,
    make_rules,
    opponent_actions,
    play_opponents,
    resolve_opponents,
    shape_rewards,
)
from zolik_env.rng import splitmix64
from zolik_env.rummy import actions, game, options
from zolik_env.rummy.observe import critic_view, observe
from zolik_env.rummy.state import State


class OpponentHook(Protocol):
    """Who sits in the opponent seats of each row. Opponent ``j`` of a row sits ``j + 1``
    seats after the row's learner."""

    def new_deals(self, rows: np.ndarray) -> None:
        """Fresh deals start in ``rows`` (int64 (r,)): choose their opponents."""

    def actions(self, sub: State, rows: np.ndarray, slot: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
        """int64 (b,) one legal move per deal of ``sub``: the deals of batch ``rows`` (b,),
        each played by its opponent ``slot`` (b,)."""

    def deal_info(self, row: int) -> dict[str, Any]:
        """Extra ``info`` entries for the deal of ``row`` that just ended."""


class SeatOpponents:
    """The same policy per opponent seat in every row (``resolve_opponents``)."""

    def __init__(self, rules: options.RuleSet, opponents: Any) -> None:
        self.rules = rules
        self.policies = resolve_opponents(opponents, rules)

    def new_deals(self, rows: np.ndarray) -> None:
        return None

    def actions(self, sub: State, rows: np.ndarray, slot: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
        return opponent_actions(self.rules, sub, slot, self.policies, rng)

    def deal_info(self, row: int) -> dict[str, Any]:
        return {}


class ZolikVecEnv(BatchedVecEnv):
    """``num_envs`` learner-vs-opponents deals stepped together; see the module docstring."""

    def __init__(self, num_envs: int, rules: str | options.RuleSet = "cz",
                 num_players: int | None = None, opponents: Any = None,
                 rule_options: dict[str, Any] | None = None, reward: str = "score",
                 seed: int = 0, hook: OpponentHook | None = None,
                 seed_limit: int | None = None, shaping: float = 0.0,
                 gamma: float = 1.0, features: str = "", critic: bool = False,
                 reference: Any = None) -> None:
        """``hook`` replaces ``opponents`` (pass one of them); ``seed_limit`` bounds the
        deal seeds; ``shaping`` and ``gamma``: see the module docstring; ``features``
        (``agents.features.hand_features``) are appended to the learner's observations, and then,
        with ``critic``, the learner's critic view; ``reference`` (a Policy) plays each
        deal once more in the learner's seat, and the learner's reward is its own minus
        the reference's (see the module docstring)."""
        self.rules = make_rules(rules, num_players, rule_options)
        self.features = check_features(features)
        self.reward_mode = check_reward_mode(reward)
        if hook is not None and opponents is not None:
            raise ValueError("pass opponents or an opponent hook, not both")
        self.hook = hook if hook is not None else SeatOpponents(self.rules, opponents)
        self.seed_limit = seed_limit
        if shaping < 0 or not 0 < gamma <= 1:
            raise ValueError(f"shaping must be >= 0 and gamma in (0, 1], got {shaping} and "
                             f"{gamma}")
        self.shaping, self.gamma = float(shaping), float(gamma)
        self.render_mode = None
        self.critic = bool(critic)
        self.reference = reference
        self.reference_seconds = 0.0  # spent in the reference's moves (for the profile)
        super().__init__(num_envs, training_space(self.rules, self.features, self.critic),
                         gymnasium.spaces.Discrete(actions.NUM_ACTIONS))
        self._actions = np.zeros(num_envs, np.int64)
        self.num_decisions = 0  # learner and opponent moves played so far (for benchmarks)
        self._start(seed)

    def _start(self, seed: int) -> None:
        self._seed = np.uint64(int(seed) % 2**64)
        self._episodes = np.zeros(self.num_envs, np.uint64)
        self._rng = np.random.default_rng(int(seed) % 2**63)
        self.learner = np.zeros(self.num_envs, np.int64)
        self._start_points = np.zeros(self.num_envs, np.float64)
        self._potential = np.zeros(self.num_envs, np.float64)
        self._reference_reward = np.zeros(self.num_envs, np.float64)
        self.state = game.init(self.rules, np.zeros(self.num_envs, np.int64))
        self._new_deals(np.arange(self.num_envs))
        self._fresh = True  # the first reset() returns these deals

    def _new_deals(self, rows: np.ndarray) -> None:
        """Fresh deals in ``rows``, played up to each learner's first move."""
        while rows.size:
            row_keys = splitmix64(self._seed ^ splitmix64(rows.astype(np.uint64)))
            key = splitmix64(row_keys + self._episodes[rows])
            self._episodes[rows] += np.uint64(1)
            seats = splitmix64(key) % np.uint64(self.rules.num_players)
            self.learner[rows] = seats.astype(np.int64)
            self.hook.new_deals(rows)
            game.reset_in_place(self.rules, self.state, rows, self._deal_seeds(key))
            if self.reference is not None:
                self._reference_reward[rows] = self._play_reference(rows)
            self.state, moves = self._advance(self.state)
            self.num_decisions += moves
            started = rows[~self.state.done[rows]]
            self._start_points[started] = self._learner_points(started)
            self._potential[started] = 0.0
            rows = np.flatnonzero(self.state.done)  # ended before the learner moved: redeal
        self._mask: np.ndarray | None = None

    def _play_reference(self, rows: np.ndarray) -> np.ndarray:
        """float64 (r,): the learner-seat reward of the fresh deals of ``rows`` played to
        their end with ``reference`` in the learner's seat and each row's opponents in
        the others (the duplicate deal the learner's own result is measured against)."""
        n, learner = self.rules.num_players, self.learner[rows]

        def moves(sub: State, index: np.ndarray, seat: np.ndarray) -> np.ndarray:
            out = np.zeros(sub.batch_size, np.int64)
            mine = seat == learner[index]
            for part_rows, theirs in ((np.flatnonzero(mine), False),
                                      (np.flatnonzero(~mine), True)):
                if part_rows.size == 0:
                    continue
                part = sub if part_rows.size == sub.batch_size else sub.take(part_rows)
                if theirs:
                    at = index[part_rows]
                    slot = (seat[part_rows] - learner[at] - 1) % n
                    out[part_rows] = self.hook.actions(part, rows[at], slot, self._rng)
                else:
                    began = time.perf_counter()
                    out[part_rows] = opponent_actions(self.rules, part,
                                                      np.zeros(part_rows.size, np.int64),
                                                      [self.reference], self._rng)
                    self.reference_seconds += time.perf_counter() - began
            return out

        nobody = np.full(rows.size, -1, np.int64)  # no seat waits: play every seat to the end
        ended, moves_played = play_opponents(self.rules, self.state.take(rows), nobody, moves)
        self.num_decisions += moves_played
        shaped = shape_rewards(self.rules, game.rewards_of(self.rules, ended), ended.winner,
                               self.reward_mode)
        return shaped[np.arange(rows.size), learner]

    def _learner_points(self, rows: np.ndarray) -> np.ndarray:
        """float64 (r,): hand points of the learner of each of ``rows``."""
        return game.hand_points(self.rules, self.state.take(rows))[
            np.arange(rows.size), self.learner[rows]].astype(np.float64)

    def _shaping_terms(self, done: np.ndarray) -> np.ndarray:
        """float64 (num_envs,): ``gamma * potential(next) - potential(now)`` of this step;
        updates the potentials (0 for ended deals)."""
        if not self.shaping:
            return np.zeros(self.num_envs)
        going = np.flatnonzero(~done)
        new = np.zeros(self.num_envs)
        new[going] = (self.shaping * (self._start_points[going] - self._learner_points(going))
                      / SCORE_SCALE)
        terms = self.gamma * new - self._potential
        self._potential = new
        return terms

    def _deal_seeds(self, key: np.ndarray) -> np.ndarray:
        seeds = key >> np.uint64(1)
        if self.seed_limit is not None:
            seeds = seeds % np.uint64(self.seed_limit)
        return seeds.astype(np.int64)

    def reset(self) -> np.ndarray:
        """New deals in every env; a ``seed(s)`` call before restarts the seed sequence."""
        if self._seeds[0] is not None:
            self._start(self._seeds[0])
            self._reset_seeds()
        elif not self._fresh:
            self._new_deals(np.arange(self.num_envs))
        self._fresh = False
        return self._observe(self.state, self.learner)

    def _observe(self, state: State, seats: np.ndarray) -> np.ndarray:
        """The observations of ``seats`` (one per deal of ``state``), with the features
        and, with ``critic``, the critic view."""
        obs = augment(observe(self.rules, state, seats), self.rules, self.features)
        if not self.critic:
            return obs
        return np.concatenate([obs, critic_view(self.rules, state, seats)], axis=1)

    def _check(self, a: np.ndarray) -> None:
        mask = self.action_masks()
        ok = (a >= 0) & (a < actions.NUM_ACTIONS)
        ok[ok] = mask[np.flatnonzero(ok), a[ok]]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            name = (repr(actions.action_to_string(int(a[i])))
                    if 0 <= a[i] < actions.NUM_ACTIONS else "out of range")
            raise ValueError(f"env {i}: illegal learner action {int(a[i])} ({name}) for seat "
                             f"{int(self.learner[i])}")

    def _advance(self, state: State) -> tuple[State, int]:
        """Play the opponents' moves until every unfinished deal waits for its learner."""
        return play_opponents(self.rules, state, self.learner,
                              lambda sub, rows, slot: self.hook.actions(sub, rows, slot,
                                                                        self._rng))

    def step_wait(self) -> VecEnvStepReturn:
        a = self._actions
        self._check(a)
        game.step_in_place(self.rules, self.state, a, validate=False)  # the env owns it
        self.state, moves = self._advance(self.state)
        self.num_decisions += moves + self.num_envs
        self._mask = None
        done = self.state.done.copy()
        rewards = self._shaping_terms(done)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            rows = np.flatnonzero(done)
            ended = self.state.take(rows)
            seat = self.learner[rows]
            shaped = shape_rewards(self.rules, game.rewards_of(self.rules, ended), ended.winner,
                                   self.reward_mode)
            deal_reward = shaped[np.arange(rows.size), seat]
            rewards[rows] += deal_reward - self._reference_reward[rows]
            last = self._observe(ended, seat)
            for j, i in enumerate(rows):
                infos[i] = {"terminal_observation": last[j], "seat": int(seat[j]),
                            "deal_reward": float(deal_reward[j]),
                            "reference_reward": float(self._reference_reward[i]),
                            "opened": bool(ended.opened[j, seat[j]]),
                            "deal_scores": ended.scores[j].tolist(),
                            "winner": int(ended.winner[j]),
                            "TimeLimit.truncated": bool(ended.truncated[j]),
                            **self.hook.deal_info(int(i))}
            self._new_deals(rows)
        return (self._observe(self.state, self.learner), rewards.astype(np.float32),
                done, infos)

    def get_state(self) -> dict[str, Any]:
        """The deals in progress and every generator and counter the next steps use (for
        an exact resume, ``train.resume_state``); ``set_state`` puts them back."""
        return {"seed": self._seed, "episodes": self._episodes.copy(),
                "rng": self._rng.bit_generator.state, "learner": self.learner.copy(),
                "start_points": self._start_points.copy(), "potential": self._potential.copy(),
                "reference_reward": self._reference_reward.copy(), "state": self.state.copy(),
                "num_decisions": self.num_decisions, "fresh": self._fresh,
                "hook": self.hook.get_state() if hasattr(self.hook, "get_state") else None}

    def set_state(self, saved: dict[str, Any]) -> None:
        self._seed, self._episodes = saved["seed"], saved["episodes"].copy()
        self._rng.bit_generator.state = saved["rng"]
        self.learner = saved["learner"].copy()
        self._start_points = saved["start_points"].copy()
        self._potential = saved["potential"].copy()
        self._reference_reward = saved.get("reference_reward",
                                           np.zeros(self.num_envs, np.float64)).copy()
        self.state, self.num_decisions, self._fresh = saved["state"].copy(), \
            saved["num_decisions"], saved["fresh"]
        if saved["hook"] is not None:
            self.hook.set_state(saved["hook"])  # type: ignore[attr-defined]
        self._mask = None

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, 2658): each learner's legal moves."""
        if self._mask is None:
            self._mask = game.legal_action_mask(self.rules, self.state)
        return self._mask
