"""Round-robin duplicate matches of a pool of agents, over processes, with optional
sequential stopping; ``run(cfg)`` plays them, summarises and writes the report.

Work is cut into chunks of ``chunk_deals`` consecutive deal seeds per pair. Chunks run
in worker processes (``spawn``: safe with torch) and come back in submission order, so
every pair sees its chunks in seed order whatever the number of workers. Sequential
stopping looks at a pair's interval after each of its chunks (from ``min_deals`` on)
and drops the pair's later chunks; the stopping point depends only on the chunks
before it, so results are identical for any ``workers``.

Repeated looks make the nominal 95% level optimistic for the stopped pair (optional
stopping); use ``min_deals`` and treat a stop as a screening result.

**Agents in worker processes.** Each worker builds its agents once: a spec string is
resolved again by ``agents.registry.make_agent`` (with the registry as it was when the
run started, so kinds registered under a ``__main__`` guard work), a factory is called
with the rules, a Policy object is sent pickled. ``evaluate`` is the Python entry point.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import multiprocessing
import shutil
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from itertools import combinations
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
from tqdm import tqdm

from agents import registry
from agents.base import Policy, is_oracle_policy
from agents.registry import display_name, make_agent
from eval import stats
from eval.config import EvalConfig, make_config, prepare_out
from eval.harness import MatchResult, concat_results, play_match
from eval.lifeline import die_with_parent
from eval.result import EvalResult
from eval.summary import Pair, summarize_pool
from zolik_env.rummy.options import RuleSet, preset, rule_options_of

Task = tuple[Pair, np.ndarray]  # (pair of agent indices, deal seeds)
# what plays a seat: a spec, a Policy object, or a factory ``f(rules) -> Policy``
Agent: TypeAlias = str | Policy | Callable[[RuleSet], Policy]


def unique_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: the spec, with ``#2``, ``#3`` ... for repeated specs."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(names)


_WORKER: dict[str, Any] = {}


def is_policy(agent: Any) -> bool:
    """A Policy object (has ``act``), as opposed to a spec or a factory (a class is one)."""
    return not isinstance(agent, type) and callable(getattr(agent, "act", None))


def build_agent(agent: Agent, rules: RuleSet) -> Policy:
    """The Policy for a spec, a factory ``f(rules)`` or a Policy object (as it is)."""
    if isinstance(agent, str):
        return make_agent(agent, rules)
    if is_policy(agent):
        return agent  # type: ignore[return-value]
    if callable(agent):
        policy = agent(rules)
        if not is_policy(policy):
            raise ValueError(f"agent factory {agent!r} returned {type(policy).__name__}, "
                             f"not a Policy")
        return policy  # type: ignore[no-any-return]
    raise ValueError(f"agent {agent!r}: give a spec, a Policy or a factory f(rules)")


def agent_name(agent: Agent) -> str:
    """Display name: a spec's ``NAME=`` or the spec, a Policy's ``name``, a factory's name."""
    if isinstance(agent, str):
        return display_name(agent)
    name = getattr(agent, "name", None)
    if is_policy(agent) and isinstance(name, str):
        return name
    return str(getattr(agent, "__name__", type(agent).__name__))


def _init_worker(rules: RuleSet, agents: Sequence[Agent], names: Sequence[str], seed: int,
                 rng_scope: str, kinds: dict[str, str] | None = None,
                 record: str = "", store: str = "") -> None:
    """Build the agents once per process (``kinds``: the parent's agent registry)."""
    registry.AGENTS.update(kinds or {})
    built = [build_agent(a, rules) for a in agents]
    _WORKER.update(rules=rules, policies=built, names=tuple(names), seed=seed,
                   rng_scope=rng_scope, record=record, store=store)


def _start_worker(*init_args: Any) -> None:
    """A pool worker's start: bound to its parent's life (``lifeline``), then its agents."""
    die_with_parent()
    _init_worker(*init_args)


