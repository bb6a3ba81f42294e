"""The evaluation config: a frozen, validated model loaded from YAML (``configs/eval/*.yaml``).

Unknown keys and bad values raise ``ValueError`` naming the field, the value and the file
(the kit's one config model, ``zolik_env.config_model``). Evaluation deals never
repeat training deals: the seed ranges (``zolik_env.seeds``) put training below
``TRAIN_SEED_LIMIT`` (10^9); evaluation deals start at ``EVAL_SEED_START`` (2·10^9) by
default and may never reach below ``TRAIN_SEED_LIMIT``.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator

from zolik_env.config_model import ConfigModel, StrTuple, build, one_of, read_values
from zolik_env.rummy.options import PRESETS, RuleSet, preset
from zolik_env.seeds import EVAL_SEED_START, TRAIN_SEED_LIMIT

RNG_SCOPES = ("deal", "chunk")
BACKENDS = ("local", "ray")
MAX_DEAL_SEED = 2**63 - 1  # deal seeds are int64


class EvalConfig(ConfigModel):
    """One evaluation run: who plays, which deals, how to summarise."""

    agents: StrTuple = ("random", "random")
    """Agent specs for ``agents.registry.make_agent``: random, greedy, planner, ppo:PATH,
    package.module:factory, each optionally NAME=SPEC (the name shown in the reports).
    Two or more; every pair plays a duplicate match (round robin)."""
    preset: str = "cz"
    """Rule preset: cz, sk or jolly."""
    players: int = 2
    """Seats at the table (2..4); two agents share the seats alternately (A B A B)."""
    rule_options: dict[str, Any] = Field(default_factory=dict)
    """Extra rule options for ``options.preset`` (e.g. ``opening_points: 51``)."""
    deals: int = Field(200, ge=1)
    """Duplicate deals per pair (each is played once per seat rotation)."""
    seed_start: int = EVAL_SEED_START
    """First deal seed; deal i uses seed_start + i. Must be >= 10^9 (training range)."""
    seed: int = 0
    """Seed of the agents' random generators and of the bootstrap."""
    chunk_deals: int = Field(16, ge=1)
    """Deals per work unit (a batch through the core; the unit of sequential stopping)."""
    workers: int = Field(0, ge=0)
    """Worker processes; 0 = all local cores, 1 = in this process."""
    rng_scope: str = "deal"
    """deal: one generator per (deal, rotation, agent), agents act row by row, results are
    independent of chunk_deals; chunk: one generator per (chunk, agent), agents act on
    whole batches (faster for networks; results depend on chunk_deals, never on workers)."""
    sequential: bool = False
    """Stop a pair early once the interval of its score difference excludes zero."""
    min_deals: int = Field(64, ge=1)
    """Sequential stopping looks at the interval only from this many deals on."""
    confidence: float = Field(0.95, gt=0, lt=1)
    """Level of the bootstrap intervals."""
    bootstrap: int = Field(2000, ge=1)
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
    backend: str = "local"
    """Where chunks run: ``local`` (worker processes here) or ``ray`` (Ray tasks on a
    local Ray instance or a cluster, ``eval.ray_backend``; needs the ``[ray]`` extra)."""
    address: str = ""
    """With ``backend: ray``: ``auto`` (the cluster this machine joined), ``HOST:PORT`` of
    a head node, or empty for a local Ray instance with ``workers`` CPUs."""
    resume: bool = False
    """Continue an interrupted evaluation in ``out``: chunks saved there by a run of the
    same evaluation are read back instead of replayed. Without it, old chunks in ``out``
    are cleared first (a retrained agent of the same name is played again)."""

    def rules(self) -> RuleSet:
        """The rule set of this run."""
        return preset(self.preset, num_players=self.players, **self.rule_options)

    def num_workers(self) -> int:
        return self.workers or os.cpu_count() or 1

    _preset = field_validator("preset")(one_of(PRESETS))
    _rng_scope = field_validator("rng_scope")(one_of(RNG_SCOPES))
    _backend = field_validator("backend")(one_of(BACKENDS))

    @field_validator("agents")
    @classmethod
    def _two_or_more(cls, agents: tuple[str, ...]) -> tuple[str, ...]:
        if len(agents) < 2:
            raise ValueError("need two or more agents")
        return agents

    @field_validator("players")
    @classmethod
    def _seats(cls, players: int) -> int:
        if not 2 <= players <= 4:
            raise ValueError("Žolík is played by 2 to 4")
        return players

    @field_validator("seed_start")
    @classmethod
    def _held_out(cls, seed_start: int) -> int:
        if seed_start < TRAIN_SEED_LIMIT:
            raise ValueError(f"overlaps the training seeds [0, {TRAIN_SEED_LIMIT}); use >= "
                             f"{TRAIN_SEED_LIMIT}")
        return seed_start

    @model_validator(mode="after")
    def _deals_fit(self) -> EvalConfig:
        if self.seed_start + self.deals > MAX_DEAL_SEED:
            raise ValueError(f"seed_start={self.seed_start} + {self.deals} deals passes the "
                             f"largest deal seed {MAX_DEAL_SEED} (2^63 - 1)")
        return self


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
