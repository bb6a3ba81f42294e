"""Žolík for one learner against fixed opponents, as a Gymnasium env (``zolik/Zolik-v0``).

Gymnasium
---------
    import gymnasium as gym
    import zolik_env  # registers the ids
    env = gym.make("zolik/Zolik-v0", rules="cz", num_players=2, opponents=["random"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        env.action_space.sample(mask=info["action_mask"]))

One deal per episode. The learner sits in a seat drawn per episode from the reset seed
(or ``learner_seat``); the other seats are played by ``opponents``: any agent spec of
the command line (``"random"``, ``"greedy"``, ``"planner"``, ``"pretrained:cz_2p"``,
``"ppo:PATH"``, ``"mypkg.mod:factory"``) or objects with ``act_batch``/``act``; one for
all or a list of ``num_players - 1``, seated after the learner in order.
Opponents move inside ``reset`` and ``step`` until the learner is to act again.

Observation and actions are those of ``zolik_v0`` (``zolik_env.envs.zolik_aec``): an
int16 Box of the learner's view and ``Discrete(2658)``. ``action_masks()`` and
``info["action_mask"]`` (``int8`` 0/1, the dtype ``action_space.sample(mask=...)``
requires) give the legal moves, for sb3-contrib's ``MaskablePPO``.
``render_mode``: ``"ansi"``/``"human"`` card notation, ``"rgb_array"`` a
``uint8 (H, W, 3)`` image of the table (``zolik_env.envs.zolik_image``); both show only
the learner's hand.
``info["seat"]`` is the learner's seat; after the deal ``info`` has ``deal_scores`` and
``winner``.

Rewards: the learner seat's ``reward`` mode entry (``"score"``: its score minus the mean
over seats, / 100; ``"win_loss"``: +1 / -1/(n-1) / 0), on the step that ends the deal.
``truncated`` when the deal is cut off (``max_stock_rebuilds``, ``max_turns``).

Bad input: an id outside ``Discrete(2658)`` raises ``ValueError``; a legal-range id the
mask forbids ends the episode with ``illegal_reward`` (default -1),
``info["illegal_action"] = True`` and ``info["illegal_move"]`` naming it (the deal is
unchanged). A deal that ends before the learner's first move is redealt.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from zolik_env.envs.checks import action_id
from zolik_env.envs.zolik_common import (
    advance,
    check_reward_mode,
    make_rules,
    observation_space,
    resolve_opponents,
    shape_rewards,
)
from zolik_env.envs.zolik_image import table_image
from zolik_env.rummy import actions, game, options, render
from zolik_env.rummy.observe import observe


class ZolikEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learner seat against ``opponents``; see the module docstring."""

    # gymnasium.Env declares metadata as an instance attribute, so no ClassVar here
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, rules: str | options.RuleSet = "cz", num_players: int | None = None,
                 opponents: Any = None, rule_options: dict[str, Any] | None = None,
                 reward: str = "score", learner_seat: int | None = None,
                 illegal_reward: float = -1.0, render_mode: str | None = None) -> None:
        self.rules = make_rules(rules, num_players, rule_options)
        self.reward_mode = check_reward_mode(reward)
        self.opponents = resolve_opponents(opponents, self.rules)
        if learner_seat is not None and not 0 <= learner_seat < self.rules.num_players:
            raise ValueError(f"learner_seat={learner_seat!r} is not a seat in "
                             f"0..{self.rules.num_players - 1}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} unknown: choose from "
                             f"{self.metadata['render_modes']}")
        self.fixed_seat, self.illegal_reward = learner_seat, illegal_reward
        self.render_mode = render_mode
        self.observation_space = observation_space(self.rules)
        self.action_space = gymnasium.spaces.Discrete(actions.NUM_ACTIONS)
        self.seat = 0 if learner_seat is None else learner_seat
        self._opp_rng = np.random.default_rng(0)
        self.state = game.init(self.rules, [0])
        self._over = True
        self._mask = np.zeros(actions.NUM_ACTIONS, np.int8)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        n = self.rules.num_players
        self.seat = int(self.np_random.integers(n)) if self.fixed_seat is None else self.fixed_seat
        self._opp_rng = np.random.default_rng(int(self.np_random.integers(2**63 - 1)))
        learner = np.array([self.seat])
        while True:  # a deal the opponents finish before the learner's first move is redealt
            state = game.init(self.rules, [int(self.np_random.integers(2**63 - 1))])
            self.state, _ = advance(self.rules, state, learner, self.opponents, self._opp_rng)
            if not self.state.done[0]:
                break
        self._over = False
        self._mask = game.legal_action_mask(self.rules, self.state)[0].astype(np.int8)
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        a = action_id(action, actions.NUM_ACTIONS)
        if self._over:
            raise ValueError("the deal is over: call reset() before step()")
        if not self._mask[a]:
            self._over = True
            self._mask = np.zeros(actions.NUM_ACTIONS, np.int8)
            info = self._info() | {"illegal_action": True, "illegal_move": (
                f"{actions.action_to_string(a)} (action {a}) for seat {self.seat}")}
            return self._obs(), float(self.illegal_reward), True, False, info
        state, _ = game.step(self.rules, self.state, [a], validate=False)
        self.state, _ = advance(self.rules, state, np.array([self.seat]), self.opponents,
                                self._opp_rng)
        reward = 0.0
        if self.state.done[0]:
            self._over = True
            self._mask = np.zeros(actions.NUM_ACTIONS, np.int8)
            reward = float(shape_rewards(self.rules, game.rewards_of(self.rules, self.state),
                                         self.state.winner, self.reward_mode)[0, self.seat])
        else:
            self._mask = game.legal_action_mask(self.rules, self.state)[0].astype(np.int8)
        if self.render_mode == "human":
            self.render()
        return (self._obs(), reward, bool(self.state.terminated[0]),
                bool(self.state.truncated[0]), self._info())

    def action_masks(self) -> np.ndarray:
        """int8 (2658,): 1 for the learner's legal moves (all 0 once the deal is over)."""
        return self._mask.copy()

    # gymnasium 1.2 types render's frames as an unbound TypeVar; later releases do not
    def render(self) -> str | np.ndarray | None:  # type: ignore[override, unused-ignore]
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.render_mode == "rgb_array":
            return table_image(self.rules, self.state, self.seat)
        text = render.render(self.rules, self.state, 0, self.seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def _obs(self) -> np.ndarray:
        obs: np.ndarray = observe(self.rules, self.state, self.seat)[0]
        return obs

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat}
        if self.state.done[0]:
            info |= {"deal_scores": self.state.scores[0].tolist(),
                     "winner": int(self.state.winner[0])}
        return info
