"""``ppo:PATH``: a MaskablePPO checkpoint (``train.ppo``) as a Policy.

A checkpoint is ``NAME.zip`` (sb3-contrib's format: weights, optimizer, hyper-parameters)
plus, when ``zolik train`` wrote it, ``NAME.json`` beside it with the rules it was trained
for (preset, non-default options, players): a mismatch with the requested rules is an
error naming the difference. A ``.zip`` without the sidecar (any MaskablePPO model) plays
with the rules it is given, once its observation and action sizes fit them. ``PATH`` may
also be a run dir: its ``final.zip``, else its newest ``checkpoints/step_*.zip``.

**Observation scaling** lives inside the network: ``ScaledObs``, the policy's features
extractor, multiplies the int16 observation by a fixed per-entry scale (``obs_scale``,
from the slice layout) and clips to [-5, 5]. The scale is a buffer of the saved network,
so training, evaluation and this loader apply exactly the same transform; the policy is
fed the VecEnv's raw int16 observation (SB3 only casts a ``Box`` to float).

Acting: the masked logits give a distribution over legal moves; ``act_batch`` samples it
with the given numpy generator (inverse CDF of one uniform per row), or takes the argmax
when ``deterministic``. A **play temperature** ``t`` samples ``p**(1/t)``, renormalized
(``sharpen``): below 1 the likely moves gain, 0 is the argmax; the spec says it as
``ppo:PATH:t=0.5`` (``:argmax`` is ``:t=0``). ``probabilities`` stay the network's own.
Same checkpoint, observations, masks and generator state give the same moves. This
module imports no ``train`` code (docs/style.md §2).

**Hand features.** A network trained with ``obs_features: hand`` records the name and the
feature version in its ``ScaledObs`` and takes the observation with
``agents.features.hand_features`` appended; this Policy appends them itself, in that version, to
the plain observations it is given, so it needs the rules (``PPOPolicy(..., rules=...)``;
``load`` and the registry pass them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.base import SingleFromBatched
from agents.features.hand_features import (
    UNRECORDED_VERSION,
    augment,
    check_features,
    check_version,
    feature_scale,
    feature_size,
)
from agents.learned.legacy import load_model, spec_of
from agents.learned.net_spec import rules_meta
from agents.learned.ppo_net import LeanMaskablePolicy, eval_mode
from zolik_env.rummy.observe import obs_layout
from zolik_env.rummy.options import RuleSet

# divisor per observation slice (others are counts 0..2 or flags, left as they are)
_SLICE_DIVISORS = {"meld_kind": 2.0, "meld_key": 13.0, "meld_cells": 2.0, "discard_newest": 53.0,
                   "discard_size": 50.0, "stock_size": 100.0, "hand_sizes": 20.0, "round": 50.0,
                   "opening_points": 100.0, "rebuilds": 3.0, "scores": 100.0}
CLIP = 5.0


def obs_scale(rules: RuleSet, features: str = "", critic_extra: int = 0) -> np.ndarray:
    """float32 (OBS + features + critic_extra,): the factor applied to each observation
    entry, then to each of the ``features`` (``agents.features.hand_features``) appended to it, then
    to the ``critic_extra`` entries of a critic view (card counts, left as they are)."""
    parts = [np.full(int(np.prod(shape)), 1.0 / _SLICE_DIVISORS.get(name, 1.0), np.float32)
             for name, shape in obs_layout(rules)]
    return np.concatenate([*parts, feature_scale(features), np.ones(critic_extra, np.float32)])


class ScaledObs(BaseFeaturesExtractor):
    """Features extractor: ``clip(obs * scale, -5, 5)``; ``scale`` is saved with the net,
    and so is ``features``, the name of the feature set the observation carries.

    ``critic_extra`` > 0: the last ``critic_extra`` of the ``scale`` entries are the
    critic view (``zolik_env.rummy.observe.critic_view``), which only a training critic
    is given (``agents.learned.ppo_net.SplitMlpExtractor`` keeps the actor off it); observations
    without it (a player's) are scaled by the leading entries.
    """

    def __init__(self, observation_space: spaces.Box, scale: list[float],
                 features: str = "", feature_version: int = UNRECORDED_VERSION,
                 critic_extra: int = 0) -> None:
        super().__init__(observation_space, features_dim=len(scale))
        self.features = check_features(features)
        self.feature_version = int(feature_version)  # of agents.features.hand_features at training
        self.critic_extra = int(critic_extra)
        self.register_buffer("scale", torch.tensor(scale, dtype=torch.float32))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = observations.float()
        return torch.clamp(x * self.scale[:x.shape[1]], -CLIP, CLIP)


def write_meta(zip_path: Path, rules: RuleSet, **extra: Any) -> None:
    """Write ``zip_path``'s ``.json`` sidecar (rules plus ``extra``, e.g. the step)."""
    meta = {**rules_meta(rules), **extra}
    Path(zip_path).with_suffix(".json").write_text(json.dumps(meta, indent=1, default=str))


def resolve_checkpoint(path: str | Path) -> Path:
    """The ``.zip`` named by ``path``: a file, or a run dir's final / newest checkpoint."""
    p = Path(path)
    if p.is_dir():
        if (p / "final.zip").exists():
            return p / "final.zip"
        steps = sorted((p / "checkpoints").glob("step_*.zip"),
                       key=lambda q: int(q.stem.split("_")[1]))
        if not steps:
            raise FileNotFoundError(f"no final.zip or checkpoints/step_*.zip in {p}")
        return steps[-1]
    if p.suffix != ".zip":
        p = p.with_suffix(".zip")
    if not p.exists():
        raise FileNotFoundError(f"no PPO checkpoint at {p}")
    return p


def check_meta(zip_path: Path, rules: RuleSet) -> None:
    """Raise ``ValueError`` unless the checkpoint was trained for ``rules`` (no sidecar:
    nothing to check here; ``load`` checks the sizes)."""
    side = zip_path.with_suffix(".json")
    if not side.exists():
        return
    try:
        saved = json.loads(side.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"the sidecar {side} of PPO checkpoint {zip_path} is not valid JSON "
                         f"({error}): fix or delete it") from None
    detail = rules_difference(saved, rules, "checkpoint")
    if detail:
        raise ValueError(f"PPO checkpoint {zip_path} was trained for other rules ({detail})")


def rules_difference(saved: dict[str, Any], rules: RuleSet, what: str) -> str:
    """How the rules recorded in ``saved`` (``rules_meta`` keys) differ from ``rules``:
    ``"num_players: checkpoint 2 vs requested 3"`` per key (``what`` names the saved side),
    or ``""`` when they are the same."""
    want = rules_meta(rules)
    return ", ".join(f"{k}: {what} {saved.get(k)!r} vs requested {v!r}"
                     for k, v in want.items() if saved.get(k) != v)


def check_sizes(zip_path: Path, model: Any, rules: RuleSet) -> None:
    """Raise ``ValueError`` unless the model's observation and action sizes fit ``rules``."""
    from zolik_env.rummy.actions import NUM_ACTIONS

    spec = spec_of(model.policy, rules)
    extra = feature_size(spec.obs_features) + spec.critic_extra
    want = (sum(int(np.prod(shape)) for _, shape in obs_layout(rules)) + extra, NUM_ACTIONS)
    got = (int(np.prod(model.observation_space.shape)), int(model.action_space.n))
    if got != want:
        raise ValueError(f"PPO model {zip_path} takes observations of {got[0]} and "
                         f"{got[1]} actions; {rules.name} with {rules.num_players} players "
                         f"has {want[0]} and {want[1]}: train it for these rules")


class PPOPolicy(SingleFromBatched):
    """A MaskablePPO actor as a Policy (see the module docstring); ``rules`` are needed
    when the network takes hand features."""

    def __init__(self, policy: Any, name: str = "ppo", deterministic: bool = False,
                 rules: RuleSet | None = None, temperature: float = 1.0) -> None:
        self.policy = policy
        self.name = name
        self.temperature = 0.0 if deterministic else check_temperature(temperature, name)
        self.deterministic = self.temperature == 0.0
        self.spec = spec_of(policy, rules)
        self.features = self.spec.obs_features
        if self.features and rules is None:
            raise ValueError(f"{name} takes {self.features!r} features: pass its rules")
        self.feature_version = self.spec.feature_version
        if self.features:
            check_version(self.feature_version, name)
        self.rules = rules

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float64 (B, A): the move distribution, zero on illegal moves."""
        return self.transformed_probabilities(self.obs_transform(obs), mask)

    @property
    def obs_transform_key(self) -> tuple[Any, ...] | None:
        """Policies with equal keys compute the same ``obs_transform`` (the features of
        one set and version for one rule set), so a caller that plays several of them on
        one batch may compute it once for all their rows
        (``zolik_env.envs.zolik_common.opponent_actions``); None: no transform."""
        if not self.features:
            return None
        return (self.features, self.feature_version, id(self.rules))

    def obs_transform(self, obs: np.ndarray) -> np.ndarray:
        """The network's input rows for plain observations: the features appended."""
        if not self.features:
            return obs
        assert self.rules is not None
        return augment(obs, self.rules, self.features, self.feature_version)

    @torch.no_grad()
    def transformed_probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``probabilities`` of rows already through ``obs_transform``.

        The actor's path of ``MaskableActorCriticPolicy.get_distribution`` (features,
        actor MLP, action logits), without the distribution objects; masked softmax here.
        """
        net = self.policy
        eval_mode(net)
        x = torch.as_tensor(np.asarray(obs), dtype=torch.float32)
        if isinstance(net, LeanMaskablePolicy):
            return net.legal_probabilities(x, mask).numpy()
        logits = net.action_net(net.mlp_extractor.forward_actor(net.pi_features_extractor(x)))
        logits = logits.masked_fill(~torch.as_tensor(np.asarray(mask, bool)), -torch.inf)
        return torch.softmax(logits, 1).double().numpy()

    @torch.no_grad()
    def values(self, obs: np.ndarray) -> np.ndarray:
        """float64 (B,): the value head's estimate of each seat's return from its plain
        observation, in the units of the reward the network was trained on (the kit's
        ``score`` reward: the deal score minus the table's mean, / 100).

        Raises:
            ValueError: for a network whose critic also takes hidden cards
                (``privileged_critic``): a player's observation is not enough for it.
        """
        if self.spec.critic_extra:
            raise ValueError(f"{self.name}: its value head was trained on hidden cards as "
                             f"well (privileged_critic); it gives no values from a seat's "
                             f"observation")
        net = self.policy
        eval_mode(net)
        x = torch.as_tensor(np.asarray(self.obs_transform(obs)), dtype=torch.float32)
        return net.predict_values(x).squeeze(1).double().numpy()

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        return self.act_transformed(self.obs_transform(obs), mask, rng)

    def act_transformed(self, obs: np.ndarray, mask: np.ndarray,
                        rng: np.random.Generator) -> np.ndarray:
        """``act_batch`` of rows already through ``obs_transform``."""
        return self.act_probabilities(self.transformed_probabilities(obs, mask), mask, rng)

    def act_probabilities(self, probs: np.ndarray, mask: np.ndarray,
                          rng: np.random.Generator) -> np.ndarray:
        """The moves for rows whose distributions ``probs`` are known (``joint_key``)."""
        if not self.deterministic and self.temperature != 1.0:
            probs = sharpen(probs, self.temperature)
        return pick_moves(probs, mask, rng, self.deterministic)

    @property
    def joint_key(self) -> tuple[Any, ...] | None:
        """Policies with equal keys may compute their rows' distributions in one call of
        ``joint_probabilities`` (``agents.learned.ppo_joint``: snapshots of one run);
        None: alone."""
        if not hasattr(self, "_joint_key"):
            from agents.learned.ppo_joint import joint_key

            net_key = joint_key(self.policy)
            self._joint_key = None if net_key is None else (self.obs_transform_key, net_key)
        return self._joint_key

    @staticmethod
    def joint_probabilities(policies: list[PPOPolicy], obs: np.ndarray, owner: np.ndarray,
                            mask: np.ndarray) -> np.ndarray:
        """float64 (B, A): row ``i`` as ``policies[owner[i]].transformed_probabilities``
        gives it, for transformed rows ``obs`` of policies with one ``joint_key``."""
        from agents.learned.ppo_joint import joint_probabilities

        return joint_probabilities([p.policy for p in policies], obs, owner, mask)


def check_temperature(temperature: float, name: str) -> float:
    """``temperature`` as a float if it is a play temperature (finite, at least 0)."""
    value = float(temperature)
    if not (np.isfinite(value) and value >= 0.0):
        raise ValueError(f"{name}: play temperature {temperature!r} must be a finite number "
                         f"at least 0 (0 plays the likeliest move)")
    return value


def sharpen(probs: np.ndarray, temperature: float) -> np.ndarray:
    """float64 (B, A): each row's ``p**(1/temperature)``, renormalized; exact zeros (the
    illegal moves) stay zero. Computed in logs against the row's largest entry, so a low
    temperature cannot underflow the likeliest move."""
    probs = np.asarray(probs, np.float64)
    with np.errstate(divide="ignore"):
        logs = np.log(probs)
    top = logs.max(1, keepdims=True)
    top[~np.isfinite(top)] = 0.0  # a row with no legal move stays all zero
    powered = np.exp((logs - top) / temperature)
    return powered / np.maximum(powered.sum(1, keepdims=True), np.finfo(np.float64).tiny)


def pick_moves(probs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
               deterministic: bool) -> np.ndarray:
    """int64 (B,): each row's most likely move, or one drawn from its distribution with
    one uniform of ``rng`` per row (inverse CDF), so the same generator gives the same
    moves whatever network computed ``probs``.

    The CDF runs over each row's legal moves only (a few of 2,658 columns). The illegal
    columns hold exact zeros, which add nothing to a running sum, so the draw is the one
    a CDF over every column would give, to the bit. A row with no legal move (a finished
    deal, whose action the core ignores) gets move 0."""
    if deterministic:
        return np.argmax(probs, 1).astype(np.int64)
    rows, cols = np.nonzero(np.asarray(mask, bool))
    counts = np.bincount(rows, minlength=len(probs))
    slots = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
    moves = np.zeros((len(probs), max(int(counts.max(initial=0)), 1)), np.int64)
    table = np.zeros(moves.shape)
    moves[rows, slots] = cols
    table[rows, slots] = probs[rows, cols]
    cdf = np.cumsum(table, 1)
    u = rng.random(len(probs))[:, None] * cdf[:, -1:]
    # never past the last legal move (rounding at the top of the cdf)
    picks = np.minimum((cdf <= u).sum(1), np.maximum(counts - 1, 0))
    return moves[np.arange(len(probs)), picks]


def load(path: str | Path, rules: RuleSet | None = None, deterministic: bool = False,
         name: str | None = None, temperature: float = 1.0) -> PPOPolicy:
    """Load a checkpoint as a Policy; with ``rules``, check it was trained for them."""
    zip_path = resolve_checkpoint(path)
    if rules is not None:
        check_meta(zip_path, rules)
    model = load_model(zip_path, device="cpu")
    if rules is not None:
        check_sizes(zip_path, model, rules)
    return PPOPolicy(model.policy, name or f"ppo:{zip_path}", deterministic, rules,
                     temperature)


def make(rules: RuleSet, argument: str = "") -> PPOPolicy:
    """Registry factory for ``ppo:PATH`` (``ppo:PATH:argmax`` plays the likeliest move,
    ``ppo:PATH:t=0.5`` samples at play temperature 0.5)."""
    if not argument:
        raise ValueError("ppo needs a checkpoint: ppo:PATH (a .zip or a run dir)")
    path, mode = split_mode(argument, "ppo", temperatures=True)
    temperature = 1.0 if mode == "" else temperature_of(mode)
    return load(path, rules, name=f"ppo:{argument}", temperature=temperature)


def split_mode(argument: str, kind: str, temperatures: bool = False) -> tuple[str, str]:
    """``("x.zip", "argmax")`` for ``"x.zip:argmax"``, ``("x.zip", "")`` without a mode, and
    with ``temperatures`` ``("x.zip", "t=0.5")`` for ``"x.zip:t=0.5"`` (a play temperature,
    checked); an unknown mode is a ``ValueError``."""
    target, sep, mode = argument.rpartition(":")
    if not sep:
        return argument, ""
    if mode == "argmax":
        return target, mode
    if temperatures and mode.startswith("t="):
        try:
            value = float(mode[2:])
        except ValueError:
            raise ValueError(f"{kind}:{argument}: play temperature {mode[2:]!r} is not a "
                             f"number") from None
        check_temperature(value, f"{kind}:{argument}")
        return target, mode
    known = ":argmax, which plays the likeliest move" + (
        ", or :t=T, a play temperature" if temperatures else "")
    raise ValueError(f"{kind}:{argument}: unknown mode {mode!r} (only {known})")


def temperature_of(mode: str) -> float:
    """The play temperature of a mode ``split_mode`` accepted: 0 for ``argmax``."""
    return 0.0 if mode == "argmax" else float(mode[2:])