def _play_task(task: Task) -> MatchResult:
    """The chunk's result: read back from the chunk store when an earlier, interrupted
    run of the same evaluation saved it, else played."""
    (i, j), seeds = task
    w = _WORKER
    saved = chunk_path(Path(w["store"]), task) if w["store"] else None
    if saved is not None and saved.exists():
        return load_chunk(saved, task)
    return play_match(w["rules"], [w["policies"][i], w["policies"][j]], seeds, seed=w["seed"],
                      rng_scope=w["rng_scope"], names=[w["names"][i], w["names"][j]],
                      record=w["record"] or None)


def chunk_id(task: Task) -> str:
    """The name of a chunk: its pair and its first and last deal seeds."""
    (i, j), seeds = task
    return f"pair{i}-{j}_deals{int(seeds[0])}-{int(seeds[-1])}"


def chunk_path(store: Path, task: Task) -> Path:
    return store / f"{chunk_id(task)}.npz"


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over every array's name, dtype, shape and bytes, in field order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_chunk(path: Path, result: MatchResult, task: Task | None = None) -> None:
    """Write one chunk's result atomically (a kill mid-write leaves no chunk file), with
    its chunk id (``task``'s, else the file's name) and the checksum of its arrays."""
    tmp = path.with_name(f".{path.stem}.tmp.npz")
    arrays = {f.name: np.asarray(getattr(result, f.name)) for f in fields(MatchResult)}
    ident = chunk_id(task) if task is not None else path.stem
    np.savez(tmp, **arrays, chunk_id=np.asarray(ident),
             checksum=np.asarray(_checksum(arrays)))
    tmp.replace(path)


