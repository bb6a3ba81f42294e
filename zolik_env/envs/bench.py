"""Throughput of the PettingZoo AEC loop of ``zolik_v0``: one deal at a time, as most
users step it; and, for comparison, of two gin rummy engines stepped from Python the same
way (with the ``bench`` extra): OpenSpiel's (``zolik bench --openspiel``) and RLCard's
(``zolik bench --rlcard``), the engine PettingZoo's ``gin_rummy_v4`` wrapped until
PettingZoo 1.25 dropped it.

Each decision reads ``env.last()`` (the acting agent's observation and action mask, as
an agent needs them) and plays a uniformly random legal move; a finished deal is
followed by ``reset`` with the next seed. ``zolik bench --aec`` prints it beside the
core's rows (``zolik_env.rummy.bench``): the same table, with ``aec`` in the batch
column. Never a timed test: compare ratios from one run.

``zolik bench --vector`` adds, for each batch size B, the row of the Gymnasium vector env
that ``gymnasium.make_vec("zolik/Zolik-v0", num_envs=B)`` builds (``make_vec B`` in the
batch column): a uniformly random legal learner move per row from ``info["action_mask"]``,
random opponents, every learner and opponent move counted as a decision, and its
decisions/s as a share of the core's at the same batch (``format_vector_shares``).
"""

from __future__ import annotations

import time

import gymnasium
import numpy as np

from zolik_env.envs.zolik_aec import env as make_env
from zolik_env.rummy import game, options
from zolik_env.rummy.bench import BenchRow, mean_deal_length


def bench_aec(preset: str, players: int, seconds: float, seed: int = 0) -> BenchRow:
    """Random legal play through ``zolik_v0.env`` for about ``seconds``."""
    rules = options.preset(preset, num_players=players)
    env = make_env(rules=rules)
    rng = np.random.default_rng(seed)
    deal_seed = seed * 1_000_000
    env.reset(seed=deal_seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            if not env.agents:
                deal_seed += 1
                env.reset(seed=deal_seed)
            continue
        env.step(random_legal(obs["action_mask"], rng))
        decisions += 1
    elapsed = time.perf_counter() - start
    raw = env.unwrapped
    return BenchRow(preset, players, 0, decisions / elapsed,
                    decisions / elapsed / mean_deal_length(rules), float("nan"),
                    raw.core_state.nbytes() / 2**20)


def bench_vector(preset: str, players: int, num_envs: int, seconds: float,
                 seed: int = 0) -> BenchRow:
    """Random legal play through ``gymnasium.make_vec("zolik/Zolik-v0", num_envs=...)``
    for about ``seconds``: learner moves from ``info["action_mask"]``, random opponents;
    decisions are the learner's and the opponents' moves (``num_decisions``)."""
    envs = gymnasium.make_vec("zolik/Zolik-v0", num_envs=num_envs, rules=preset,
                              num_players=players)
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    raw = envs.unwrapped
    before = raw.num_decisions
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        info = envs.step(game.sample_legal(info["action_mask"], rng))[4]
    elapsed = time.perf_counter() - start
    rate = (raw.num_decisions - before) / elapsed
    return BenchRow(preset, players, 0, rate, rate / mean_deal_length(raw.rules), float("nan"),
                    raw.state.nbytes() / 2**20, loop=f"make_vec {num_envs}")


def format_vector_shares(rows: list[BenchRow]) -> str:
    """One line per ``make_vec B`` row: its decisions/s as a share of the core's row of the
    same preset, players and batch B (both measured in this run)."""
    core = {(r.preset, r.players, r.batch): r.decisions_per_s for r in rows if r.batch}
    lines = ["make_vec against the raw core at the same batch (same run):"]
    for r in rows:
        if r.batch == 0 and r.loop.startswith("make_vec "):
            batch = int(r.loop.split()[1])
            base = core.get((r.preset, r.players, batch))
            if base:
                lines.append(f"  {r.preset} {r.players}p batch {batch}: "
                             f"{r.decisions_per_s / base:.2f} of the core's decisions/s")
    return "\n".join(lines)


def bench_openspiel(seconds: float, seed: int = 0) -> BenchRow:
    """OpenSpiel's gin rummy (2 players) from its Python API for about ``seconds``: an
    observation tensor and the legal-action mask every decision, a uniformly random legal
    move, chance outcomes (the deal, the draws) sampled by their probabilities; the
    loop an OpenSpiel user writes, for comparison with ``bench_aec`` and the core's
    batch-1 row. Needs the ``bench`` extra (``pip install zolik[bench]``)."""
    try:
        import pyspiel
    except ImportError as error:
        raise RuntimeError("OpenSpiel is not installed: pip install 'zolik[bench]' "
                           "(open_spiel)") from error
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(seed)
    decisions = deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(_sample_outcome(state.chance_outcomes(), rng.random()))
                continue
            state.observation_tensor()
            mask = np.asarray(state.legal_actions_mask(), bool)
            state.apply_action(random_legal(mask, rng))
            decisions += 1
        deals += 1
    elapsed = time.perf_counter() - start
    return BenchRow("gin_rummy", 2, 0, decisions / elapsed, deals / elapsed, float("nan"),
                    float("nan"), loop="openspiel")


def bench_rlcard(seconds: float, seed: int = 0) -> BenchRow:
    """RLCard's gin rummy (2 players) for about ``seconds``: its observation and legal
    actions every decision (``env.step`` returns them), made into a mask, a uniformly
    random legal move. PettingZoo's ``gin_rummy_v4`` was this env under PettingZoo's AEC
    wrapper, so it ran no faster than this loop: a ratio to this row is a lower bound of
    the ratio to ``gin_rummy_v4``. Needs the ``bench`` extra."""
    try:
        import rlcard
    except ImportError as error:
        raise RuntimeError("RLCard is not installed: pip install 'zolik[bench]' "
                           "(rlcard)") from error
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = np.random.default_rng(seed)
    mask = np.zeros(env.num_actions, bool)
    decisions = deals = 0
    start = time.perf_counter()
    state, _ = env.reset()
    while time.perf_counter() - start < seconds:
        mask[:] = False
        mask[list(state["legal_actions"])] = True
        state, _ = env.step(random_legal(mask, rng))
        decisions += 1
        if env.is_over():
            deals += 1
            state, _ = env.reset()
    elapsed = time.perf_counter() - start
    return BenchRow("gin_rummy", 2, 0, decisions / elapsed, deals / elapsed, float("nan"),
                    float("nan"), loop="rlcard")


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action of one mask (both loops pick their moves alike)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])


def _sample_outcome(outcomes: list[tuple[int, float]], uniform: float) -> int:
    """The chance outcome at ``uniform`` on the cumulative probabilities."""
    total = 0.0
    for action, probability in outcomes:
        total += probability
        if uniform < total:
            return int(action)
    return int(outcomes[-1][0])
