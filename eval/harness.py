"""The kit's one play loop, for both games: duplicate Žolík matches (``play_match``) and
Pět kostek solitaire runs (``play_dice``), both through ``play_to_end``.

**Play loop.** Both rules cores' ``game`` modules expose ``init``, ``legal_action_mask``,
``step`` and ``observe`` under the same names (``zolik_env.core``); ``play_to_end`` takes
either module and steps a batch of games to the end, each policy acting on the rows
where its seat is to move, and returns the final states. Training's periodic evaluation
(``train.evaluate``), the strength scripts (``eval.strength``, ``train.strength``),
``zolik eval`` and ``zolik dice eval`` all play through it.

**Seat scheme.** With n agents at P seats (n <= P) the base assignment gives seat s to
agent ``s % n`` (two agents at four seats: A B A B). The assignments played are the
distinct ones among the P seat shifts of the base and its n relabellings (agent
``(s + r) % P % n + k`` mod n at seat s): n = P gives the P cyclic rotations (A B C,
B C A, C A B), two agents at four seats A B A B and B A B A, two at three A B A, B A A,
A A B, B A B, A B B, B B A. Every agent thus holds every hand (the cards of each seat)
in some rotation, and every agent holds the same number of seats over all rotations.
Every deal is dealt with ``deal_index`` 0, so seat 0 always starts (cz/sk: with 15
cards and a discard). ``rotations=`` replaces the scheme with explicit seatings.

**Randomness.** Agents draw from their own generators: with ``rng_scope="deal"`` one per
(eval seed, deal seed, rotation, agent), and agents act row by row, so a deal plays the
same in any batch, chunk or process; with ``"chunk"`` one per (eval seed, first seed of
the batch, agent), and agents act on whole batches (faster for networks); with
``"shared"`` one generator from the eval seed, shared by all agents in the order they act.

This module may import ``agents`` and ``zolik_env``; nothing here imports ``train``.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from agents.base import Policy, is_oracle_policy, is_search_policy
from zolik_env.dice import game as dice_game
from zolik_env.dice.evaluate import GameStats, game_stats
from zolik_env.dice.rules import DiceRules
from zolik_env.rummy import game
from zolik_env.rummy.belief import InfoState
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import State as RummyState
from zolik_env.rummy.state import concatenate

RNG_SCOPES = ("deal", "chunk", "shared")


def seat_rotations(num_agents: int, num_players: int) -> np.ndarray:
    """int64 (R, P): the agent index at each seat in each rotation (see the module doc)."""
    if not 1 <= num_agents <= num_players:
        raise ValueError(f"{num_agents} agents cannot share {num_players} seats")
    base = np.arange(num_players) % num_agents
    rotations: list[tuple[int, ...]] = []
    for k in range(num_agents):
        for r in range(num_players):
            shifted = tuple(int(a) for a in (np.roll(base, -r) + k) % num_agents)
            if shifted not in rotations:
                rotations.append(shifted)
    return np.array(rotations, np.int64)


@dataclass(frozen=True)
class MatchResult:
    """Outcomes of D duplicate deals, each played in R rotations at P seats."""

    agents: tuple[str, ...]  # agent names, indexed by the entries of ``rotations``
    rotations: np.ndarray  # int64 (R, P) agent index per seat
    seeds: np.ndarray  # int64 (D,) deal seeds
    scores: np.ndarray  # int32 (D, R, P) deal scores as the preset writes them
    rewards: np.ndarray  # int32 (D, R, P) the same, higher = better (cz negated)
    opened: np.ndarray  # bool (D, R, P) the seat had opened when the deal ended
    winner: np.ndarray  # int8 (D, R) seat that went out, -1 if none
    truncated: np.ndarray  # bool (D, R) cut off (no winner)
    turns: np.ndarray  # int32 (D, R) turns played

    @property
    def num_deals(self) -> int:
        return int(self.seeds.size)


def concat_results(parts: Sequence[MatchResult]) -> MatchResult:
    """One result from chunks of the same match (in the given order)."""
    first = parts[0]
    fields = ("seeds", "scores", "rewards", "opened", "winner", "truncated", "turns")
    return MatchResult(first.agents, first.rotations,
                       **{f: np.concatenate([getattr(p, f) for p in parts]) for f in fields})


def _generators(seed: int, seeds: np.ndarray, num_rotations: int, num_agents: int,
                rng_scope: str) -> list[list[np.random.Generator]]:
    """gens[a][row]: agent a's generator for batch row ``row = r * D + d`` (one generator
    per agent when ``rng_scope == "chunk"``, one for all agents when ``"shared"``)."""
    if rng_scope not in RNG_SCOPES:
        raise ValueError(f"rng_scope={rng_scope!r} unknown: choose from {', '.join(RNG_SCOPES)}")
    if rng_scope == "shared":
        return [[np.random.default_rng(seed)]] * num_agents
    if rng_scope == "chunk":
        key = [seed, int(seeds[0]), seeds.size]
        return [[np.random.default_rng([*key, a])] for a in range(num_agents)]
    return [[np.random.default_rng([seed, int(s), r, a])
             for r in range(num_rotations) for s in seeds] for a in range(num_agents)]


def _choose(policy: Any, obs: np.ndarray, mask: np.ndarray, rows: np.ndarray,
            gens: list[np.random.Generator],
            deal: tuple[Any, Any, np.ndarray] | None = None) -> np.ndarray:
    """Actions of one policy for its batch rows ``rows`` (original row ids). ``deal``:
    (rules, state, the policy's rows of ``state``), Žolík only (the dice game hides
    nothing), for a search policy (``agents.base.SearchPolicy``: each row's information
    state) or an oracle (``agents.base.OraclePolicy``: the deal itself)."""
    if deal is not None and (is_oracle_policy(policy) or is_search_policy(policy)):
        return _deal_moves(policy, *deal, rows, gens)
    if len(gens) == 1:
        return np.asarray(policy.act_batch(obs, mask, gens[0]), np.int64)
    return np.array([policy.act(o, m, gens[row]) for o, m, row in zip(obs, mask, rows,
                                                                    strict=True)], np.int64)


def _deal_moves(policy: Any, rules: Any, state: Any, local: np.ndarray, rows: np.ndarray,
                gens: list[np.random.Generator]) -> np.ndarray:
    """One move per row: an oracle's from the true deal (batch-of-one ``act_state``, the
    one privileged call of the kit), a search policy's from the seat's ``InfoState``."""
    oracle = is_oracle_policy(policy)
    moves = []
    for i, row in zip(local, rows, strict=True):
        gen = gens[row if len(gens) > 1 else 0]
        if oracle:
            moves.append(policy.act_state(rules, state.take(np.array([i])), gen))
        else:
            moves.append(policy.act_info(InfoState.of_seat_to_act(rules, state, int(i)), gen))
    return np.array(moves, np.int64)


def _concat_states(parts: list[tuple[np.ndarray, Any]]) -> Any:
    """One state from ``(row ids, state)`` parts, its rows sorted by row id."""
    rows = np.concatenate([r for r, _ in parts])
    states = [st for _, st in parts]
    if isinstance(states[0], RummyState):
        joined = concatenate(states)
    else:  # the dice core's State: a dataclass of arrays
        joined = type(states[0])(**{f.name: np.concatenate([getattr(st, f.name) for st in states])
                                    for f in dataclasses.fields(states[0])})
    return joined.take(np.argsort(rows, kind="stable"))


def play_to_end(core: ModuleType, rules: Any, policies: Sequence[Any], seat_agent: np.ndarray,
                seeds: np.ndarray, gens: list[list[np.random.Generator]], *,
                keep_finished: bool = False,
                on_step: Callable[[np.ndarray, Any, np.ndarray], None] | None = None) -> Any:
    """The final state of one game per entry of ``seeds`` (in that order), played to the end.

    Args:
        core: a rules core's game module (``zolik_env.rummy.game``, ``zolik_env.dice.game``).
        seat_agent: int (N, P) index into ``policies`` of the policy at each seat.
        gens: gens[a][row] policy a's generator for game ``row``; a single entry is one
            generator for all of a's rows, which it then acts on with one ``act_batch``.
        keep_finished: keep finished games in the batch until all are over (their policy
            still sees them; their action is ignored), so that a policy drawing from a
            shared generator draws for the same batch shape at every step.
        on_step: called before each step with (original row ids, state, actions) of the
            games still being played (e.g. to record the moves).

    Raises:
        ValueError: when a policy picks an illegal action (naming it and the game seed).
    """
    with one_torch_thread():
        return _play_steps(core, rules, policies, seat_agent, seeds, gens, keep_finished,
                           on_step)


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch runs on one thread inside the block, then on the caller's count again.

    The networks of a match act on small batches (the rows of one seat at one step), where
    more threads mostly wait on each other; and the worker processes of ``zolik eval
    --workers N``, or a run beside the match, would each start a thread per core. Measured
    on a 2-core machine with one core busy: ``zolik eval`` of two networks and the planner
    ran about 3x faster, with the same games (``docs/eval.md``). torch is not imported
    here: a match of agents without it sets nothing.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _play_steps(core: ModuleType, rules: Any, policies: Sequence[Any], seat_agent: np.ndarray,
                seeds: np.ndarray, gens: list[list[np.random.Generator]], keep_finished: bool,
                on_step: Callable[[np.ndarray, Any, np.ndarray], None] | None) -> Any:
    """``play_to_end``'s loop."""
    state = core.init(rules, seeds)
    alive = np.arange(seeds.size)  # original row id of each row of ``state``
    finished: list[tuple[np.ndarray, Any]] = []
    while alive.size:
        mask = core.legal_action_mask(rules, state)
        obs = core.observe(rules, state, state.current)
        acting = seat_agent[alive, state.current]
        actions = np.zeros(alive.size, np.int64)
        for a, policy in enumerate(policies):
            local = np.flatnonzero(acting == a)
            if local.size:
                actions[local] = _choose(policy, obs[local], mask[local], alive[local], gens[a],
                                         (rules, state, local) if core is game else None)
        live = ~state.done
        actions = np.where(live, actions, 0)
        legal = mask[np.arange(alive.size), actions] | ~live
        if not legal.all():
            b = int(np.flatnonzero(~legal)[0])
            name = getattr(policies[acting[b]], "name", type(policies[acting[b]]).__name__)
            raise ValueError(f"agent {name!r} chose illegal action {int(actions[b])} in "
                             f"game seed {int(seeds[alive[b]])}")
        if on_step is not None:
            on_step(alive[live], state.take(np.flatnonzero(live)), actions[live])
        state, _ = core.step(rules, state, actions, validate=False)
        over = np.full(alive.size, state.done.all()) if keep_finished else state.done
        if over.any():
            finished.append((alive[over], state.take(np.flatnonzero(over))))
            state, alive = state.take(np.flatnonzero(~over)), alive[~over]
    return _concat_states(finished)


