"""Agents for solitaire Pět kostek: optimal (plays the solver's tables), random, PPO.

Every agent acts from the observation and the action mask only (the public
``zolik_env.dice`` API), with ``act(obs, mask, rng) -> int`` for one game and
``act_batch(obs, mask, rng) -> (B,) int64`` for a batch.
"""

from __future__ import annotations

import numpy as np

from zolik_env.dice import SCORE_BASE, DiceRules, combos, decode_observation, solver
from zolik_env.dice.actions import REROLL_MASKS
from zolik_env.dice.rules import NUM_FACES

_CHUNK = 1024


class RandomAgent:
    """Uniform over the legal actions (rerolls included), from the given generator."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(self.act_batch(obs[None], mask[None], rng)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        noise = rng.random(mask.shape)
        return np.argmax(np.where(mask, noise, -1.0), axis=1)


class OptimalAgent:
    """Plays the exact solver's policy for solitaire ``classic``.

    Cases, for the dice and scorecard decoded from the observation:
      - no rerolls left: fill the legal box with the highest value now + expected rest;
      - rerolls left: take the action (keep some dice and reroll the rest, or fill a box
        now) with the highest expected final score under optimal play afterwards;
      - ties go to filling a box, then to the lowest action id.
    """

    def __init__(self, rules: DiceRules | None = None) -> None:
        self.rules = rules or DiceRules()
        r = self.rules
        if r.table != "classic" or r.num_players != 1 or r.num_rolls != 3:
            raise ValueError("the solver covers solitaire classic with three rolls only")
        self.table = solver.value_table(
            self.rules.joker, self.rules.yahtzee_bonus, self.rules.fixed_order
        ).reshape(-1)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(self.act_batch(obs[None], mask[None], rng)[0])

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        out = np.empty(obs.shape[0], np.int64)
        for start in range(0, obs.shape[0], _CHUNK):
            rows = slice(start, start + _CHUNK)
            out[rows] = np.argmax(self.action_values(obs[rows], mask[rows]), axis=1)
        return out

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Expected final-score-to-come ``(B, A)`` of each action (-inf where illegal)."""
        facts = decode_observation(self.rules, obs)
        flag = facts["yahtzee_50"][:, 0] & self.rules.yahtzee_bonus
        states = np.stack([facts["filled_mask"], facts["upper"][:, 0], flag], axis=1)
        values = solver.box_values(
            self.table, states, self.rules.joker, self.rules.yahtzee_bonus,
            self.rules.fixed_order,
        )  # (13, 252, B)  # fmt: skip
        counts = (facts["dice"][:, :, None] == np.arange(1, NUM_FACES + 1)).sum(axis=1)
        roll = combos.KEEP_OF_CODE[counts @ combos.CODE_POWERS] - combos.ROLL_OFFSET
        b = obs.shape[0]
        out = np.full(mask.shape, -np.inf)
        out[:, SCORE_BASE:] = values[:, roll, np.arange(b)].T + 1e-9  # ties: fill a box
        if (facts["rolls_left"] > 0).any():
            final = np.maximum(values.max(axis=0), -1e9)  # finite for finished games too
            keep_values = self._keep_values(final, facts["rolls_left"])
            kept = counts[:, None, :] - _rerolled_counts(facts["dice"])  # (B, 31, 6)
            keeps = combos.KEEP_OF_CODE[kept @ combos.CODE_POWERS]  # (B, 31)
            out[:, :SCORE_BASE] = np.take_along_axis(keep_values.T, keeps, axis=1)
        return np.where(mask, out, -np.inf)

    @staticmethod
    def _keep_values(final: np.ndarray, rolls_left: np.ndarray) -> np.ndarray:
        """``(462, B)`` value of each keep with ``rolls_left`` rolls left including it."""
        after_last = combos.keep_values(final)  # the reroll is the last roll
        if not (rolls_left >= 2).any():
            return after_last
        v2 = combos.best_subkeep(after_last)[combos.ROLL_OFFSET :]
        after_two = combos.keep_values(v2)  # one more roll after this reroll
        return np.where(rolls_left[None, :] >= 2, after_two, after_last)


def _rerolled_counts(dice: np.ndarray) -> np.ndarray:
    """``(B, 31, 6)`` face counts of the dice each reroll action rerolls."""
    faces = dice[:, None, :] * REROLL_MASKS[None, :, :]  # 0 where kept
    return (faces[:, :, :, None] == np.arange(1, NUM_FACES + 1)).sum(axis=2)


class PPOAgent:
    """Greedy (deterministic) MaskablePPO policy from a checkpoint: ``path`` is a ``.zip``
    (the suffix may be left off) or a run dir (its ``final.zip``, else its newest
    ``checkpoints/step_*.zip``), as for the Žolík ``ppo:PATH`` agent. No sidecar is needed:
    the model plays the rules it is given."""

    def __init__(self, path: str) -> None:
        from agents.learned.legacy import load_model
        from agents.learned.ppo import resolve_checkpoint

        self.path = resolve_checkpoint(path)
        self.model = load_model(self.path, device="cpu")

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(self.act_batch(obs[None], mask[None], rng)[0])

    def act_batch(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        actions, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        return np.asarray(actions, np.int64)
