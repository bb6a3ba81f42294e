"""Žolík as an OpenSpiel game: ``python_zolik``, a ``pyspiel`` Python game over the core.

    import pyspiel, zolik_env.openspiel               # importing registers the game
    game = pyspiel.load_game("python_zolik", {"preset": "sk", "players": 3})

Parameters: ``preset`` (``cz``, ``sk``, ``jolly``), ``players`` (2..4) and ``reward``
(``score`` or ``win_loss``, the envs' reward modes, ``zolik_env.envs.zolik_common``). Seat
0 starts the deal. Needs the ``openspiel`` extra (``pip install -e .[openspiel]``).

**Same rules, not a copy.** Every move is a step of the batched core (``game.step_in_place``
on a batch of one deal), the legal actions are the core's mask, and the returns are the
envs' rewards of the core's deal scores (``shape_rewards``; zero-sum).

**Chance.** The core deals from a shuffled pack; this adapter makes the shuffle explicit as
one chance node per card that leaves the unknown part of the pack, with outcome = the card
kind (``NUM_KINDS`` = 53 outcomes, 52 naturals and the joker), each kind as likely as its
copies among the cards not yet placed. That is the same distribution as a shuffled pack,
revealed lazily:

- the deal: in sk first the ``cut_cards`` cut cards at the bottom of the pack, then every
  card dealt, in the order the core deals them (``dealing.deal_stock`` is then called on
  the pack with those positions filled and the rest in a fixed order);
- every draw from the stock: when a player's move takes the top card of the stock (the
  draw, or an UNDO that draws instead of a taken discard, seen by stepping a copy of the
  core), the state becomes a chance node that picks the card; the adapter puts a card of
  that kind on top of the stock's unrevealed part and then steps the core with the move.

Not chance: after a cz/sk rebuild the stock is the discard pile turned over, public and in
order, so its draws are plain moves; a jolly rebuild shuffles with the deal's key (a hash
of the dealt pack), which decides the first card drawn from it, and every later draw from
the rebuilt stock is a chance node again. sk's cut cards that stay at the bottom are
placed at the deal.

**Views.** The information state of a seat is the kit's infoset key
(``belief.infoset_key``): ``information_state_string`` is the key in hex, so two states
have equal strings exactly when their keys are equal (the key is the seat's view now, not a
record of every past move). The observation string is the seat's text view
(``render.render``); both tensors are the kit's observation (``observe.observe``, float32,
``obs_layout``'s slices as the observer's ``dict``). During the deal a seat sees the cards
it was dealt so far. ``resample_from_infostate`` draws a world with
``belief.sample_worlds`` (for OpenSpiel's ISMCTS bot).
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import numpy as np
import pyspiel

from zolik_env.envs.zolik_common import REWARD_MODES, check_reward_mode, shape_rewards
from zolik_env.rummy import actions as A
from zolik_env.rummy import game as core
from zolik_env.rummy import options
from zolik_env.rummy.belief import infoset_key, sample_worlds
from zolik_env.rummy.cards import NUM_KINDS, card_to_str, cards_of, deck_counts
from zolik_env.rummy.dealing import deal_stock
from zolik_env.rummy.observe import obs_layout, obs_size, observe
from zolik_env.rummy.render import render
from zolik_env.rummy.state import State

SHORT_NAME = "python_zolik"
DEFAULTS: dict[str, Any] = {"preset": "cz", "players": 2, "reward": "score"}
_CARD_BOUND = 50  # no card is worth more (a joker held), in any preset's scoring


def game_type() -> Any:
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Zolik (the kit's batched core)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS))


def rules_of(params: dict[str, Any]) -> tuple[options.RuleSet, str]:
    """The rule set and reward mode of the game parameters; ``ValueError`` names a bad one."""
    params = {**DEFAULTS, **params}
    if params["preset"] not in options.PRESETS:
        raise ValueError(f"preset={params['preset']!r} unknown: choose from "
                         f"{', '.join(options.PRESETS)}")
    players = params["players"]
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise ValueError(f"players={players!r} out of range: expected an integer in [2, 4]")
    rules = options.preset(params["preset"], num_players=players)
    core.check_supported(rules)
    return rules, check_reward_mode(params["reward"])


def game_info(rules: options.RuleSet, reward: str) -> Any:
    pack = int(deck_counts(rules.num_jokers).sum())
    dealt = rules.num_players * rules.hand_size + int(rules.starter_discards_first)
    bound = 1.0 if reward != "score" else 2 * rules.closed_from_hand_multiplier * (
        _CARD_BOUND * pack + rules.never_opened_penalty + rules.winner_bonus) / 100
    return pyspiel.GameInfo(
        num_distinct_actions=A.NUM_ACTIONS, max_chance_outcomes=NUM_KINDS,
        num_players=rules.num_players, min_utility=-bound, max_utility=bound,
        utility_sum=0.0,
        max_game_length=dealt + rules.cut_cards + max(rules.max_turns, 1) * (pack + 6))


class ZolikGame(pyspiel.Game):  # type: ignore[misc]
    """``python_zolik``: one deal of the kit's Žolík under a preset (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**DEFAULTS, **(params or {})}
        self.rules, self.reward = rules_of(given)
        super().__init__(game_type(), game_info(self.rules, self.reward), given)

    def new_initial_state(self) -> ZolikState:
        return ZolikState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> ZolikObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        perfect_recall = iig_obs_type is None or bool(iig_obs_type.perfect_recall)
        return ZolikObserver(self.rules, perfect_recall)