def play_match(rules: RuleSet, policies: Sequence[Policy], seeds: Sequence[int] | np.ndarray,
               *, seed: int = 0, rng_scope: str = "deal",
               names: Sequence[str] | None = None,
               rotations: np.ndarray | None = None,
               record: str | Path | None = None) -> MatchResult:
    """Play every deal of ``seeds`` once per seat rotation (see the module docstring).

    All rotations of all deals step together as one batch through the core; at each
    step the rows are grouped by the agent to act, which sees only its seat's observation
    and the legal-action mask (a search agent: its seat's information state). An oracle
    (``agents.base.OraclePolicy``) is given the deal itself; reports mark it privileged.

    Args:
        rotations: int (R, P) the agent index at each seat, one row per seating played
            (default: ``seat_rotations``).
        record: a directory: write every game played there as a replay file
            (``zolik_env.envs.replay``, naming the agent in each seat), one file per deal
            and rotation, ``{A}-vs-{B}__{seed}__r{rotation}.jsonl``.

    Raises:
        ValueError: when an agent picks an illegal action (naming it and the deal).
    """
    seeds = np.asarray(seeds, np.int64)
    if rotations is None:
        rotations = seat_rotations(len(policies), rules.num_players)
    rotations = np.asarray(rotations, np.int64)
    r, d = len(rotations), seeds.size
    gens = _generators(seed, seeds, r, len(policies), rng_scope)
    agent_names = tuple(names) if names is not None else tuple(p.name for p in policies)
    moves: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def keep_moves(rows: np.ndarray, state: Any, actions: np.ndarray) -> None:
        moves.append((rows, state.turn.copy(), state.current.copy(), actions.copy()))

    final = play_to_end(game, rules, policies, np.repeat(rotations, d, axis=0),
                        np.tile(seeds, r), gens, on_step=keep_moves if record else None)
    if record:
        _write_replays(Path(record), rules, agent_names, rotations, seeds, moves, final)
    out = {"scores": final.scores.astype(np.int32),
           "rewards": game.rewards_of(rules, final).astype(np.int32),
           "opened": final.opened.astype(bool), "winner": final.winner.astype(np.int8),
           "truncated": final.truncated.astype(bool), "turns": final.turn.astype(np.int32)}

    def by_deal(x: np.ndarray) -> np.ndarray:  # rows r * D + d -> (D, R, ...)
        return np.swapaxes(x.reshape((r, d, *x.shape[1:])), 0, 1)

    return MatchResult(agent_names, rotations, seeds, **{k: by_deal(v) for k, v in out.items()})


