"""Žolík as a Gymnasium vector env over the core's batch axis: the kit's fast path.

    import gymnasium as gym
    import zolik_env  # registers the ids
    envs = gym.make_vec("zolik/Zolik-v0", num_envs=256, rules="cz", num_players=2)
    obs, info = envs.reset(seed=0)
    obs, rewards, terminated, truncated, info = envs.step(
        zolik_env.rummy.game.sample_legal(info["action_mask"], rng))

``make_vec`` builds this class (the id's ``vector_entry_point``), not 256 copies of
``ZolikEnv``: ``num_envs`` deals live in one core ``State``, stepped in place
(``game.step_in_place``, ``game.reset_in_place``). Every row is one learner against
``opponents``, as in ``zolik/Zolik-v0`` (``resolve_opponents``: ``"random"``, any agent
spec, Policy objects; one for all or a list of ``num_players - 1``), or against the
opponents an ``OpponentHook`` chooses per row (the self-play pool of
``train.selfplay``). A step applies the learner's actions to all rows in one core call,
then plays the opponents batched: on each pass the rows whose opponent is to act are
stepped together, until every row waits for its learner again.

Observations are the learner's int16 view (``zolik_v0``), followed with ``critic=True``
by its ``critic_view`` (the other hands and the next stock cards, for a privileged
critic only). Actions are ``Discrete(2658)`` ids per row; an illegal one raises
``ValueError`` naming the row and the move (no illegal-move episode end as in the single
env). ``info["action_mask"]`` and ``action_masks()`` are the core's ``bool (num_envs,
2658)`` legal masks, ``info["seat"]`` the learners' seats (each with its ``_key`` mask,
the Gymnasium vector convention).

**Autoreset** is ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``): a deal that
ends is replaced at once, so the step returns the new deal's observation, mask and seat,
and the ended deal's are in ``info["final_obs"]`` (object array, ``None`` for rows that
go on) and ``info["final_info"]``: ``seat``, ``deal_reward`` (the unshaped reward),
``reference_reward``, ``opened`` (whether the learner opened), ``deal_scores``
(``(num_envs, P)``), ``winner`` and the hook's ``deal_info`` entries (object arrays),
each with its ``_key`` mask. The ended deal's reward is in that step's ``rewards``.
The same step (not a later no-op step) is what an SB3 ``VecEnv`` expects too, so
``train.zolik_vec`` is a thin adapter over this env.

Deal seeds and learner seats come from ``(seed, row, episode)`` through SplitMix64, so a
run is reproducible for the same ``seed`` and ``num_envs`` (the random opponents draw
from one generator shared by all rows); ``seed_limit`` reduces the deal seeds below it.
The deals of the constructor's ``seed`` are dealt at once and returned by the first
``reset()``; ``reset(seed=s)`` restarts the sequence from ``s``, a plain ``reset()``
deals fresh deals in every row. Rewards are the ``reward`` mode's entry of the learner's
seat (``zolik_env.envs.zolik_common``), with two options of the training recipe:

- ``shaping`` > 0 (Ng, Harada & Russell 1999): the potential of a learner decision point
  is ``shaping * (hand points at the deal's first learner decision - hand points now) /
  100``, 0 once the deal is over; each step adds ``gamma * potential(next) -
  potential(now)``, which telescopes to 0 over a deal: the best policy is unchanged.
- ``reference`` (a Policy, e.g. the planner): every new deal is first played to its end
  with the reference in the learner's seat and the row's opponents in the others, and
  the learner's deal reward is its own minus the reference's on the same cards
  (duplicate play: a baseline that removes most of the luck of the deal).
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from zolik_env.arrays import Float64Array
from zolik_env.envs.checks import action_ids
from zolik_env.envs.zolik_common import (
    SCORE_SCALE,
    check_reward_mode,
    make_rules,
    observation_space,
    opponent_actions,
    play_opponents,
    resolve_opponents,
    shape_rewards,
)
from zolik_env.rng import splitmix64
from zolik_env.rummy import game, options
from zolik_env.rummy.actions import NUM_ACTIONS, action_to_string
from zolik_env.rummy.observe import critic_view, critic_view_size, observe
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


def learner_space(rules: options.RuleSet, critic: bool) -> gymnasium.spaces.Box:
    """One row's observation space: the env's, then with ``critic`` the critic view."""
    space = observation_space(rules)
    if not critic:
        return space
    extra = critic_view_size(rules)
    return gymnasium.spaces.Box(np.concatenate([space.low, np.zeros(extra, np.int16)]),
                                np.concatenate([space.high, np.full(extra, 127, np.int16)]),
                                (space.shape[0] + extra,), np.int16)


def check_num_envs(num_envs: Any) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    return num_envs


class ZolikVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` learner-vs-opponents deals stepped together; see the module docstring."""

    metadata: dict[str, Any] = {  # noqa: RUF012  # gymnasium's own attribute, per class
        "autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, rules: str | options.RuleSet = "cz",
                 num_players: int | None = None, opponents: Any = None,
                 rule_options: dict[str, Any] | None = None, reward: str = "score",
                 seed: int = 0, hook: OpponentHook | None = None,
                 seed_limit: int | None = None, shaping: float = 0.0, gamma: float = 1.0,
                 critic: bool = False, reference: Any = None,
                 render_mode: str | None = None) -> None:
        """``hook`` replaces ``opponents`` (pass one of them); the other arguments: see
        the module docstring."""
        self.rules = make_rules(rules, num_players, rule_options)
        self.reward_mode = check_reward_mode(reward)
        if hook is not None and opponents is not None:
            raise ValueError("pass opponents or an opponent hook, not both")
        self.hook = hook if hook is not None else SeatOpponents(self.rules, opponents)
        self.seed_limit = seed_limit
        if shaping < 0 or not 0 < gamma <= 1:
            raise ValueError(f"shaping must be >= 0 and gamma in (0, 1], got {shaping} and "
                             f"{gamma}")
        if render_mode is not None:
            raise ValueError(f"render_mode={render_mode!r}: the vector env does not render "
                             f"(zolik/Zolik-v0 made with gymnasium.make does)")
        self.shaping, self.gamma = float(shaping), float(gamma)
        self.critic = bool(critic)
        self.reference = reference
        self.reference_seconds = 0.0  # spent in the reference's moves (for the profile)
        self.num_envs = check_num_envs(num_envs)
        self.single_observation_space = learner_space(self.rules, self.critic)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.action_space = batch_space(self.single_action_space, num_envs)
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
        ended, moves_played = play_opponents(self.rules, self.state.take(rows), nobody, moves,
                                             in_place=True)  # a copy of ours
        self.num_decisions += moves_played
        shaped = shape_rewards(self.rules, game.rewards_of(self.rules, ended), ended.winner,
                               self.reward_mode)
        mine: Float64Array = shaped[np.arange(rows.size), learner]
        return mine

    def _learner_points(self, rows: np.ndarray) -> np.ndarray:
        """float64 (r,): hand points of the learner of each of ``rows``."""
        points: Float64Array = game.hand_points(self.rules, self.state.take(rows))[
            np.arange(rows.size), self.learner[rows]].astype(np.float64)
        return points

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

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """New deals in every row (the constructor's on the first call); ``seed``
        restarts the seed sequence. ``options`` are not used."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise ValueError(f"seed={seed!r}: pass one integer for the whole batch (row "
                                 f"i's deals derive from (seed, i, episode))")
            self._start(int(seed))
        elif not self._fresh:
            self._new_deals(np.arange(self.num_envs))
        self._fresh = False
        return self._observe(self.state, self.learner), self._info()

    def step(self, actions: Any
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        a = action_ids(actions, self.num_envs, NUM_ACTIONS)
        self._check(a)
        game.step_in_place(self.rules, self.state, a, validate=False)  # the env owns it
        self.state, moves = self._advance(self.state)
        self.num_decisions += moves + self.num_envs
        self._mask = None
        terminated, truncated = self.state.terminated.copy(), self.state.truncated.copy()
        done = terminated | truncated
        rewards = self._shaping_terms(done)
        final: dict[str, Any] = {}
        if done.any():
            rows = np.flatnonzero(done)
            final = self._end_deals(rows, rewards)
            self._new_deals(rows)
        return (self._observe(self.state, self.learner), rewards, terminated, truncated,
                self._info() | final)

    def _end_deals(self, rows: np.ndarray, rewards: np.ndarray) -> dict[str, Any]:
        """Add the deal rewards of the ended ``rows`` to ``rewards``; their final
        observations and infos (``final_obs``, ``final_info``, with ``_`` masks)."""
        ended, seat = self.state.take(rows), self.learner[rows]
        shaped = shape_rewards(self.rules, game.rewards_of(self.rules, ended), ended.winner,
                               self.reward_mode)
        deal_reward = shaped[np.arange(rows.size), seat]
        rewards[rows] += deal_reward - self._reference_reward[rows]
        last = self._observe(ended, seat)
        final_obs = np.full(self.num_envs, None, object)
        for j, i in enumerate(rows):
            final_obs[i] = last[j]
        mask = np.zeros(self.num_envs, bool)
        mask[rows] = True
        info: dict[str, Any] = {}
        for key, values in (("seat", seat), ("deal_reward", deal_reward),
                            ("reference_reward", self._reference_reward[rows]),
                            ("opened", ended.opened[np.arange(rows.size), seat]),
                            ("deal_scores", ended.scores), ("winner", ended.winner)):
            info[key] = np.zeros((self.num_envs, *values.shape[1:]), values.dtype)
            info[key][rows] = values
            info[f"_{key}"] = mask
        for i in rows:  # the hook's entries, as given (object arrays)
            for key, value in self.hook.deal_info(int(i)).items():
                if key not in info:
                    info[key] = np.full(self.num_envs, None, object)
                    info[f"_{key}"] = np.zeros(self.num_envs, bool)
                info[key][i], info[f"_{key}"][i] = value, True
        return {"final_obs": final_obs, "_final_obs": mask, "final_info": info,
                "_final_info": mask}

    def _info(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, bool)
        return {"action_mask": self.action_masks(), "_action_mask": every,
                "seat": self.learner.copy(), "_seat": every}

    def _observe(self, state: State, seats: np.ndarray) -> np.ndarray:
        """The observations of ``seats`` (one per deal of ``state``), with ``critic``
        followed by the critic view."""
        obs = observe(self.rules, state, seats)
        if not self.critic:
            return obs
        return np.concatenate([obs, critic_view(self.rules, state, seats)], axis=1)

    def _check(self, a: np.ndarray) -> None:
        mask = self.action_masks()
        ok = (a >= 0) & (a < NUM_ACTIONS)
        ok[ok] = mask[np.flatnonzero(ok), a[ok]]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            name = (repr(action_to_string(int(a[i]))) if 0 <= a[i] < NUM_ACTIONS
                    else "out of range")
            raise ValueError(f"env {i}: illegal learner action {int(a[i])} ({name}) for seat "
                             f"{int(self.learner[i])}")

    def _advance(self, state: State) -> tuple[State, int]:
        """Play the opponents' moves until every unfinished deal waits for its learner."""
        return play_opponents(self.rules, state, self.learner,
                              lambda sub, rows, slot: self.hook.actions(sub, rows, slot,
                                                                        self._rng),
                              in_place=True)  # the env owns its state

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, 2658): each learner's legal moves (the core's mask)."""
        if self._mask is None:
            self._mask = game.legal_action_mask(self.rules, self.state)
        return self._mask

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
