"""The PPO self-play config: ``configs/ppo/*.yaml`` -> a frozen, validated ``PPOConfig``.

Unknown keys and bad values raise ``ValueError`` naming the field, the value and the file;
``--set key=value`` overrides are parsed as YAML values (``--set net_arch=[128,128]``) and
validated like the file. The model and the loader are the kit's one config model,
``zolik_env.config_model``.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

from pydantic import Field, field_validator, model_validator

from agents.features.hand_features import check_features, has_hand_features
from agents.planner.planner_weights import DEFAULT_WEIGHTS, PlannerWeights, parse_weights
from train.hyper import Positive, PPOHyperParams, SB3Rollout
from zolik_env.config_model import (
    StrTuple,
    build,
    one_of,
    parse_yaml,
    plain_dict,
    read_values,
)
from zolik_env.envs.zolik_common import REWARD_MODES, make_rules
from zolik_env.rummy.options import RuleSet

TEACHERS = ("planner", "greedy")  # agents a warm start may imitate (train.imitation)
TEACHER_CHOICES = f"choose from {', '.join(TEACHERS)} or planner:KEY=VALUE,..."
SELF_KINDS = ("latest", "past")  # pool entries that are snapshots of the learner
BASELINES = ("random", "greedy", "planner")
SPEC_FORMS = ("planner:KEY=VALUE,...", "pretrained:NAME", "ppo:PATH", "rllib:PATH",
              "pkg.mod:factory")


def check_teacher(teacher: str) -> None:
    """A warm start's teacher: ``greedy``, ``planner`` or ``planner:KEY=VALUE,...`` (the
    planner with some of its weights changed, ``agents.planner.planner_weights``)."""
    if not _known_teacher(teacher):
        raise ValueError(f"unknown teacher {teacher!r}: {TEACHER_CHOICES}")
    teacher_weights(teacher)


def teacher_weights(teacher: str) -> PlannerWeights:
    """The weights of a planner teacher (a new network's discard prior starts at its
    discards); the planner's own for any other teacher or none."""
    kind, _, argument = teacher.partition(":")
    return parse_weights(argument) if kind == "planner" else DEFAULT_WEIGHTS


def is_search_teacher(teacher: str) -> bool:
    """A labeller that searches (``pimc[:...]``): it labels from information states, too
    slowly for a warm start, and its labels are learned alone (``train.ppo.dagger_round``)."""
    return teacher.partition(":")[0] == "pimc"


def check_dagger_teacher(teacher: str) -> None:
    """A DAgger labeller: ``""``, a teacher (``check_teacher``) or ``pimc[:...]``."""
    if teacher and not is_search_teacher(teacher):
        check_teacher(teacher)


def _known_teacher(teacher: str) -> bool:
    kind, colon, _ = teacher.partition(":")
    return kind in TEACHERS and (not colon or kind == "planner")


def is_agent_spec(name: str) -> bool:
    """Whether ``name`` has the form of an agent an opponent pool can hold: a baseline or
    one of ``SPEC_FORMS`` (``agents.registry.make_agent`` builds it when the run starts,
    and names what is wrong with it then)."""
    if name in BASELINES:
        return True
    kind, _, argument = name.partition(":")
    if kind == "planner" and argument:
        return _parses_as_planner_weights(argument)
    return bool(argument) and (kind in ("pretrained", "ppo", "rllib") or "." in kind)


def _parses_as_planner_weights(argument: str) -> bool:
    """Whether ``planner:ARGUMENT`` names known planner weights with numeric values."""
    try:
        parse_weights(argument)
    except ValueError:
        return False
    return True


def check_exp_name(name: str) -> str:
    """A run's name: it names a folder inside ``run_root``."""
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*", name):
        raise ValueError("use letters, digits, _ . - (it names a folder inside run_root)")
    return name


def check_widths(widths: tuple[int, ...]) -> tuple[int, ...]:
    """Hidden layer widths (none: linear heads)."""
    if any(width <= 0 for width in widths):
        raise ValueError("hidden layer widths must be positive")
    return widths