class ZolikState(pyspiel.State):  # type: ignore[misc]
    """A deal: first the chance nodes of the deal, then the core's deal (``self.core``)."""

    def __init__(self, game: ZolikGame) -> None:
        super().__init__(game)
        self.rules, self.reward = game.rules, game.reward
        pack = deck_counts(self.rules.num_jokers).astype(np.int64)
        self.unplaced = pack  # counts of the cards whose place is not decided yet
        self.dealt: list[int] = []  # the deal's chance outcomes, in order
        self.core: State | None = None
        self.unrevealed = 0  # top stock positions whose order is still chance's
        self.pending = -1  # a move waiting for the chance node of its stock draw

    # -- OpenSpiel's API -------------------------------------------------------------
    def current_player(self) -> int:
        if self.core is None or self.pending >= 0:
            return int(pyspiel.PlayerId.CHANCE)
        if bool(self.core.done[0]):
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.core.current[0])

    def is_terminal(self) -> bool:
        return self.core is not None and bool(self.core.done[0])

    def _legal_actions(self, player: int) -> list[int]:
        assert self.core is not None and player == int(self.core.current[0])
        return np.flatnonzero(core.legal_action_mask(self.rules, self.core)[0]).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        counts = self._chance_counts()
        total = int(counts.sum())
        return [(int(k), float(counts[k]) / total) for k in np.flatnonzero(counts)]

    def _apply_action(self, action: int) -> None:
        if self.core is None:
            self._deal_card(int(action))
        elif self.pending >= 0:
            self._draw(int(action))
        else:
            self._move(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {card_to_str(int(action))}"
        return A.action_to_string(int(action))

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.rules.num_players
        assert self.core is not None
        scores = core.rewards_of(self.rules, self.core)
        rewards = shape_rewards(self.rules, scores, self.core.winner.astype(np.int64),
                                self.reward)
        return [float(r) for r in rewards[0]]

    def resample_from_infostate(self, player: int, sampler: Any) -> ZolikState:
        """A state that ``player`` cannot tell from this one: the other hands and the stock
        dealt again (``belief.sample_worlds``), seeded from ``sampler()``."""
        if self.core is None or self.pending >= 0:
            raise ValueError("resample_from_infostate needs a decision node after the deal")
        seed = int(float(sampler()) * 2**62)
        world = self.clone()
        world.core = sample_worlds(self.rules, self.core, int(player), 1, seed)
        return world  # type: ignore[no-any-return]

    def __str__(self) -> str:
        if self.core is None:
            return f"dealing: {len(self.dealt)} cards placed"
        return render(self.rules, self.core)

    def __deepcopy__(self, memo: dict[int, Any]) -> ZolikState:
        new: ZolikState = copy.copy(self)  # pyspiel copies its own part (history)
        new.unplaced, new.dealt = self.unplaced.copy(), list(self.dealt)
        new.core = None if self.core is None else self.core.copy()
        return new

    # -- the deal and the draws ------------------------------------------------------
    def _deal_size(self) -> int:
        r = self.rules
        return r.cut_cards + r.num_players * r.hand_size + int(r.starter_discards_first)

    def _chance_counts(self) -> np.ndarray:
        """Counts by kind of the cards a chance node picks from."""
        if self.core is None:
            return self.unplaced
        stock = self.core.stock[0]
        top = int(self.core.stock_len[0])
        return np.bincount(stock[top - self.unrevealed:top], minlength=NUM_KINDS)

    def _deal_card(self, kind: int) -> None:
        assert self.unplaced[kind] > 0, f"card {kind} is not left to deal"
        self.unplaced[kind] -= 1
        self.dealt.append(kind)
        if len(self.dealt) == self._deal_size():
            self._start()

    def _start(self) -> None:
        """The core's deal of the pack the chance nodes chose: cut cards at the bottom,
        dealt cards on top in dealing order, the undecided rest in between."""
        cut = self.rules.cut_cards
        rest = np.array(cards_of(self.unplaced), np.int8)
        pack = np.concatenate([np.array(self.dealt[:cut], np.int8), rest,
                               np.array(self.dealt[cut:][::-1], np.int8)])
        key = int.from_bytes(hashlib.blake2b(pack.tobytes(), digest_size=8).digest(), "little")
        self.core = deal_stock(self.rules, pack[None], np.array([key], np.uint64))
        self.unrevealed = len(rest)

    def _move(self, action: int) -> None:
        state = self.core
        assert state is not None
        rebuilds = int(state.rebuilds[0])
        if self.unrevealed and action in (A.DRAW_STOCK, A.UNDO):
            probe = state.copy()
            core.step_in_place(self.rules, probe, [action])
            if (int(probe.stock_len[0]) == int(state.stock_len[0]) - 1
                    and int(probe.rebuilds[0]) == rebuilds):  # it draws: chance first
                self.pending = action
                return
            self.core = state = probe
        else:
            core.step_in_place(self.rules, state, [action])
        if int(state.rebuilds[0]) != rebuilds:  # the stock was rebuilt by this move
            shuffled = self.rules.stock_rebuild == "shuffle"
            self.unrevealed = int(state.stock_len[0]) if shuffled else 0

    def _draw(self, kind: int) -> None:
        """Put a card ``kind`` of the unrevealed stock on top, then make the waiting move."""
        state = self.core
        assert state is not None
        top = int(state.stock_len[0]) - 1
        region = state.stock[0, top + 1 - self.unrevealed:top + 1]
        where = np.flatnonzero(region == kind)
        assert where.size, f"card {kind} is not in the unrevealed stock"
        at = top + 1 - self.unrevealed + int(where[0])
        state.stock[0, at], state.stock[0, top] = state.stock[0, top], kind
        action, self.pending = self.pending, -1
        core.step_in_place(self.rules, state, [action])
        self.unrevealed -= 1


class ZolikObserver:
    """OpenSpiel's Python observer: ``tensor`` and ``dict`` (the kit's observation) and
    ``string_from`` (infoset key in hex with ``perfect_recall``, else the text view)."""

    def __init__(self, rules: options.RuleSet, perfect_recall: bool) -> None:
        self.rules, self.perfect_recall = rules, perfect_recall
        self.tensor = np.zeros(obs_size(rules), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        start = 0
        for name, shape in obs_layout(rules):
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start:start + size].reshape(shape)
            start += size

    def set_from(self, state: ZolikState, player: int) -> None:
        if state.core is None:
            self.tensor.fill(0)
            self.dict["hand"][:] = _dealt_to(state, player)
            return
        self.tensor[:] = observe(self.rules, state.core, int(player))[0]

    def string_from(self, state: ZolikState, player: int) -> str:
        if state.core is None:
            cards = " ".join(card_to_str(k) for k in cards_of(_dealt_to(state, player)))
            return f"seat {player} dealing: {cards}"
        if self.perfect_recall:
            return infoset_key(self.rules, state.core, int(player)).hex()
        return render(self.rules, state.core, seat=int(player))


class HandPointsEvaluator:
    """A cheap leaf value for OpenSpiel's MCTS and ISMCTS bots (their ``Evaluator``
    interface): the returns at the end of a deal, else each seat's penalty for the cards it
    holds, centred and divided by 100 as the ``score`` reward (a heuristic, no rollout);
    the prior is uniform over the legal actions."""

    def evaluate(self, state: ZolikState) -> np.ndarray:
        if state.is_terminal() or state.core is None:
            return np.asarray(state.returns(), np.float64)
        points = -core.hand_points(state.rules, state.core)[0].astype(np.float64)
        centred: np.ndarray = (points - points.mean()) / 100
        return centred

    def prior(self, state: ZolikState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def _dealt_to(state: ZolikState, player: int) -> np.ndarray:
    """Counts by kind of the cards dealt to ``player`` so far (seat 0 starts; sk's cut
    cards are nobody's until the core's deal)."""
    r = state.rules
    counts = np.zeros(NUM_KINDS, np.int64)
    for j, kind in enumerate(state.dealt[r.cut_cards:]):
        seat = j % r.num_players if j < r.num_players * r.hand_size else 0
        if seat == player:
            counts[kind] += 1
    return counts


pyspiel.register_game(game_type(), ZolikGame)

__all__ = ["DEFAULTS", "REWARD_MODES", "SHORT_NAME", "HandPointsEvaluator", "ZolikGame",
           "ZolikObserver", "ZolikState", "rules_of"]
