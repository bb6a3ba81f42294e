"""The PPO self-play config: ``configs/ppo/*.yaml`` -> a frozen ``PPOConfig``.

Unknown keys and bad values raise ``ValueError`` naming them; ``--set key=value``
overrides are parsed as YAML values (``--set net_arch=[128,128]``). Loaded by the kit's
one config loader, ``zolik_env.config_loader``.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
from typing import Any

import yaml

from agents.hand_features import check_features, has_hand_features
from zolik_env.config_loader import build, plain_dict, read_values
from zolik_env.envs.zolik_common import REWARD_MODES, make_rules
from zolik_env.rummy.options import RuleSet

TEACHERS = ("planner", "greedy")  # agents a warm start may imitate (train.imitation)
SELF_KINDS = ("latest", "past")  # pool entries that are snapshots of the learner
BASELINES = ("random", "greedy", "planner")
SPEC_FORMS = ("pretrained:NAME", "ppo:PATH", "pkg.mod:factory")


def is_agent_spec(name: str) -> bool:
    """Whether ``name`` has the form of an agent an opponent pool can hold: a baseline or
    one of ``SPEC_FORMS`` (``agents.registry.make_agent`` builds it when the run starts,
    and names what is wrong with it then)."""
    if name in BASELINES:
        return True
    kind, _, argument = name.partition(":")
    return bool(argument) and (kind in ("pretrained", "ppo") or "." in kind)


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    exp_name: str = "ppo_cz2p"
    """Run dirs are ``{run_root}/{exp_name}__{seed}__{time}``."""
    preset: str = "cz"
    """Rules preset: cz, sk or jolly."""
    players: int = 2
    """Seats at the table (2..4); the learner takes one, the pool fills the others."""
    rule_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Extra ``rules.preset`` options, e.g. ``{opening_points: 51}``."""
    reward: str = "score"
    """``score`` (zero-sum deal score / 100) or ``win_loss``; always the learner's seat's."""
    shaping: float = 0.0
    """Potential-based reward shaping: this times the hand points the learner has shed
    since the deal began, / 100, as the potential (``train.zolik_vec``); 0 = none."""
    obs_features: str = "hand"
    """``hand``: append the hand features of ``agents.hand_features`` (the best melds of
    the own hand, whether it can open) to the learner's observation; ``hand+cards``: also
    each card kind's keep value, danger and table fit (``agents.card_features``); ``""``:
    none. The network records its choice, so its checkpoints play with the same features."""
    plan_prior: bool = True
    """With hand features (``hand``, ``hand+cards``): moves that follow the hand's plan get
    a learned bonus on their logits (``agents.ppo_net.PlanPrior``); false: the plain
    action layer."""
    seed: int = 1
    """Seeds the deals, the seats, the pool's draws, the network and PPO's sampling."""
    total_steps: int = 5_000_000
    """Learner decisions to train for (opponents' moves are not counted)."""
    time_budget_minutes: float = 0.0
    """Wall-clock budget of a session (training and evaluation); 0 = none."""
    num_envs: int = 256
    """Deals stepped together in the batched VecEnv."""
    n_steps: int = 32
    """Steps per env per rollout (rollout = num_envs * n_steps decisions)."""
    batch_size: int = 1024
    n_epochs: int = 3
    learning_rate: float = 1.0e-4
    gamma: float = 0.998
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.001
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: tuple[int, ...] = (256, 256)
    """Hidden layers of the separate policy and value MLPs."""
    pool: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"latest": 0.3, "past": 0.2, "planner": 0.3, "greedy": 0.2})
    """Opponent mix, drawn per seat and deal: ``latest`` (newest snapshot of the learner),
    ``past`` (an older snapshot, uniformly), baselines random, greedy, planner, and any
    agent spec (``pretrained:cz_2p``, ``ppo:PATH``, ``pkg.mod:factory``)."""
    pool_focus: float = 1.0
    """Prioritised self-play: each kind's weight is multiplied by ``(1 - win share)``
    to this power, the learner's recent win share against that kind (0 = fixed weights)."""
    snapshot_every: int = 100_000
    """Add a snapshot of the learner to the pool every this many steps."""
    pool_size: int = 8
    """Snapshots kept in the pool (the oldest leave first)."""
    checkpoint_every: int = 200_000
    """Save ``checkpoints/step_{N}.zip`` every this many steps (and always at exit)."""
    eval_every: int = 300_000
    """Evaluate against ``eval_opponents`` every this many steps (and at the end); 0 = never."""
    eval_opponents: tuple[str, ...] = ("greedy", "planner")
    """Opponents of the periodic duplicate-deal evaluation (held-out deal seeds): baselines
    or agent specs, as in ``pool``."""
    eval_deals: int = 32
    """Duplicate deals per evaluation and opponent."""
    teacher: str = "planner"
    """Warm start: ``planner`` or ``greedy`` plays every seat of deals on the batched core,
    the new network learns its moves and the returns (``train.imitation``) before PPO
    starts; ``""`` = start from random weights. Not used when resuming."""
    teacher_decisions: int = 400_000
    """Teacher decisions to learn from (cached in ``{run_root}/teacher_cache``)."""
    teacher_epochs: int = 4
    """Passes over the teacher's decisions."""
    teacher_learning_rate: float = 1.0e-3
    """Adam step size of the warm start (PPO keeps ``learning_rate``)."""
    dagger_decisions: int = 0
    """DAgger round of the warm start: the cloned network plays this many decisions, the
    teacher labels each with its own move, and the network learns the teacher's and these
    samples together for ``dagger_epochs`` more passes (0 = no round)."""
    dagger_epochs: int = 2
    torch_threads: int = 2
    """Torch threads (the PPO update runs while the env waits, so it may use every core)."""
    progress: bool = True
    """Show a tqdm progress bar."""
    run_root: str = "runs"

    def rules(self) -> RuleSet:
        return make_rules(self.preset, self.players, self.rule_options)