def check_pool(pool: dict[str, float], self_kinds: tuple[str, ...]) -> dict[str, float]:
    """An opponent mix: the learner's own kinds, baselines or agent specs, weights >= 0
    with a positive sum."""
    bad = sorted(k for k in pool if k not in self_kinds and not is_agent_spec(k))
    if bad:
        raise ValueError(f"unknown entries {bad}: choose from {self_kinds + BASELINES} "
                         f"or an agent spec ({', '.join(SPEC_FORMS)})")
    if any(w < 0 for w in pool.values()) or sum(pool.values()) <= 0:
        raise ValueError("weights must be >= 0 with a positive sum")
    return pool


def check_eval_opponents(names: tuple[str, ...]) -> tuple[str, ...]:
    unknown = sorted(k for k in names if not is_agent_spec(k))
    if unknown:
        raise ValueError(f"unknown {unknown}: choose from {BASELINES} or an agent spec "
                         f"({', '.join(SPEC_FORMS)})")
    return names


class SelfPlayConfig(PPOHyperParams):
    """What both Žolík trainers' configs share (``PPOConfig`` here, ``RllibConfig`` of
    ``train.rllib.ppo``): the rules and the session, on top of PPO's loss and network
    (``train.hyper``)."""

    preset: str = "cz"
    """Rules preset: cz, sk or jolly."""
    players: int = 2
    """Seats at the table (2..4); the learner takes one, the pool fills the others."""
    rule_options: dict[str, Any] = Field(default_factory=dict)
    """Extra ``rules.preset`` options, e.g. ``{opening_points: 51}``."""
    reward: str = "score"
    """``score`` (zero-sum deal score / 100) or ``win_loss``; always the learner's seat's."""
    time_budget_minutes: float = Field(0.0, ge=0)
    """Wall-clock budget of a session (training and evaluation); 0 = none."""
    progress: bool = True
    """Show a tqdm progress bar."""
    run_root: str = "runs"
    """Folder the run dirs go into."""

    # exp_name is declared by each config (its default names the trainer)
    _exp_name = field_validator("exp_name", check_fields=False)(check_exp_name)
    _net_arch = field_validator("net_arch")(check_widths)
    _reward = field_validator("reward")(one_of(REWARD_MODES))

    def rules(self) -> RuleSet:
        return make_rules(self.preset, self.players, self.rule_options)