def load_chunk(path: Path, task: Task | None = None) -> MatchResult:
    """A saved chunk, checked: it reads, it is the chunk of ``task`` (its id and seeds),
    and its arrays have the checksum written with them.

    Raises:
        ValueError: naming the file and what is wrong (damaged, cut short, another
            chunk's file, altered); delete it and ``--resume`` plays that chunk again.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {f.name: z[f.name] for f in fields(MatchResult)}
            ident, checksum = str(z["chunk_id"]), str(z["checksum"])
    except Exception as err:  # a zip cut short, a missing array, not a zip at all
        raise ValueError(f"chunk {path} is damaged ({type(err).__name__}: {err}); delete it "
                         f"to play that chunk again") from None
    expected = chunk_id(task) if task is not None else path.stem
    if ident != expected:
        raise ValueError(f"chunk {path} holds chunk {ident!r}, not {expected!r}: delete it "
                         f"to play that chunk again")
    if checksum != _checksum(arrays):
        raise ValueError(f"chunk {path} does not match its checksum: delete it to play that "
                         f"chunk again")
    if task is not None and not np.array_equal(arrays["seeds"], np.asarray(task[1])):
        raise ValueError(f"chunk {path} holds other deal seeds than {expected!r}")
    values: dict[str, Any] = dict(arrays)
    values["agents"] = tuple(str(a) for a in values["agents"])
    return MatchResult(**values)


def open_store(cfg: EvalConfig, store: Path) -> Path:
    """The chunk store of ``cfg``'s evaluation: created with the config it belongs to, or,
    with ``cfg.resume``, reused when it holds the same evaluation (same agents, rules,
    deals and seeds); without ``resume`` an existing store is cleared.

    Raises:
        ValueError: when ``store`` holds chunks of another evaluation.
    """
    key = {k: v for k, v in cfg.to_dict().items() if k not in _NOT_IN_RESULTS}
    marker = store / "evaluation.json"
    if store.exists() and not cfg.resume:
        shutil.rmtree(store)  # a fresh evaluation: results of an earlier one are not reused
    if marker.exists():
        try:
            held = json.loads(marker.read_text(encoding="utf-8"))
        except (ValueError, OSError) as err:
            raise ValueError(f"{marker} is damaged ({type(err).__name__}): delete {store} to "
                             f"start over") from None
        if held != json.loads(json.dumps(key)):
            raise ValueError(f"{store} holds the results of another evaluation: give another "
                             f"--out, or delete {store} to start over")
    else:
        store.mkdir(parents=True, exist_ok=True)
        tmp = marker.with_name(".evaluation.json.tmp")
        tmp.write_text(json.dumps(key, indent=1), encoding="utf-8")
        tmp.replace(marker)
    return store


# options that change how an evaluation runs or is reported, not its deal results
_NOT_IN_RESULTS = ("out", "resume", "workers", "progress", "plots", "record", "sequential",
                   "min_deals", "confidence", "bootstrap", "chunk_deals", "backend", "address")


def _ordered_results(tasks: Iterator[Task], skip: Callable[[Task], bool], workers: int,
                     init_args: tuple[Any, ...]) -> Iterator[tuple[Task, MatchResult]]:
    """Play tasks (skipping those ``skip`` rejects when their turn to start comes) and
    yield their results in task order; up to 2 x ``workers`` tasks run ahead."""
    if workers <= 1:
        _init_worker(*init_args)
        for task in tasks:
            if not skip(task):
                yield task, _play_task(task)
        return
    context = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                initargs=init_args) as pool:
        window: deque[tuple[Task, cf.Future[MatchResult]]] = deque()

        def fill() -> None:
            while len(window) < 2 * workers:
                task = next((t for t in tasks if not skip(t)), None)
                if task is None:
                    return
                window.append((task, pool.submit(_play_task, task)))

        fill()
        while window:
            task, future = window.popleft()
            yield task, future.result()
            fill()


def _tasks(cfg: EvalConfig, pairs: Sequence[Pair]) -> Iterator[Task]:
    """Chunk-major order: chunk 0 of every pair, then chunk 1, ..."""
    seeds = cfg.seed_start + np.arange(cfg.deals, dtype=np.int64)
    for start in range(0, cfg.deals, cfg.chunk_deals):
        for pair in pairs:
            yield pair, seeds[start:start + cfg.chunk_deals]


def _should_stop(cfg: EvalConfig, parts: list[MatchResult]) -> bool:
    match = concat_results(parts)
    if not cfg.sequential or match.num_deals < cfg.min_deals:
        return False
    diff = stats.pair_difference(match)
    return stats.excludes_zero(stats.summarize(diff, cfg.confidence, cfg.bootstrap, cfg.seed))


def play_pool(cfg: EvalConfig, policies: Sequence[Agent] | None = None,
              store: Path | None = None
              ) -> tuple[tuple[str, ...], dict[Pair, MatchResult], set[Pair]]:
    """Play every pair of ``cfg.agents`` (or of ``policies``: Policy objects or factories,
    named by ``cfg.agents``). With a chunk ``store`` (``open_store``) each chunk's result
    is saved as it comes in, and chunks saved there before are read back, not replayed.

    Returns:
        (agent names, match per pair (i, j) with i < j, pairs stopped early).
    """
    names = unique_names([display_name(a) for a in cfg.agents])
    if policies is not None and len(policies) != len(names):
        raise ValueError(f"{len(policies)} policies for {len(names)} agent names")
    pairs = list(combinations(range(len(names)), 2))
    parts: dict[Pair, list[MatchResult]] = {pair: [] for pair in pairs}
    stopped: set[Pair] = set()
    if cfg.record:
        try:
            Path(cfg.record).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OSError(f"cannot write replays to {cfg.record}: "
                          f"{error.strerror or error}") from None
    agents = list(policies) if policies is not None else list(cfg.agents)
    init_args = (cfg.rules(), agents, names, cfg.seed, cfg.rng_scope, dict(registry.AGENTS),
                 cfg.record, str(store) if store is not None else "")
    total = cfg.deals * len(pairs)
    with tqdm(total=total, desc="deals", unit="deal", disable=not cfg.progress) as bar:
        skip: Callable[[Task], bool] = lambda t: t[0] in stopped  # noqa: E731
        if cfg.backend == "ray":
            from eval import ray_backend

            results = ray_backend.ordered_results(_tasks(cfg, pairs), skip, cfg.workers,
                                                  _init_worker, _play_task, init_args,
                                                  cfg.address)
        else:
            results = _ordered_results(_tasks(cfg, pairs), skip, cfg.num_workers(), init_args)
        for (pair, seeds), result in results:
            if pair in stopped:
                continue
            if store is not None and not chunk_path(store, (pair, seeds)).exists():
                save_chunk(chunk_path(store, (pair, seeds)), result, (pair, seeds))
            parts[pair].append(result)
            bar.update(seeds.size)
            if _should_stop(cfg, parts[pair]):
                stopped.add(pair)
                bar.total -= cfg.deals - sum(p.num_deals for p in parts[pair])
                bar.refresh()
    return names, {pair: concat_results(p) for pair, p in parts.items()}, stopped


def privileged_names(cfg: EvalConfig, names: Sequence[str],
                     policies: Sequence[Agent] | None) -> list[str]:
    """The names of the oracles among the agents (``agents.base.OraclePolicy``): a spec
    is read as it is (``oracle:...``), a Policy object or a factory's product is asked."""
    agents = list(policies) if policies is not None else list(cfg.agents)
    return [name for name, agent in zip(names, agents, strict=True)
            if (registry.is_privileged_spec(agent) if isinstance(agent, str)
                else is_oracle_policy(build_agent(agent, cfg.rules())))]