def _check(cfg: PPOConfig) -> None:
    cfg.rules()  # names bad presets, options and player counts
    check_features(cfg.obs_features)
    if cfg.plan_prior and not has_hand_features(cfg.obs_features):
        raise ValueError(f"plan_prior needs obs_features: hand or hand+cards (got obs_features="
                         f"{cfg.obs_features!r}); set plan_prior: false")
    if cfg.reward not in REWARD_MODES:
        raise ValueError(f"reward={cfg.reward!r}: choose from {REWARD_MODES}")
    bad = sorted(k for k in cfg.pool if k not in SELF_KINDS and not is_agent_spec(k))
    if bad:
        raise ValueError(f"unknown pool entries {bad}: choose from {SELF_KINDS + BASELINES} "
                         f"or an agent spec ({', '.join(SPEC_FORMS)})")
    if any(float(w) < 0 for w in cfg.pool.values()) or sum(cfg.pool.values()) <= 0:
        raise ValueError(f"pool weights must be >= 0 with a positive sum: {cfg.pool}")
    unknown = sorted(k for k in cfg.eval_opponents if not is_agent_spec(k))
    if unknown:
        raise ValueError(f"unknown eval_opponents {unknown}: choose from {BASELINES} or an "
                         f"agent spec ({', '.join(SPEC_FORMS)})")
    if cfg.teacher and cfg.teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {cfg.teacher!r}: choose from {', '.join(TEACHERS)} "
                         f"(or \"\" for no warm start)")
    positive = ("total_steps", "num_envs", "n_steps", "batch_size", "n_epochs",
                "snapshot_every", "pool_size", "checkpoint_every", "eval_deals", "torch_threads",
                "teacher_decisions", "teacher_epochs", "teacher_learning_rate", "dagger_epochs",
                "learning_rate", "clip_range", "max_grad_norm")
    for name in positive:
        if getattr(cfg, name) <= 0:
            raise ValueError(f"{name} must be positive, got {getattr(cfg, name)}")
    _check_ranges(cfg)
    for name in ("eval_every", "time_budget_minutes", "pool_focus", "shaping", "ent_coef",
                 "vf_coef", "dagger_decisions"):
        if getattr(cfg, name) < 0:
            raise ValueError(f"{name} must be >= 0, got {getattr(cfg, name)}")


def _check_ranges(cfg: PPOConfig) -> None:
    """Values with a range or a relation to others (``_check`` has the sign rules)."""
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*", cfg.exp_name):
        raise ValueError(f"exp_name={cfg.exp_name!r}: use letters, digits, _ . - (it names a "
                         f"folder inside run_root)")
    for name in ("gamma", "gae_lambda"):
        if not 0 < getattr(cfg, name) <= 1:
            raise ValueError(f"{name} must be in (0, 1], got {getattr(cfg, name)}")
    if any(width <= 0 for width in cfg.net_arch):
        raise ValueError(f"net_arch layers must be positive, got {list(cfg.net_arch)}")
    rollout = cfg.num_envs * cfg.n_steps
    if cfg.batch_size > rollout:
        raise ValueError(f"batch_size={cfg.batch_size} is larger than a rollout "
                         f"(num_envs x n_steps = {rollout})")


def _weight(kind: Any, value: Any, source: str) -> float:
    """A pool weight as a float; a ``ValueError`` naming a weight that is no number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"pool weight {kind}={value!r} is not a number (in {source})")
    return float(value)


def make_config(raw: dict[str, Any], source: str = "config") -> PPOConfig:
    """``PPOConfig`` from a plain dict; unknown keys or bad values raise ``ValueError``."""
    raw = dict(raw)
    if "pool" in raw:
        if not isinstance(raw["pool"], dict | None):
            raise ValueError(f"pool={raw['pool']!r} is not a mapping of kind: weight (in "
                             f"{source})")
        raw["pool"] = {str(k): _weight(k, v, source) for k, v in (raw["pool"] or {}).items()}
    return build(PPOConfig, raw, source, check=_check)


def parse_overrides(pairs: list[str] | None) -> dict[str, Any]:
    """``["total_steps=1000", "pool={latest: 1}"]`` -> a dict of YAML-parsed values;
    ``"teacher="`` gives the empty string."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"override {pair!r} is not key=value")
        out[key.strip()] = yaml.safe_load(value) if value.strip() else ""  # key= : empty
    return out


def load_config(path: str | pathlib.Path, overrides: dict[str, Any] | None = None) -> PPOConfig:
    """Read YAML into ``PPOConfig`` with ``overrides`` applied on top."""
    return make_config(read_values(path, overrides), str(path))


def to_dict(cfg: PPOConfig) -> dict[str, Any]:
    """Plain YAML-able values (tuples as lists)."""
    return plain_dict(cfg)
