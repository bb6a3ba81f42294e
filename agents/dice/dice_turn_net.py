"""A PPO policy for solitaire Pět kostek that plays each turn by lookahead over the dice.

The game splits into two problems of very different kinds. Within a turn the dice are a
known random process: which dice to keep, given what each finished roll would be worth,
is an exact expectation over at most 252 outcomes. Across turns the question is what a
scorecard is worth: how much the open Sixes box, an upper total of 40 or a filled
Yahtzee box will still pay. Only the second needs learning; a plain network has to
learn both, and the first one badly (it reaches 84% of the optimum and stops).

``TurnLookahead`` learns only the second: an MLP ``W`` scores scorecards after a box is
filled (open boxes, capped upper total, whether the Yahtzee box holds 50, plus a few
derived pace features). The value of filling box ``k`` with final roll ``r`` is

    Q(r, k) = points(r, k) + upper bonus if it crosses 63 + Yahtzee bonus + W(card after)

and the turn is played by expectimax over the dice (the rules' probabilities, no solver
table): the best box of every roll, the expected value of every keep over the rerolled
dice, the best keep of every roll with one more roll to come. Every action of the seat
gets a value ``Q(s, a)`` (a reroll: its keep's expected value; a box: ``Q(current roll,
box)``); the policy is ``softmax(beta * Q)`` over the legal actions, ``beta`` learned,
and the critic is ``sum_a pi(a) Q(s, a)``. So PPO's value loss trains ``W`` on the
returns, and its policy loss trains it on the advantages: pure reinforcement learning,
with the optimal solver used only as the yardstick (and, in the tests, to check that the
lookahead is exact: with the solver's own scorecard values in place of ``W`` the action
values are the solver's).

Solitaire ``classic`` table only (one column, three rolls, free order), any joker rule,
with or without the Yahtzee bonus.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.learned.masked_softmax import as_legal, legal_entropy, masked_log_softmax
from zolik_env.dice import DiceRules, combos, obs_slices
from zolik_env.dice.actions import NUM_REROLLS, REROLL_MASKS
from zolik_env.dice.rules import (
    JOKER_VALUES,
    NUM_BOXES,
    NUM_DICE,
    NUM_FACES,
    NUM_UPPER,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    YAHTZEE,
    YAHTZEE_BONUS,
    base_scores,
)

ILLEGAL = -1.0e4  # value of an illegal box (finite: it meets zero probabilities in sums)
_FACES = np.arange(1, NUM_FACES + 1)
_NUM_LOWER = NUM_BOXES - NUM_UPPER
# The cards a turn can leave: an upper box filled with 0..5 dice of its face, a lower box,
# and the Yahtzee box filled with 50 (the bonus's flag turns on).
_CANDIDATE_BOX = np.array([k for k in range(NUM_UPPER) for _ in range(NUM_DICE + 1)]
                          + list(range(NUM_UPPER, NUM_BOXES)) + [YAHTZEE])
_CANDIDATE_ADD = np.array([c * (k + 1) for k in range(NUM_UPPER) for c in range(NUM_DICE + 1)]
                          + [0] * (_NUM_LOWER + 1))
_YAHTZEE_50 = len(_CANDIDATE_BOX) - 1
NUM_CANDIDATES = len(_CANDIDATE_BOX)  # 44
W_INPUTS = NUM_BOXES + 6


def supports(rules: DiceRules) -> bool:
    """Whether the lookahead covers ``rules`` (one column, one seat, three rolls, free order)."""
    return (rules.table == "classic" and rules.num_players == 1 and rules.num_rolls == 3
            and not rules.fixed_order)


def _candidate_of_roll_box(bonus: bool) -> np.ndarray:
    """``(252, 13)``: which candidate card filling box k with roll r leaves."""
    out = np.empty((combos.NUM_ROLLS, NUM_BOXES), np.int64)
    for k in range(NUM_UPPER):
        out[:, k] = k * (NUM_DICE + 1) + combos.ROLLS[:, k]
    out[:, NUM_UPPER:] = NUM_UPPER * (NUM_DICE + 1) + np.arange(_NUM_LOWER)
    if bonus:
        out[combos.ROLLS.max(axis=1) == NUM_DICE, YAHTZEE] = _YAHTZEE_50
    return out


def _reroll_keeps() -> np.ndarray:
    """``(252, 31)``: the keep each reroll action leaves of each roll (sorted dice)."""
    sorted_dice = np.array([np.repeat(_FACES, row) for row in combos.ROLLS.astype(np.int64)])
    kept = np.where(REROLL_MASKS[None], 0, sorted_dice[:, None, :])  # (252, 31, 5)
    counts = (kept[..., None] == _FACES).sum(axis=2)  # (252, 31, 6)
    return combos.keep_index(counts.reshape(-1, NUM_FACES)).reshape(combos.NUM_ROLLS, NUM_REROLLS)


class TurnLookahead(torch.nn.Module):
    """``Q(s, a)`` ``(B, 44)`` in reward units (points x ``reward_scale``) for raw
    observations, and the legal actions it sees; see the module docstring."""

    def __init__(self, rules: DiceRules, reward_scale: float, hidden: tuple[int, ...]) -> None:
        super().__init__()
        if not supports(rules):
            raise ValueError("the turn lookahead plays solitaire classic with three rolls "
                             "and free order only")
        self.joker, self.bonus, self.scale = rules.joker, rules.yahtzee_bonus, reward_scale
        self.slices = {name: (start, stop) for name, (start, stop, _) in obs_slices(rules).items()}
        layers: list[torch.nn.Module] = []
        width = W_INPUTS
        for size in hidden:
            layers += [torch.nn.Linear(width, size), torch.nn.ReLU()]
            width = size
        last = torch.nn.Linear(width, 1)
        torch.nn.init.zeros_(last.weight)
        torch.nn.init.zeros_(last.bias)
        self.card_value = torch.nn.Sequential(*layers, last)
        self._constants()

    def _constants(self) -> None:
        def buffer(name: str, array: np.ndarray, dtype: torch.dtype = torch.float32) -> None:
            self.register_buffer(name, torch.as_tensor(np.ascontiguousarray(array), dtype=dtype),
                                 persistent=False)

        # roll id of a code (negative for keeps that are no roll: never looked up)
        buffer("roll_of_code", combos.KEEP_OF_CODE - combos.ROLL_OFFSET, torch.long)
        buffer("powers", combos.CODE_POWERS, torch.long)
        points = base_scores(combos.ROLLS)
        buffer("points", points)  # (252, 13)
        buffer("candidate", _candidate_of_roll_box(self.bonus), torch.long)
        buffer("roll_ids", np.arange(combos.NUM_ROLLS), torch.long)
        buffer("cand_box", np.eye(NUM_BOXES)[_CANDIDATE_BOX])  # (44, 13)
        buffer("cand_add", _CANDIDATE_ADD)
        buffer("cand_flag", np.arange(NUM_CANDIDATES) == _YAHTZEE_50)
        buffer("faces", _FACES)
        buffer("transition", combos.TRANSITION.T)  # (252, 210)
        buffer("parents", combos.PARENTS, torch.long)
        buffer("reroll_keeps", _reroll_keeps(), torch.long)
        yahtzee_rows = np.flatnonzero(combos.ROLLS.max(axis=1) == NUM_DICE)  # by face
        buffer("yahtzee_rows", yahtzee_rows, torch.long)
        joker = np.zeros((NUM_FACES, NUM_BOXES))
        for box, value in JOKER_VALUES.items():
            joker[:, box] = value - points[yahtzee_rows, box]
        buffer("joker_raise", joker)  # (6, 13)
        buffer("own_face", np.eye(NUM_FACES, NUM_BOXES), torch.bool)  # (6, 13)
        buffer("upper_box", np.arange(NUM_BOXES) < NUM_UPPER, torch.bool)

    def _part(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        start, stop = self.slices[name]
        return obs[:, start:stop]

    def card_values(self, is_open: torch.Tensor, upper: torch.Tensor,
                    flag: torch.Tensor) -> torch.Tensor:
        """``(B, 44)``: ``W`` of each card a turn can leave (0 for a full card)."""
        open_next = is_open[:, None, :] * (1 - self.cand_box)  # (B, 44, 13)
        upper_next = (upper[:, None] + self.cand_add).clamp(max=UPPER_BONUS_THRESHOLD)
        flag_next = torch.maximum(flag[:, None], self.cand_flag.float() * float(self.bonus))
        upper_open = open_next[..., :NUM_UPPER]
        par = ((1 - upper_open) * 3 * self.faces).sum(2)
        reachable = upper_next + (upper_open * NUM_DICE * self.faces).sum(2)
        boxes_left = open_next.sum(2)
        x = torch.cat([open_next,
                       torch.stack([upper_next / UPPER_BONUS_THRESHOLD, flag_next,
                                    (UPPER_BONUS_THRESHOLD - upper_next) / UPPER_BONUS_THRESHOLD,
                                    (upper_next - par) / 30,
                                    (reachable >= UPPER_BONUS_THRESHOLD).float(),
                                    boxes_left / NUM_BOXES], dim=2)], dim=2)
        return self.card_value(x).squeeze(2) * (boxes_left > 0)

    def after_values(self, is_open: torch.Tensor, upper: torch.Tensor,
                     flag: torch.Tensor) -> torch.Tensor:
        """``(B, 44)``: what each card a turn can leave is worth beyond the box's points:
        ``W`` plus the upper bonus when the box crosses 63 (reward units)."""
        crossed = (upper[:, None] < UPPER_BONUS_THRESHOLD) & (
            upper[:, None] + self.cand_add >= UPPER_BONUS_THRESHOLD)  # (B, 44)
        return self.card_values(is_open, upper, flag) + UPPER_BONUS * self.scale * crossed

    def final_values(self, is_open: torch.Tensor, flag: torch.Tensor,
                     after: torch.Tensor) -> torch.Tensor:
        """``(B, 252, 13)``: value of filling each box with each final roll, ``ILLEGAL``
        where the rules forbid it (reward units); ``after`` from ``after_values``."""
        b = after.shape[0]
        by_roll = after.index_select(1, self.candidate.reshape(-1)).reshape(b, *self.points.shape)
        value = (by_roll + self.points * self.scale).masked_fill(
            is_open[:, None, :] < 0.5, ILLEGAL)
        if self.joker == "none" and not self.bonus:
            return value
        return value.index_copy(1, self.yahtzee_rows,
                                self._yahtzee_rolls(value[:, self.yahtzee_rows], is_open, flag))

    def _yahtzee_rolls(self, rows: torch.Tensor, is_open: torch.Tensor,
                       flag: torch.Tensor) -> torch.Tensor:
        """The six Yahtzee rolls' values ``(B, 6, 13)`` with the Yahtzee bonus, the joker's
        values and (forced) placement."""
        if self.bonus:
            rows = rows + YAHTZEE_BONUS * self.scale * flag[:, None, None]
        if self.joker == "none":
            return rows
        is_joker = is_open[:, YAHTZEE] < 0.5  # (B,)
        match_filled = is_open[:, :NUM_UPPER] < 0.5  # (B, 6): face f's box is filled
        full_values = is_joker[:, None] & match_filled
        rows = rows + (full_values[..., None] * self.joker_raise) * self.scale
        if self.joker != "forced":
            return rows
        only_match = (is_joker[:, None] & ~match_filled)[..., None]  # (B, 6, 1)
        lower_open = (is_open[:, NUM_UPPER:] > 0.5).any(1)  # (B,)
        only_lower = (full_values & lower_open[:, None])[..., None]
        forbidden = (only_match & ~self.own_face) | (only_lower & self.upper_box)
        return rows.masked_fill(forbidden, ILLEGAL)

    def _keep_values(self, roll_values: torch.Tensor) -> torch.Tensor:
        """``(B, 462)``: expected ``roll_values`` ``(B, 252)`` after holding each keep."""
        return torch.cat([roll_values @ self.transition, roll_values], dim=1)

    @torch.no_grad()
    def _best_subkeep(self, keep_values: torch.Tensor) -> torch.Tensor:
        """``(B, 252)``: the keep id of each roll's best keep (itself included)."""
        b = keep_values.shape[0]
        values, ids = [keep_values[:, :1]], [torch.zeros_like(keep_values[:, :1], dtype=torch.long)]
        start = 1
        for size in range(1, NUM_DICE + 1):
            stop = start + combos.SIZE_STARTS[size]
            parents = self.parents[start:stop]
            flat = parents.reshape(-1)
            best, which = torch.cat(values, dim=1).index_select(1, flat).reshape(
                b, -1, NUM_FACES).max(dim=2)
            best_id = torch.cat(ids, dim=1).index_select(1, flat).reshape(b, -1, NUM_FACES).gather(
                2, which[..., None]).squeeze(2)
            own = keep_values[:, start:stop]
            mine = own >= best
            values.append(torch.where(mine, own, best))
            own_id = torch.arange(start, stop, device=own.device).expand(b, -1)
            ids.append(torch.where(mine, own_id, best_id))
            start = stop
        return ids[-1]

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(Q (B, 44), legal (B, 44) bool)`` of raw observations.

        The ``(B, 252, 13)`` table of final values is built without autograd: a max passes
        its gradient to the entry it picks, so each roll's best box (and each roll's best
        keep) is found first and only those entries of ``after`` are gathered with their
        gradient: the same gradient as through the whole table, for a fraction of the
        memory and time."""
        b = obs.shape[0]
        counts = self._part(obs, "dice").reshape(b, NUM_DICE, NUM_FACES).sum(1).round().long()
        roll = self.roll_of_code[counts @ self.powers]
        rolls_left = self._part(obs, "rolls_left").argmax(1)
        is_open = self._part(obs, "open")
        upper = torch.round(self._part(obs, "upper")[:, 0] * UPPER_BONUS_THRESHOLD)
        flag = (self._part(obs, "yahtzee_50")[:, 0] > 0.5).float() * float(self.bonus)
        after = self.after_values(is_open, upper, flag)  # (B, 44)
        fixed = after.detach()
        with torch.no_grad():
            final = self.final_values(is_open, flag, fixed)  # (B, 252, 13)
            best_box = final.argmax(2)  # (B, 252)
            chosen = self.candidate[self.roll_ids, best_box]  # (B, 252) candidate ids
            last_fixed = final.gather(2, best_box[..., None]).squeeze(2) - fixed.gather(1, chosen)
            now = self.candidate[roll]  # (B, 13)
            boxes_fixed = final[torch.arange(b, device=obs.device), roll] - fixed.gather(1, now)
        last_roll = last_fixed + after.gather(1, chosen)
        boxes = boxes_fixed + after.gather(1, now)
        keeps = self.reroll_keeps[roll]  # (B, 31)
        one_left = self._keep_values(last_roll)
        rerolls = one_left.gather(1, keeps)
        if bool((rolls_left == 2).any()):
            after_reroll = one_left.gather(1, self._best_subkeep(one_left))
            two = self._keep_values(after_reroll)
            rerolls = torch.where((rolls_left == 2)[:, None], two.gather(1, keeps), rerolls)
        legal = torch.cat([(rolls_left > 0)[:, None].expand(b, NUM_REROLLS),
                           boxes > ILLEGAL / 2], dim=1)
        q = torch.cat([rerolls, boxes], dim=1)
        return torch.where(legal, q, torch.zeros_like(q)), legal


class TurnLookaheadPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose logits are ``beta * Q`` of ``TurnLookahead`` and whose
    value is ``sum_a pi(a) Q(s, a)`` (``pi`` held fixed). ``rules`` is a ``DiceRules``
    field dict; ``hidden`` the card MLP's widths; ``beta`` the starting inverse
    temperature (per reward unit). Saved and loaded like any MaskablePPO policy."""

    def __init__(self, *args: Any, rules: dict[str, Any], reward_scale: float,
                 hidden: tuple[int, ...] = (64, 64), beta: float = 20.0, **kwargs: Any) -> None:
        self.turn_rules, self.reward_scale = dict(rules), float(reward_scale)
        self.hidden, self.beta0 = tuple(hidden), float(beta)
        kwargs["net_arch"] = []
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.turn = TurnLookahead(DiceRules(**self.turn_rules), self.reward_scale, self.hidden)
        self.log_beta = torch.nn.Parameter(torch.tensor(float(np.log(self.beta0))))
        # the optimizer must also see the lookahead's weights; SB3's own heads go unused
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(rules=self.turn_rules, reward_scale=self.reward_scale, hidden=self.hidden,
                    beta=self.beta0)
        return data

    def _heads(self, obs: torch.Tensor, action_masks: Any = None,
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(log-probabilities, legal, value) of raw observations."""
        q, legal = self.turn(obs.float())
        if action_masks is not None:
            legal = as_legal(action_masks, q)
        log_probs = masked_log_softmax(self.log_beta.exp() * q, legal)
        value = (log_probs.detach().exp() * q.masked_fill(~legal, 0.0)).sum(1, keepdim=True)
        return log_probs, legal, value

    def forward(self, obs: torch.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        log_probs, _, value = self._heads(obs, action_masks)
        if deterministic:
            actions = log_probs.argmax(1)
        else:
            actions = torch.multinomial(log_probs.exp(), 1).squeeze(1)
        return actions, value, log_probs.gather(1, actions[:, None]).squeeze(1)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None,
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        log_probs, legal, value = self._heads(obs, action_masks)
        log_prob = log_probs.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        return value, log_prob, legal_entropy(log_probs, legal)

    def get_distribution(self, obs: torch.Tensor,
                         action_masks: np.ndarray | None = None) -> MaskableDistribution:
        q, legal = self.turn(obs.float())
        distribution = self.action_dist.proba_distribution(
            action_logits=(self.log_beta.exp() * q).masked_fill(~legal, ILLEGAL))
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def predict_values(self, obs: torch.Tensor) -> torch.Tensor:
        return self._heads(obs)[2]
