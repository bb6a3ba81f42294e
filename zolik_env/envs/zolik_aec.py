"""Žolík for 2-4 players as a PettingZoo AEC environment (``zolik_v0``).

PettingZoo
----------
    from zolik_env import zolik_v0
    env = zolik_v0.env(rules="cz", num_players=2)
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(
            obs["action_mask"])
        env.step(action)

Arguments: ``rules`` (preset ``cz``/``sk``/``jolly``), ``num_players`` (2-4),
``rule_options`` (dict of ``rules.preset`` keywords, e.g. ``{"opening_points": 51}``),
``reward`` (``"score"`` or ``"win_loss"``), ``match`` (play deals until
``scoring.is_match_over``), ``render_mode`` (``"ansi"``/``"human"`` card notation,
``"rgb_array"`` a ``uint8 (H, W, 3)`` image of the table, ``zolik_env.envs.zolik_image``)
and ``render_seat`` (whose hand is drawn: the agent to act by default, ``"all"`` for every
hand; other hands are face down). ``reset(seed)`` redeals from the seed; rules and
rewards never change on reset.

State (centralised critics): ``state()`` is ``observe(..., privileged=True)`` from seat 0,
the observation layout plus ``all_hands`` (P x 53) and ``stock_order`` (112, -1 past the
stock), in ``state_space`` (int16 Box, 1,353 values for 2 players).

Agents ``player_0 .. player_{n-1}`` sit in seats 0..n-1; the agent to act acts until its
turn ends (draw, any melds and lay-offs, a discard), so one agent often steps many times
in a row. A single deal starts with ``player_0``; in a match the starting seat rotates
(``starting_seat_rotates``).

Observation: ``{"observation": Box(int16, (OBS,)), "action_mask": Box(0, 1, (2658,), int8)}``.
The vector is ``zolik_env.rummy.observe.observe`` from the agent's own seat; seat axes
start with the agent itself (1,135 values for 2 players, +57 per extra seat):

| slice | shape | content |
|---|---|---|
| ``hand`` | 53 | own cards by kind (``13 * suit + rank``, suits S H D C, joker 52) |
| ``meld_kind``, ``meld_key`` | 36, 36 | 0 empty / 1 run / 2 set; run suit or set rank |
| ``meld_cells`` | 36 x 14 | 0 empty, 1 natural, 2 joker (the cell is the joker's identity) |
| ``meld_new`` | 36 | laid or changed this turn |
| ``table_counts`` | 53 | cards on the table by kind |
| ``discard_newest`` | 24 | newest discards first, -1 where none |
| ``discard_counts``, ``discard_size`` | 53, 1 | the whole discard pile |
| ``bottom_card`` | 53 | sk's face-up bottom card |
| ``stock_size`` | 1 | |
| ``hand_sizes``, ``opened`` | P, P | per seat |
| ``known_taken`` | P x 53 | discards each seat took and has not laid again |
| ``unseen`` | 53 | cards this seat cannot see (other hands and the stock) |
| ``to_act``, ``phase``, ``round``, ``melding_allowed`` | P, 3, 1, 1 | |
| ``turn_flags`` | 5 | took discard/bottom, laid, undone, opened before, jokers to re-lay |
| ``must_use``, ``taken_unlaid`` | 53, 53 | cz/sk taken discard to lay; not discardable |
| ``opening_points``, ``rebuilds``, ``scores`` | 1, 1, P | scores as the preset writes them |

The mask is all zeros for agents whose turn it is not and once the deal is over.

Actions: ``Discrete(2658)`` (``zolik_env.rummy.actions``; ``action_to_string`` names them):

| ids | move |
|---|---|
| 0 | ``draw stock`` |
| 1-24 | ``take discard n``: the newest n discards |
| 25 | ``take bottom`` (sk) |
| 26-515 | ``meld 5H JK 7H``: one of 490 meld patterns from hand |
| 516-2387 | ``layoff 8H on m``: natural on meld slot m (or a joker swap) |
| 2388-2531 | ``layoff AH on m high`` |
| 2532-2603 | ``layoff JK on m low/high`` |
| 2604 | ``undo``: take back this turn's melds and pick-ups |
| 2605-2657 | ``discard KS``: ends the turn |

Rewards, on the step that ends a deal (0 otherwise), from the deal scores ``s`` oriented
higher-is-better (cz penalties negated); each agent gets its own seat's entry:

| ``reward`` | value for seat p | sum |
|---|---|---|
| ``"score"`` (default) | ``(s[p] - mean(s)) / 100`` | 0 |
| ``"win_loss"`` | +1 if p went out, ``-1/(n-1)`` otherwise; 0 for all without a winner | 0 |

Ends: ``terminations`` when a seat goes out or the stock cannot be rebuilt;
``truncations`` when the deal is cut off (``max_stock_rebuilds``, ``max_turns``). In a
match every deal pays its rewards; the episode terminates when the match is over.
``infos`` carry ``deal_scores`` (as the preset writes them) and ``winner`` after a deal.

Illegal moves: ``env()`` follows PettingZoo's ``TerminateIllegalWrapper``: a move outside
the mask ends the game with -1 for the mover and 0 for the others (all agents
terminated and truncated); an id outside ``Discrete(2658)`` fails
``AssertOutOfBoundsWrapper``. ``raw_env`` raises ``ValueError`` naming the move and agent.
Every episode is recorded (``env.unwrapped.recorder``, see ``zolik_env.envs.replay``).
``env.unwrapped.core_state`` is a copy of the core's batch-of-one ``State`` (``state()`` is
PettingZoo's global state).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from zolik_env.envs.aec_base import MaskedAECEnv, after_end, wrap
from zolik_env.envs.checks import action_id
from zolik_env.envs.replay import Recorder
from zolik_env.envs.zolik_common import (
    check_reward_mode,
    make_rules,
    observation_space,
    shape_rewards,
)
from zolik_env.envs.zolik_image import table_image
from zolik_env.rummy import actions, game, options, render, scoring
from zolik_env.rummy.observe import observe
from zolik_env.rummy.state import State


def env(rules: str | options.RuleSet = "cz", num_players: int | None = None,
        rule_options: dict[str, Any] | None = None, reward: str = "score",
        match: bool = False, render_mode: str | None = None,
        render_seat: int | str | None = None) -> AECEnv:
    """Žolík for 2-4 agents, wrapped: TerminateIllegal(-1) -> AssertOutOfBounds ->
    OrderEnforcing around ``raw_env``.

    Args:
        rules: preset ``"cz"``, ``"sk"`` or ``"jolly"``, or a ``RuleSet``.
        num_players: 2 to 4 (default 2, or the ``RuleSet``'s).
        rule_options: ``rules.preset`` keywords, e.g. ``{"opening_points": 51}``.
        reward: ``"score"`` (zero-sum deal score / 100) or ``"win_loss"``.
        match: play deals until ``scoring.is_match_over`` instead of one deal.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        render_seat: whose hand ``render`` shows: a seat, ``"all"``, or ``None`` for
            the agent to act.
    """
    return wrap(raw_env(rules, num_players, rule_options, reward, match, render_mode,
                        render_seat))


class raw_env(MaskedAECEnv, EzPickle):  # PettingZoo naming
    """Žolík without the standard wrappers: an illegal move raises ``ValueError``.
    Arguments as ``env``; ``state()`` is the privileged view (``state_space``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "zolik_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, rules: str | options.RuleSet = "cz", num_players: int | None = None,
                 rule_options: dict[str, Any] | None = None, reward: str = "score",
                 match: bool = False, render_mode: str | None = None,
                 render_seat: int | str | None = None) -> None:
        EzPickle.__init__(self, rules, num_players, rule_options, reward, match, render_mode,
                          render_seat)
        super().__init__()
        self.rules = make_rules(rules, num_players, rule_options)
        self.reward_mode = check_reward_mode(reward)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} unknown: choose from "
                             f"{self.metadata['render_modes']}")
        seats = range(self.rules.num_players)
        if render_seat not in (None, "all") and (isinstance(render_seat, bool) or
                                                 render_seat not in seats):
            raise ValueError(f"render_seat={render_seat!r}: choose a seat in 0..{len(seats) - 1}, "
                             f"'all' or None")
        self.match, self.render_mode, self.render_seat = match, render_mode, render_seat
        self._set_spaces(self.rules.num_players, observation_space(self.rules),
                         actions.NUM_ACTIONS)
        self.state_space = observation_space(self.rules, privileged=True)
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._reset_agents()
        self.recorder = Recorder(self.rules)
        self.deal_scores: list[list[int]] = []
        self._deal(0)

    def _deal(self, index: int) -> None:
        seed = int(self._rng.integers(2**63 - 1))
        deal_index = index if self.rules.starting_seat_rotates else 0
        self._state = game.init(self.rules, [seed], deal_index)
        self.recorder.start_deal(seed, deal_index)
        self._after_move()

    def _after_move(self) -> None:
        """The mask and the agent to act, for a deal in progress (int8 view of the bool
        mask: the core writes it fresh for every move)."""
        self._mask = game.legal_action_mask(self.rules, self._state)[0].view(np.int8)
        self._seat_to_act = int(self._state.current[0])
        self.agent_selection = self.possible_agents[self._seat_to_act]

    @property
    def core_state(self) -> State:
        """The deal as the core's batch-of-one ``State``: a copy (the env steps its own
        state in place, so a kept copy stays as it was)."""
        return self._state.copy()

    @core_state.setter
    def core_state(self, state: State) -> None:
        self._state = state.copy()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seats[agent]
        mask = self._mask if seat == self._seat_to_act else np.zeros(actions.NUM_ACTIONS, np.int8)
        return {"observation": observe(self.rules, self._state, seat)[0], "action_mask": mask}

    def state(self) -> np.ndarray:
        """int16 (``state_space``): the deal as seat 0 sees it plus every hand and the
        stock order (``observe(..., privileged=True)``), for centralised critics."""
        full: np.ndarray = observe(self.rules, self._state, 0, privileged=True)[0]
        return full

    def step(self, action: int | None) -> None:
        if not self.agents:
            raise ValueError(after_end(action))
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._check_action(agent, action)
        self.recorder.move(self._state, a)
        out = game.step_in_place(self.rules, self._state, np.array([a]), validate=False)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if out.terminated[0] or out.truncated[0]:
            self._seat_to_act = -1  # nobody: every mask is all zeros
            self._end_deal()
        else:
            self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, agent: str, action: Any) -> int:
        if action is None:
            raise ValueError(f"{agent} is to act: expected an action id, got None")
        a = action_id(action, actions.NUM_ACTIONS, agent)
        if not self._mask[a]:
            raise ValueError(f"{agent}: illegal move {actions.action_to_string(a)!r} "
                             f"(action {a}) for seat {int(self._state.current[0])}")
        return a

    def _end_deal(self) -> None:
        s = self._state
        self.recorder.end_deal(s)
        shaped = shape_rewards(self.rules, game.rewards_of(self.rules, s), s.winner,
                               self.reward_mode)[0]
        self.rewards = {a: float(shaped[p]) for p, a in enumerate(self.possible_agents)}
        self.deal_scores.append(s.scores[0].tolist())
        info = {"deal_scores": s.scores[0].tolist(), "winner": int(s.winner[0])}
        self.infos = {a: dict(info) for a in self.agents}
        totals = scoring.match_totals(self.deal_scores)
        if self.match and not scoring.is_match_over(self.rules, totals, len(self.deal_scores)):
            self._deal(len(self.deal_scores))
            return
        ended = "truncations" if s.truncated[0] and not self.match else "terminations"
        setattr(self, ended, dict.fromkeys(self.agents, True))

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        seat = self.render_seat
        if seat is None:
            seat = int(self._state.current[0])
        if self.render_mode == "rgb_array":
            return table_image(self.rules, self._state, None if seat == "all" else int(seat))
        text = render.render(self.rules, self._state, 0, None if seat == "all" else int(seat))
        if self.match:
            text += f"\nmatch totals {scoring.match_totals(self.deal_scores)}"
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        return None
