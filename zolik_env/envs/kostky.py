"""Pět kostek solitaire as a Gymnasium environment (``zolik/Kostky-v0``).

Gymnasium
---------
    import gymnasium as gym
    import zolik_env  # registers the ids
    env = gym.make("zolik/Kostky-v0", joker="forced")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        env.action_space.sample(mask=info["action_mask"]))

One game of solitaire ``classic`` (or ``triple``) Pět kostek per episode (docs/rules-spec.md §5).
Options: ``num_players`` (1 only: several seats are ``kostky_v0``), ``table``
(``classic``/``triple``), ``joker`` (``none``/``forced``/``free``), ``yahtzee_bonus``,
``fixed_order``, ``illegal_reward``, ``render_mode`` (``"ansi"`` text, ``"rgb_array"`` a
``uint8 (H, W, 3)`` image of the dice and scorecard).

Observation: ``Box(0, 20, (OBS,), float32)``, the flat vector of
``zolik_env.dice.observe`` (slices ``dice``, ``rolls_left``, ``open``, ``values``,
``upper``, ``yahtzee_50``, ``bonus_now``, ``scores``; 63 floats on ``classic``).

Actions: ``Discrete(31 + NB)``: ``0..30`` reroll the dice of bitmask ``a + 1`` (sorted dice),
``31 + c * 13 + k`` fill box ``k`` of column ``c``. ``action_masks()`` and
``info["action_mask"]`` give the legal ones as ``int8`` 0/1 (all 0 once the game is over),
the dtype ``action_space.sample(mask=...)`` requires.

Rewards: the points each action earns (box value x column factor, upper bonus when a
column reaches 63, +100 Yahtzee bonuses); an episode's return is the final score. An
illegal action ends the episode with ``illegal_reward`` (default -1) and
``info["illegal_action"] = True``; the game is not changed.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from zolik_env.dice import DiceRules, game, num_actions, observe, totals
from zolik_env.dice.render import render_text
from zolik_env.envs.checks import action_id
from zolik_env.envs.kostky_common import observation_space
from zolik_env.envs.kostky_image import dice_image


class KostkyEnv(gymnasium.Env[np.ndarray, np.int64]):
    # gymnasium.Env declares metadata as an instance attribute, so no ClassVar here
    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        table: str = "classic",
        joker: str = "none",
        yahtzee_bonus: bool = True,
        fixed_order: bool = False,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        *,
        num_players: int = 1,
    ) -> None:
        """Arguments as in the module docstring; ``num_players`` must be 1 (solitaire:
        several players are ``kostky_v0``)."""
        if num_players != 1:
            raise ValueError(f"num_players={num_players!r}: zolik/Kostky-v0 is solitaire; "
                             "play several seats with zolik_env.kostky_v0")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} unknown: choose from "
                             f"{self.metadata['render_modes']}")
        self.rules = DiceRules(
            table=table,  # type: ignore[arg-type]  # a str; DiceRules checks the name
            joker=joker,  # type: ignore[arg-type]  # a str; DiceRules checks the name
            yahtzee_bonus=yahtzee_bonus,
            fixed_order=fixed_order,
        )
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.observation_space = observation_space(self.rules)
        self.action_space = gymnasium.spaces.Discrete(num_actions(self.rules))
        self.state = game.init(self.rules, [0])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63 - 1))
        self.state = game.init(self.rules, [game_seed])
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        mask = self.action_masks()
        action = action_id(action, mask.size)
        if self.state.done[0]:
            raise ValueError("the game is over: call reset() before step()")
        if mask[action] != 1:
            info = self._info() | {"illegal_action": True}
            return self._obs(), float(self.illegal_reward), True, False, info
        self.state, out = game.step(self.rules, self.state, np.array([action]), validate=False)
        return self._obs(), float(out.rewards[0, 0]), bool(self.state.done[0]), False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions ``(A,) int8``, 1 where legal (for sb3-contrib ``MaskablePPO`` and
        ``action_space.sample(mask=...)``)."""
        mask: np.ndarray = game.legal_action_mask(self.rules, self.state)[0].astype(np.int8)
        return mask

    # gymnasium 1.2 types render's frames as an unbound TypeVar; later releases do not
    def render(self) -> str | np.ndarray | None:  # type: ignore[override, unused-ignore]
        if self.render_mode == "rgb_array":
            return dice_image(self.rules, self.state)
        if self.render_mode != "ansi":
            return None
        return render_text(self.rules, self.state)

    def _obs(self) -> np.ndarray:
        obs: np.ndarray = observe(self.rules, self.state, 0)[0]
        return obs

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks(),
            "score": int(totals(self.rules, self.state)[0, 0]),
        }
