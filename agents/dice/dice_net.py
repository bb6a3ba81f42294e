"""The long-horizon features of a Pět kostek observation, as a torch features extractor.

Two of a game's rewards come long after the moves that earn them: the upper bonus (35 for
63 points in Ones..Sixes) and the Yahtzee box with its bonuses. The plain observation
holds everything they depend on, but only as one-hot dice, open-box flags and a capped
upper total, from which a network must work out, for example, that two Fives in the Fives
box leave the card five points short of the bonus's pace. ``LongHorizonFeatures`` appends
those facts, computed from the observation alone (so they add no information the seat does
not have), per column of the table:

=====================  =================================================================
``face_counts`` (6)    how many dice show each face, / 5
``upper_needed``       points still missing for the bonus, / 63
``par_surplus``        upper points so far minus 3 x face of every filled upper box, / 30
``bonus_reachable``    1 while five of each open upper face could still reach 63
``upper_open``         open upper boxes, / 6
``boxes_open``         open boxes, / 13
``yahtzee_filled``     1 once the Yahtzee box is filled (the joker rules apply)
=====================  =================================================================

The extractor lives in the checkpoint (``MaskablePPO.load`` rebuilds it), so a trained
model plays from plain observations wherever it is loaded (``ppo:PATH`` of ``zolik dice
eval``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from zolik_env.dice.observe import obs_slices
from zolik_env.dice.rules import (
    NUM_BOXES,
    NUM_DICE,
    NUM_FACES,
    NUM_UPPER,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE,
    DiceRules,
)

_FACE_VALUES = np.arange(1, NUM_UPPER + 1, dtype=np.float32)  # the Ones..Sixes faces


def features_per_column() -> int:
    return NUM_FACES + 6


class LongHorizonFeatures(BaseFeaturesExtractor):
    """The observation followed by the features of the module docstring.

    ``slices`` maps each observation slice name to ``(start, stop)``; ``columns`` is the
    table's number of columns (both from ``extractor_kwargs``)."""

    def __init__(self, observation_space: gymnasium.spaces.Box,
                 slices: dict[str, tuple[int, int]], columns: int) -> None:
        size = int(observation_space.shape[0])
        super().__init__(observation_space, size + columns * features_per_column())
        self.slices = {name: tuple(bounds) for name, bounds in slices.items()}
        self.columns = columns
        self.register_buffer("faces", torch.as_tensor(_FACE_VALUES))

    def _slice(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        start, stop = self.slices[name]
        return obs[:, start:stop]

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        dice = self._slice(obs, "dice").reshape(b, NUM_DICE, NUM_FACES)
        face_counts = dice.sum(dim=1) / NUM_DICE  # (B, 6)
        is_open = self._slice(obs, "open").reshape(b, self.columns, NUM_BOXES)
        upper = self._slice(obs, "upper") * UPPER_BONUS_THRESHOLD  # (B, C), capped at 63
        upper_open = is_open[:, :, :NUM_UPPER]
        filled_par = ((1 - upper_open) * 3 * self.faces).sum(dim=2)
        open_max = (upper_open * 5 * self.faces).sum(dim=2)
        parts = [
            face_counts[:, None, :].expand(b, self.columns, NUM_FACES),
            ((UPPER_BONUS_THRESHOLD - upper).clamp(min=0) / UPPER_BONUS_THRESHOLD)[..., None],
            ((upper - filled_par) / 30)[..., None],
            (upper + open_max >= UPPER_BONUS_THRESHOLD).float()[..., None],
            (upper_open.sum(dim=2) / NUM_UPPER)[..., None],
            (is_open.sum(dim=2) / NUM_BOXES)[..., None],
            (1 - is_open[:, :, YAHTZEE])[..., None],
        ]
        extra = torch.cat(parts, dim=2).reshape(b, -1)
        return torch.cat([obs, extra], dim=1)


def extractor_kwargs(rules: DiceRules) -> dict[str, Any]:
    """``policy_kwargs`` entries that give a MaskablePPO policy the long-horizon features."""
    slices = {name: (start, stop) for name, (start, stop, _) in obs_slices(rules).items()}
    return {"features_extractor_class": LongHorizonFeatures,
            "features_extractor_kwargs": {"slices": slices, "columns": rules.num_columns}}