def _write_replays(out: Path, rules: RuleSet, names: Sequence[str], rotations: np.ndarray,
                   seeds: np.ndarray, moves: list[tuple[np.ndarray, ...]], final: Any) -> None:
    """One replay file per game (batch row ``r * D + d``) of ``play_match``."""
    from zolik_env.envs.replay import Recorder

    rows, turns, seats, actions = (np.concatenate(part) for part in zip(*moves, strict=True))
    order = np.argsort(rows, kind="stable")  # moves of each game, in play order
    bounds = np.searchsorted(rows[order], np.arange(final.turn.size + 1))
    pair = "-vs-".join(re.sub(r"[^\w.+-]+", "_", n).strip("_") for n in names)
    out.mkdir(parents=True, exist_ok=True)
    for row in range(final.turn.size):
        r, d = divmod(row, seeds.size)
        recorder = Recorder(rules, [names[a] for a in rotations[r]])
        recorder.start_deal(int(seeds[d]), 0)
        for k in order[bounds[row]:bounds[row + 1]]:
            recorder.record_move(turns[k], seats[k], actions[k])
        recorder.end_deal(final.take(np.array([row])))
        recorder.save(out / f"{pair}__{int(seeds[d])}__r{r}.jsonl")


def play_dice(rules: DiceRules, agent: Any, num_games: int, seed: int = 0,
              batch: int = 4096, progress: Callable[[int], None] | None = None) -> GameStats:
    """Play ``num_games`` Pět kostek games with one agent at every seat, ``batch`` at a time.

    Game ``i`` uses game seed ``seed * 10**9 + i``, so two agents run with the same seed
    meet the same dice; the agent acts through ``act_batch`` with one generator seeded
    by ``seed`` for the whole run, on every game of a batch until the batch is over.
    ``progress`` is called with the games played so far after every batch.
    """
    gens = [[np.random.default_rng(seed)]]
    finals = []
    for start in range(0, num_games, batch):
        ids = np.arange(start, min(num_games, start + batch), dtype=np.int64)
        seat_agent = np.zeros((ids.size, rules.num_players), np.int64)
        finals.append(play_to_end(dice_game, rules, [agent], seat_agent, seed * 10**9 + ids, gens,
                                  keep_finished=True))
        if progress is not None:
            progress(int(ids[-1]) + 1)
    return game_stats(rules, finals)
