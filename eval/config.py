"""The evaluation config: a frozen dataclass loaded from YAML (``configs/eval/*.yaml``).

Unknown keys and bad values raise ``ValueError`` naming them (the kit's one loader,
``zolik_env.config_loader``). Evaluation deals never
repeat training deals: the seed ranges (``zolik_env.seeds``) put training below
``TRAIN_SEED_LIMIT`` (10^9); evaluation deals start at ``EVAL_SEED_START`` (2·10^9) by
default and may never reach below ``TRAIN_SEED_LIMIT``.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zolik_env.config_loader import build, plain_dict, read_values
from zolik_env.rummy.options import PRESETS, RuleSet, preset
from zolik_env.seeds import EVAL_SEED_START, TRAIN_SEED_LIMIT

RNG_SCOPES = ("deal", "chunk")


@dataclass(frozen=True)
class EvalConfig:
    """One evaluation run: who plays, which deals, how to summarise."""

    agents: tuple[str, ...] = ("random", "random")
    """Agent specs for ``agents.registry.make_agent``: random, greedy, planner, ppo:PATH,
    package.module:factory, each optionally NAME=SPEC (the name shown in the reports).
    Two or more; every pair plays a duplicate match (round robin)."""
    preset: str = "cz"
    """Rule preset: cz, sk or jolly."""
    players: int = 2
    """Seats at the table (2..4); two agents share the seats alternately (A B A B)."""
    rule_options: dict[str, Any] = field(default_factory=dict)
    """Extra rule options for ``options.preset`` (e.g. ``opening_points: 51``)."""
    deals: int = 200
    """Duplicate deals per pair (each is played once per seat rotation)."""
    seed_start: int = EVAL_SEED_START
    """First deal seed; deal i uses seed_start + i. Must be >= 10^9 (training range)."""
    seed: int = 0
    """Seed of the agents' random generators and of the bootstrap."""
    chunk_deals: int = 16
    """Deals per work unit (a batch through the core; the unit of sequential stopping)."""
    workers: int = 0
    """Worker processes; 0 = all local cores, 1 = in this process."""
    rng_scope: str = "deal"
    """deal: one generator per (deal, rotation, agent), agents act row by row, results are
    independent of chunk_deals; chunk: one generator per (chunk, agent), agents act on
    whole batches (faster for networks; results depend on chunk_deals, never on workers)."""
    sequential: bool = False
    """Stop a pair early once the interval of its score difference excludes zero."""
    min_deals: int = 64
    """Sequential stopping looks at the interval only from this many deals on."""
    confidence: float = 0.95
    """Level of the bootstrap intervals."""
    bootstrap: int = 2000
    """Bootstrap resamples (over deals) per interval."""
    out: str = ""
    """Run directory; empty = runs/eval__{preset}{players}p__{seed}__{time}."""
    plots: bool = True
    """Write the report's plots (matplotlib, Agg)."""
    progress: bool = True
    """Show a tqdm progress bar."""
    record: str = ""
    """Directory to write every game played into, one replay file each (``zolik replay``
    reads them; each names the agent in every seat); empty = none."""
    resume: bool = False
    """Continue an interrupted evaluation in ``out``: chunks saved there by a run of the
    same evaluation are read back instead of replayed. Without it, old chunks in ``out``
    are cleared first (a retrained agent of the same name is played again)."""

    def __post_init__(self) -> None:
        _check(self)

    def rules(self) -> RuleSet:
        """The rule set of this run."""
        return preset(self.preset, num_players=self.players, **self.rule_options)

    def num_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    def to_dict(self) -> dict[str, Any]:
        return plain_dict(self)


MAX_DEAL_SEED = 2**63 - 1  # deal seeds are int64


def _check(cfg: EvalConfig) -> None:
    problems = []
    if len(cfg.agents) < 2:
        problems.append(f"agents: need two or more, got {list(cfg.agents)}")
    if cfg.preset not in PRESETS:
        problems.append(f"preset: {cfg.preset!r} not in {PRESETS}")
    if not 2 <= cfg.players <= 4:
        problems.append(f"players: {cfg.players} not in 2..4")
    if cfg.seed_start < TRAIN_SEED_LIMIT:
        problems.append(f"seed_start: {cfg.seed_start} overlaps the training seeds "
                        f"[0, {TRAIN_SEED_LIMIT}); use >= {TRAIN_SEED_LIMIT}")
    elif cfg.seed_start + cfg.deals > MAX_DEAL_SEED:
        problems.append(f"seed_start: {cfg.seed_start} + {cfg.deals} deals passes the largest "
                        f"deal seed {MAX_DEAL_SEED} (2^63 - 1)")
    for name in ("deals", "chunk_deals", "bootstrap", "min_deals"):
        if getattr(cfg, name) < 1:
            problems.append(f"{name}: must be >= 1, got {getattr(cfg, name)}")
    if cfg.workers < 0:
        problems.append(f"workers: must be >= 0, got {cfg.workers}")
    if cfg.rng_scope not in RNG_SCOPES:
        problems.append(f"rng_scope: {cfg.rng_scope!r} not in {RNG_SCOPES}")
    if not 0 < cfg.confidence < 1:
        problems.append(f"confidence: {cfg.confidence} not in (0, 1)")
    if problems:
        raise ValueError("bad eval config: " + "; ".join(problems))


def make_config(values: dict[str, Any], source: str = "eval config") -> EvalConfig:
    """An ``EvalConfig`` from a mapping; unknown keys raise ``ValueError`` naming them."""
    values = dict(values)
    if values.get("rule_options") is None:
        values.pop("rule_options", None)
    return build(EvalConfig, values, source)


def load_config(path: str | Path | None = None, **overrides: Any) -> EvalConfig:
    """The config in YAML file ``path`` (or the defaults) with ``overrides`` applied;
    overrides whose value is ``None`` are ignored."""
    source = str(path) if path is not None else "eval config"
    return make_config(read_values(path, overrides, skip_none=True), source)


def out_path(cfg: EvalConfig) -> Path:
    """Where the report of ``cfg`` goes: ``cfg.out`` or a new timestamped run dir."""
    if cfg.out:
        return Path(cfg.out)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("runs") / f"eval__{cfg.preset}{cfg.players}p__{cfg.seed}__{stamp}"


def prepare_out(cfg: EvalConfig) -> Path:
    """Create the report directory and check it takes files, before any deal is played.

    Raises:
        OSError: one line naming the directory and the reason (an existing file there,
            no permission, a full disk).
    """
    out = out_path(cfg)
    probe = out / ".write_check"
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as error:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)
        raise OSError(f"cannot write the report to {out}: {error.strerror or error}") from None
    return out