def run(cfg: EvalConfig, policies: Sequence[Agent] | None = None,
        write: bool = True) -> EvalResult:
    """Play, summarise and (with ``write``) write the report into the run directory,
    which is created and checked before the first deal (``config.prepare_out``)."""
    out = prepare_out(cfg) if write else None
    store = open_store(cfg, out / "chunks") if out is not None else None
    names, matches, stopped = play_pool(cfg, policies, store)
    summary = summarize_pool(names, matches, cfg.players, stopped, cfg.confidence,
                             cfg.bootstrap, cfg.seed,
                             privileged_names(cfg, names, policies))
    result = EvalResult(cfg, names, matches, summary, stopped)
    if write:
        from eval.report import write_report  # matplotlib only when writing

        result.out_dir = write_report(result, out)
    return result


def evaluate(agents: Sequence[Agent], rules: RuleSet | str = "cz", *, players: int | None = None,
             deals: int = 200, names: Sequence[str] | None = None, workers: int = 1,
             seed: int = 0, write: bool = False, progress: bool = False,
             **config: Any) -> EvalResult:
    """Duplicate-deal round robin of ``agents``, from Python; returns the ``EvalResult``.

    Args:
        agents: two or more of: a spec (``"greedy"``, ``"ppo:PATH"``,
            ``"mine=mypkg.mymod:make_agent"``), a Policy object, or a factory
            ``f(rules) -> Policy`` (a function or a class). With ``workers > 1`` every
            agent is rebuilt in each worker process: a spec from its name, a factory
            pickled by reference (define it at module level), a Policy object pickled
            whole; Policy objects that cannot be pickled need ``workers=1``.
        rules: a ``RuleSet`` or a preset name (``cz``, ``sk``, ``jolly``).
        players: seats (default: the rule set's, 2 for a preset name).
        names: display names, one per agent (default: a spec's ``NAME=`` or the spec, a
            Policy's ``name``, a factory's ``__name__``).
        write: also write the report into ``config["out"]`` (or ``runs/eval__...``).
        config: further ``EvalConfig`` keys (``chunk_deals``, ``rng_scope``, ``record``, ...).
    """
    if isinstance(rules, str):
        rules = preset(rules, num_players=players or 2)
    elif players is not None and players != rules.num_players:
        rules = preset(rules.name, num_players=players, **rule_options_of(rules))
    shown = tuple(names) if names is not None else tuple(agent_name(a) for a in agents)
    if len(shown) != len(agents):
        raise ValueError(f"{len(shown)} names for {len(agents)} agents")
    values = {"agents": shown, "preset": rules.name,
              "players": rules.num_players, "rule_options": rule_options_of(rules),
              "deals": deals, "workers": workers, "seed": seed, "progress": progress,
              "plots": write, **config}
    specs_only = names is None and all(isinstance(a, str) for a in agents)
    if specs_only:
        values["agents"] = tuple(agents)  # the report's config.yaml can then be re-run
    return run(make_config(values, "evaluate()"), None if specs_only else list(agents),
               write=write)