class PPOConfig(SelfPlayConfig, SB3Rollout):
    exp_name: str = "ppo_cz2p"
    """Run dirs are ``{run_root}/{exp_name}__{seed}__{time}``."""
    shaping: float = Field(0.0, ge=0)
    """Potential-based reward shaping: this times the hand points the learner has shed
    since the deal began, / 100, as the potential (``train.zolik_vec``); 0 = none."""
    obs_features: str = "hand+discard"
    """``hand``: append the hand features of ``agents.features.hand_features`` (the best melds of
    the own hand, whether it can open) to the learner's observation; ``hand+cards``: also
    each card kind's keep value, danger and table fit (``agents.features.card_features``);
    ``hand+discard``: those and the cards an unopened hand holds for its opening (what
    ``discard_prior`` reads); ``""``: none. The network records its choice, so its
    checkpoints play with the same features."""
    plan_prior: bool = True
    """With hand features (any ``obs_features`` but ``""``): moves that follow the hand's
    plan get a learned bonus on their logits (``agents.learned.ppo_net.PlanPrior``); false: the
    plain action layer."""
    discard_prior: bool = True
    """With ``obs_features: hand+discard``: each discard move's logit gets a learned weighted
    sum of that card's keep value, danger, table fit, held-for-opening count and hand penalty,
    starting at the planner's own weights (``agents.learned.discard_prior``)."""
    plan_open_start: float = Field(0.0, ge=0)
    """The plan prior's starting bonus (in logits) for a meld that follows the hand's plan
    while the hand can open (``agents.learned.ppo_net.PlanPrior``); learned from there. A clone
    started at 0 leaves about one turn in ten that could open without opening."""
    plan_pending_start: float | None = Field(None, ge=0)
    """With a number: the plan prior gets a third set of coefficients, for the decisions of
    an opening under way (the hand can open and still needs points), starting at that many
    logits for a plan meld and minus that many for the other groups (a lay-off of a card
    the plan needs, a discard); null: no such set (``agents.learned.ppo_net.PlanPrior``). A cz
    turn that has laid the opening's points but not its clean run needs no more points,
    so the set does not count there."""
    prior_lr_scale: float = Field(1.0, gt=0)
    """How many times faster than the network's weights the priors' coefficients move
    (``agents.learned.ppo_net.LeanMaskablePolicy``'s ``prior_scale``): Adam steps every parameter
    by about the learning rate, so at 1 PPO cannot move a discard coefficient of size 10."""
    privileged_critic: bool = False
    """The value network also sees the learner's critic view (the other hands and the
    next stock cards, ``zolik_env.rummy.observe.critic_view``) in training, so its
    baseline does not have to average over the hidden cards; the policy never sees them
    (``agents.learned.ppo_net.SplitMlpExtractor``) and plays from the plain observation."""
    duplicate_reference: str = ""
    """An agent (``planner``, ``greedy``, any agent spec) that plays every training deal
    once more in the learner's seat, against the same opponents; the learner is rewarded
    by its score minus the reference's on the same cards (``train.zolik_vec``), which
    cancels most of the luck of the deal; ``""``: the plain reward."""
    seed: int = 1
    """Seeds the deals, the seats, the pool's draws, the network and PPO's sampling."""
    total_steps: int = Field(5_000_000, gt=0)
    """Learner decisions to train for (opponents' moves are not counted)."""
    learning_rate: Positive = 1.0e-4
    """Adam step size of PPO."""
    learning_rate_final: float | None = Field(None, gt=0)
    """With a number: PPO's step size at the end of the session, reached linearly from
    ``learning_rate`` as the session's budget is spent (the larger of its share of
    ``total_steps`` and its share of the minutes left after the warm start;
    ``train.schedule``); null: constant."""
    ent_coef_final: float | None = Field(None, ge=0)
    """With a number: the entropy weight (``ent_coef``) at the end of the session, reached
    linearly as for ``learning_rate_final``; null: constant."""
    pool: dict[str, float] = Field(
        default_factory=lambda: {"latest": 0.3, "past": 0.2, "planner": 0.3, "greedy": 0.2})
    """Opponent mix, drawn per seat and deal: ``latest`` (newest snapshot of the learner),
    ``past`` (an older snapshot, uniformly), baselines random, greedy, planner, and any
    agent spec (``pretrained:cz_2p``, ``ppo:PATH``, ``pkg.mod:factory``)."""
    pool_focus: float = Field(1.0, ge=0)
    """Prioritised self-play: each kind's weight is multiplied by ``(1 - win share)``
    to this power, the learner's recent win share against that kind (0 = fixed weights)."""
    snapshot_every: int = Field(100_000, gt=0)
    """Add a snapshot of the learner to the pool every this many steps."""
    pool_size: int = Field(8, gt=0)
    """Snapshots kept in the pool (the oldest leave first)."""
    checkpoint_every: int = Field(200_000, gt=0)
    """Save ``checkpoints/step_{N}.zip`` every this many steps (and always at exit)."""
    eval_every: int = Field(300_000, ge=0)
    """Evaluate against ``eval_opponents`` every this many steps (and at the end); 0 = never."""
    eval_opponents: StrTuple = ("greedy", "planner")
    """Opponents of the periodic duplicate-deal evaluation (held-out deal seeds): baselines
    or agent specs, as in ``pool``."""
    eval_deals: int = Field(32, gt=0)
    """Duplicate deals per evaluation and opponent."""
    teacher: str = "planner"
    """Warm start: ``planner`` (``planner:KEY=VALUE,...`` changes some of its weights,
    ``agents.planner.planner_weights``) or ``greedy`` plays every seat of deals on the batched core,
    the new network learns its moves and the returns (``train.imitation``) before PPO
    starts; ``""`` = start from random weights. Not used when resuming."""
    teacher_decisions: int = Field(400_000, gt=0)
    """Teacher decisions to learn from (cached in ``{run_root}/teacher_cache``)."""
    teacher_epochs: int = Field(4, gt=0)
    """Passes over the teacher's decisions."""
    teacher_learning_rate: float = Field(1.0e-3, gt=0)
    """Adam step size of the warm start (PPO keeps ``learning_rate``)."""
    dagger_decisions: int = Field(0, ge=0)
    """DAgger round of the warm start: the cloned network plays this many decisions, the
    teacher labels each with its own move, and the network learns the teacher's and these
    samples together for ``dagger_epochs`` more passes (0 = no round)."""
    dagger_epochs: int = Field(2, gt=0)
    """Passes over the teacher's and the DAgger samples together."""
    dagger_teacher: str = ""
    """Who labels the DAgger round's decisions: ``""`` = ``teacher``; or a search agent,
    ``pimc[:rollouts=N,...]``, which labels each draw and discard with the move its
    rollouts over sampled worlds find best (expert iteration: the network learns the
    search's improvement on its own games). A search's labels are learned alone, not
    mixed with the teacher's data."""
    torch_threads: int = Field(2, gt=0)
    """Torch threads (the PPO update runs while the env waits, so it may use every core);
    also the processes that make the warm start's teacher data and its features."""

    _pool = field_validator("pool")(lambda pool: check_pool(pool, SELF_KINDS))
    _eval_opponents = field_validator("eval_opponents")(check_eval_opponents)

    @field_validator("obs_features")
    @classmethod
    def _feature_set(cls, features: str) -> str:
        check_features(features)
        return features

    @field_validator("duplicate_reference")
    @classmethod
    def _reference(cls, name: str) -> str:
        if name and not is_agent_spec(name):
            raise ValueError(f"choose from {BASELINES}, an agent spec ({', '.join(SPEC_FORMS)}) "
                             f"or \"\" for none")
        return name

    @field_validator("teacher")
    @classmethod
    def _teacher(cls, teacher: str) -> str:
        if teacher and not _known_teacher(teacher):
            raise ValueError(f"{TEACHER_CHOICES} (or \"\" for no warm start)")
        if teacher:
            check_teacher(teacher)  # names a bad weight
        return teacher

    @field_validator("dagger_teacher")
    @classmethod
    def _dagger_teacher(cls, teacher: str) -> str:
        check_dagger_teacher(teacher)
        return teacher

    @model_validator(mode="after")
    def _fields_together(self) -> PPOConfig:
        """The rules the fields make together."""
        self.rules()  # names bad presets, options and player counts
        if self.plan_prior and not has_hand_features(self.obs_features):
            raise ValueError(f"plan_prior needs hand features in obs_features (got "
                             f"obs_features={self.obs_features!r}); set plan_prior: false")
        if self.discard_prior and self.obs_features != "hand+discard":
            raise ValueError(f"discard_prior needs obs_features: hand+discard (got "
                             f"obs_features={self.obs_features!r}); set discard_prior: false")
        return self


def make_config(raw: dict[str, Any], source: str = "config") -> PPOConfig:
    """``PPOConfig`` from a plain dict; unknown keys or bad values raise ``ValueError``."""
    return build(PPOConfig, raw, source)


def parse_overrides(pairs: list[str] | None) -> dict[str, Any]:
    """``["total_steps=1000", "pool={latest: 1}"]`` -> a dict of YAML-parsed values;
    ``"teacher="`` gives the empty string."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"override {pair!r} is not key=value")
        out[key.strip()] = parse_yaml(value) if value.strip() else ""  # key= : empty
    return out


def load_config(path: str | pathlib.Path, overrides: dict[str, Any] | None = None) -> PPOConfig:
    """Read YAML into ``PPOConfig`` with ``overrides`` applied on top."""
    return make_config(read_values(path, overrides), str(path))


def to_dict(cfg: PPOConfig) -> dict[str, Any]:
    """Plain YAML-able values (tuples as lists)."""
    return plain_dict(cfg)
