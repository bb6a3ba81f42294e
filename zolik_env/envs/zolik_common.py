"""Pieces the Žolík environments share: rules from arguments, observation space, reward
modes, opponents, and playing opponents' moves on the batched core.

Rewards (``reward=``), from the core's deal scores ``s`` (higher is better, cz penalties
negated), given on the step that ends a deal and 0 otherwise:

- ``"score"`` (default): zero-sum, ``(s[p] - mean(s)) / SCORE_SCALE`` with
  ``SCORE_SCALE = 100`` (a cz never-opened penalty is 100).
- ``"win_loss"``: +1 to the seat that went out, ``-1/(n-1)`` to the others; 0 to every
  seat when the deal ends without a winner (cut off or the stock ran out).

Opponents are the string ``"random"`` (uniform over the legal moves, built here) or any
object with ``act_batch(obs, mask, rng)`` or ``act(obs, mask, rng)`` (the ``agents``
Policy protocol), or a search agent with ``act_info(info, rng)`` (``pimc``), which is given
each deal's ``zolik_env.rummy.belief.InfoState`` of the seat to act: what that seat may
know, never the deal. ``zolik_env`` never imports ``agents`` (docs/style.md §2); build other specs
with ``agents.registry.make_agent("greedy", rules)`` and pass the object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from zolik_env.arrays import Float64Array
from zolik_env.rummy import game, options
from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.observe import obs_size, obs_slices, observe
from zolik_env.rummy.state import State

SCORE_SCALE = 100.0
REWARD_MODES = ("score", "win_loss")


def make_rules(rules: str | options.RuleSet, num_players: int | None,
               rule_options: dict[str, Any] | None) -> options.RuleSet:
    """A RuleSet from a preset name (or a RuleSet), a player count and rule options.

    Raises:
        ValueError: naming an unknown preset, option, bad value or player count.
    """
    extra = dict(rule_options or {})
    if "num_players" in extra:
        raise ValueError("pass num_players as its own argument, not in rule_options")
    if isinstance(rules, options.RuleSet):
        extra = {**options.rule_options_of(rules), **extra}
        num_players = rules.num_players if num_players is None else num_players
        rules = rules.name
    if not isinstance(rules, str):
        raise ValueError(f"rules must be a preset name {options.PRESETS} or a RuleSet, "
                         f"got {rules!r}")
    players: object = 2 if num_players is None else num_players
    if isinstance(players, np.integer):  # a count read from an array is an int too
        players = int(players)
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise ValueError(f"num_players={players!r} not supported: Žolík is played by 2 to 4")
    made = options.preset(rules, num_players=players, **extra)
    game.check_supported(made)
    return made


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward={mode!r} unknown: choose from {', '.join(REWARD_MODES)}")
    return mode


def observation_space(rules: options.RuleSet, privileged: bool = False) -> gymnasium.spaces.Box:
    """int16 Box of the core's flat observation (``privileged``: the full view that
    ``state()`` returns): -1 marks empty entries; scores may be negative (sk, jolly)."""
    size = obs_size(rules, privileged)
    info = np.iinfo(np.int16)
    low = np.full(size, -1, np.int16)
    for name, start, stop in obs_slices(rules, privileged):
        if name == "scores":
            low[start:stop] = info.min
    return gymnasium.spaces.Box(low, np.full(size, info.max, np.int16), (size,), np.int16)


def shape_rewards(rules: options.RuleSet, scores: np.ndarray, winner: np.ndarray,
                  mode: str) -> np.ndarray:
    """float64 (B, P) rewards of ``mode`` from higher-is-better deal scores (B, P) and the
    winning seat (B,) (-1 for none); see the module docstring."""
    scores = np.asarray(scores, np.float64)
    if mode == "score":
        centred: Float64Array = (scores - scores.mean(1, keepdims=True)) / SCORE_SCALE
        return centred
    n = rules.num_players
    out = np.where(winner[:, None] >= 0, -1.0 / (n - 1), 0.0) * np.ones((1, n))
    has = np.flatnonzero(winner >= 0)
    out[has, winner[has]] = 1.0
    return out


class RandomOpponent:
    """``"random"``: every legal move equally likely (``game.sample_legal``); needs no
    observation."""

    name = "random"
    needs_obs = False

    def act(self, obs: Any, mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(self.act_batch(None, mask[None], rng)[0])

    def act_batch(self, obs: Any, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return game.sample_legal(mask, rng)


AGENT_SPEC_GROUP = "zolik.agent_specs"
"""Entry-point group of agent-spec builders: ``builder(spec, rules) -> Policy``. The kit
registers ``agents.registry:make_agent`` here (``pyproject.toml``), so ``opponents=``
takes every spec the command line does (``"planner"``, ``"pretrained:cz_2p"``,
``"ppo:PATH"``, ``"mypkg.mod:factory"``) while this floor imports no agent code."""


def resolve_opponents(opponents: Any, rules: options.RuleSet) -> list[Any]:
    """``num_players - 1`` policies from ``None`` (all random), one spec or Policy, or a
    list of them. A spec other than ``"random"`` is built by the builder registered under
    ``AGENT_SPEC_GROUP``."""
    num_players = rules.num_players
    if opponents is None:
        opponents = "random"
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        opponents = [opponents] * (num_players - 1)
    if len(opponents) != num_players - 1:
        raise ValueError(f"expected {num_players - 1} opponent(s) for num_players="
                         f"{num_players}, got {len(opponents)}")
    return [_resolve_one(spec, rules) for spec in opponents]


def _spec_builder() -> Any:
    """The registered agent-spec builder, or None when no package registers one."""
    from importlib.metadata import entry_points

    found = entry_points(group=AGENT_SPEC_GROUP)
    return next(iter(found)).load() if found else None


def _resolve_one(spec: Any, rules: options.RuleSet) -> Any:
    if isinstance(spec, str):
        if spec == "random":
            return RandomOpponent()
        builder = _spec_builder()
        if builder is None:
            raise ValueError(f"opponent spec {spec!r}: no agent builder is installed (entry "
                             f"point group {AGENT_SPEC_GROUP!r}; bash scripts/setup.sh "
                             f"installs the kit's); pass 'random' or a Policy object")
        return builder(spec, rules)
    if not (callable(getattr(spec, "act_batch", None)) or callable(getattr(spec, "act", None))):
        raise TypeError(f"opponent {spec!r} has neither act_batch nor act (agents.base.Policy)")
    return spec


def _search_actions(rules: options.RuleSet, sub: State, idx: np.ndarray, policy: Any,
                    rng: np.random.Generator) -> np.ndarray:
    """int64 (len(idx),): a search agent's moves in deals ``idx`` of ``sub``, each from the
    information state of the seat to act (a seat's view: an oracle's ``act_info`` refuses)."""
    return np.array([policy.act_info(InfoState.of_seat_to_act(rules, sub, int(i)), rng)
                     for i in idx], np.int64)


def _policy_actions(policy: Any, obs: Any, mask: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    if callable(getattr(policy, "act_batch", None)):
        return np.asarray(policy.act_batch(obs, mask, rng), np.int64).reshape(len(mask))
    return np.array([policy.act(o, m, rng) for o, m in zip(obs, mask, strict=True)], np.int64)


def _transformed(policy: Any, idx: np.ndarray, obs: Any,
                 shared: dict[Any, tuple[np.ndarray, np.ndarray]]) -> Any:
    """``policy.obs_transform(obs[idx])``, from ``shared`` when its key is there."""
    key = getattr(policy, "obs_transform_key", None)
    if key is None:
        return obs[idx]
    union, transformed = shared[key]
    return transformed[np.searchsorted(union, idx)]


def _joint_probabilities(opponents: list[Any], rows: list[np.ndarray], obs: Any,
                         shared: dict[Any, tuple[np.ndarray, np.ndarray]], mask: np.ndarray
                         ) -> dict[int, np.ndarray]:
    """Opponent index -> the move distributions of its rows, for every group of two or
    more policies with one ``joint_key`` (a pool's network snapshots), each group
    computed in one ``joint_probabilities`` call instead of one call per policy."""
    if obs is None:
        return {}
    groups: dict[Any, list[int]] = {}
    for j, (policy, idx) in enumerate(zip(opponents, rows, strict=True)):
        key = getattr(policy, "joint_key", None) if idx.size else None
        if key is not None:
            groups.setdefault(key, []).append(j)
    out: dict[int, np.ndarray] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        parts = [rows[j] for j in members]
        owner = np.repeat(np.arange(len(members)), [len(p) for p in parts])
        union = np.concatenate(parts)
        inputs = np.concatenate([_transformed(opponents[j], rows[j], obs, shared)
                                 for j in members])
        probs = opponents[members[0]].joint_probabilities([opponents[j] for j in members],
                                                          inputs, owner, mask[union])
        starts = np.cumsum([0] + [len(p) for p in parts])
        for k, j in enumerate(members):
            out[j] = probs[starts[k]:starts[k + 1]]
    return out


def _shared_transforms(opponents: list[Any], rows: list[np.ndarray], obs: Any
                       ) -> dict[Any, tuple[np.ndarray, np.ndarray]]:
    """Per ``obs_transform_key``: (the rows of every opponent with that key, ascending,
    and their transformed observations), computed once for all of them."""
    if obs is None:
        return {}
    groups: dict[Any, tuple[Any, list[np.ndarray]]] = {}
    for policy, idx in zip(opponents, rows, strict=True):
        key = getattr(policy, "obs_transform_key", None)
        if idx.size and key is not None:
            groups.setdefault(key, (policy, []))[1].append(idx)
    out = {}
    for key, (policy, parts) in groups.items():
        union = np.sort(np.concatenate(parts))
        out[key] = union, policy.obs_transform(obs[union])
    return out


def opponent_actions(rules: options.RuleSet, sub: State, slot: np.ndarray,
                     opponents: list[Any], rng: np.random.Generator) -> np.ndarray:
    """int64 (b,) one move per deal of ``sub``, each by opponent ``slot`` (b,).

    The observations are made once for the batch. Policies with an equal
    ``obs_transform_key`` (networks that append the same features) share one
    ``obs_transform`` of all their rows and play through ``act_transformed``, so a
    pool of snapshots computes its features once per pass, not once per snapshot.
    Policies with an equal ``joint_key`` (a run's network snapshots) go further: one
    ``joint_probabilities`` call gives the move distributions of all their rows, and
    each draws its moves from its own with ``act_probabilities``.

    Raises:
        ValueError: naming the opponent and the move when a policy returns an illegal one.
    """
    mask = game.legal_action_mask(rules, sub)
    actions = np.zeros(sub.batch_size, np.int64)
    rows = [np.flatnonzero(slot == j) for j in range(len(opponents))]
    needs_obs = any(r.size and getattr(p, "needs_obs", True) for p, r in zip(opponents, rows,
                                                                            strict=True))
    obs = observe(rules, sub, sub.current) if needs_obs else None
    shared = _shared_transforms(opponents, rows, obs)
    joint = _joint_probabilities(opponents, rows, obs, shared, mask)
    for j, (policy, idx) in enumerate(zip(opponents, rows, strict=True)):
        if idx.size == 0:
            continue
        if j in joint:
            actions[idx] = np.asarray(policy.act_probabilities(joint[j], mask[idx], rng),
                                      np.int64).reshape(idx.size)
            continue
        if obs is not None and getattr(policy, "obs_transform_key", None) is not None:
            part = _transformed(policy, idx, obs, shared)
            actions[idx] = np.asarray(policy.act_transformed(part, mask[idx], rng),
                                      np.int64).reshape(idx.size)
            continue
        if callable(getattr(policy, "act_info", None)):
            actions[idx] = _search_actions(rules, sub, idx, policy, rng)
            continue
        part_obs = obs[idx] if obs is not None and getattr(policy, "needs_obs", True) else None
        actions[idx] = _policy_actions(policy, part_obs, mask[idx], rng)
    ok = mask[np.arange(len(actions)), np.clip(actions, 0, mask.shape[1] - 1)]
    bad = np.flatnonzero(~ok | (actions < 0) | (actions >= mask.shape[1]))
    if bad.size:
        b = int(bad[0])
        raise ValueError(f"opponent {getattr(opponents[slot[b]], 'name', opponents[slot[b]])!r}"
                         f" chose illegal action {int(actions[b])} for seat "
                         f"{int(sub.current[b])}")
    return actions


def merge_rows(state: State, rows: np.ndarray, sub: State) -> State:
    """``state`` with its ``rows`` replaced by the deals of ``sub``."""
    new = state.copy()
    new.put(rows, sub)
    return new


# (deals b,) the moves of the opponents to act in the deals ``sub``, given the batch rows
# they sit in (b,) and which opponent acts in each (b,): opponent ``j`` sits ``j + 1`` seats
# after the learner.
OpponentMoves = Callable[[State, np.ndarray, np.ndarray], np.ndarray]


def play_opponents(rules: options.RuleSet, state: State, learner: np.ndarray,
                   moves: OpponentMoves, in_place: bool = False) -> tuple[State, int]:
    """Play opponents' moves, chosen by ``moves(sub, rows, slot)``, until every unfinished
    deal waits for its ``learner`` seat (B,); returns the state and the number of moves
    played. ``in_place``: for the sole owner of ``state``, which is then stepped in its
    own buffer (the same moves, without copying the batch on every pass)."""
    n, played = rules.num_players, 0
    while True:
        rows = np.flatnonzero(~state.done & (state.current != learner))
        if rows.size == 0:
            return state, played
        played += rows.size
        whole = rows.size == state.batch_size
        sub = state if whole else state.take(rows)
        slot = (sub.current.astype(np.int64) - learner[rows] - 1) % n
        actions = moves(sub, rows, slot)
        if in_place:  # the same moves, written straight into the rows of ``state``
            game.step_rows_in_place(rules, state, rows, actions)
            continue
        sub, _ = game.step(rules, sub, actions, validate=False)
        state = sub if whole else merge_rows(state, rows, sub)


def advance(rules: options.RuleSet, state: State, learner: np.ndarray, opponents: list[Any],
            rng: np.random.Generator) -> tuple[State, int]:
    """``play_opponents`` with one policy per opponent seat: opponent ``j`` sits at seat
    ``(learner + 1 + j) % num_players``."""
    return play_opponents(rules, state, learner,
                          lambda sub, _rows, slot: opponent_actions(rules, sub, slot,
                                                                    opponents, rng))
