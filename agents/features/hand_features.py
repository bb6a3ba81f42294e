"""Hand features for learned agents: what the best melds of the seat's own hand are worth.

Whether a hand can open (cz: melds worth 42 points in one turn, one of them a joker-free
run) is an exact search over its cards, not something a small network reads off 53 card
counts: the warm-started PPO agent held an opening it did not lay in about a third of
its turns that had one. ``hand_features`` adds the answer to the observation, computed
from the observation alone (the seat's hand, the top discard, this turn's opening
points), with the hand decomposition of ``agents.search.hand_search``:

=====================  ==================================================================
``best_points``        meld value of the best disjoint melds in hand (all plans lay a
                       taken discard that must be laid this turn, or are worth 0)
``clean_points``       the same among choices holding a joker-free run (0 if none)
``plan_kept``          hand points of the cards the plan keeps (the plan: the clean choice
                       while an opening still needs a clean run, else the best one)
``can_open``           1 if opened, or if melding is allowed now and laying the plan
                       completes the opening this turn
``need_points``        opening points still missing this turn (0 once opened)
``top_best_points``    draw phase: ``best_points`` with the top discard taken (else 0)
``top_clean_points``   draw phase: ``clean_points`` with the top discard taken (else 0)
``top_gain``           draw phase: how much the top discard adds to the plan's points
``plan_runs`` (53)     cards of each kind in the plan's runs
``plan_sets`` (53)     cards of each kind in the plan's sets
=====================  ==================================================================

Plans keep one card back for the discard that ends the turn, and a cz/sk discard taken
this turn (``must_use``) is in every plan, or the plan is worth nothing. That is feature
**version 4**; networks record the version they were trained on, and version 3 (plans
that could lay the whole hand, the taken card counted per copy, ``can_open`` true once
the points were laid even without the clean run) is still computed for them.

The features are a pure function of the observation, so they carry no more information
than it does. ``FEATURE_SETS`` names the choices: ``""`` (none), ``"hand"``,
``"hand+cards"`` (the per-kind ``agents.features.card_features`` first, then the hand features, so
the hand features always end the observation) and ``"hand+discard"`` (the same with the
card features' ``held`` field, what ``agents.learned.discard_prior`` reads). A network trained
with them records the name (``agents.learned.ppo.ScaledObs``), and ``ppo:PATH`` adds them to
every observation it is given.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from agents import obs_view as ov
from agents.features import hand_features_kernel as kernel
from agents.features.card_features import card_features, card_scale, card_width, columns
from agents.features.hand_features_kernel import BEST, CLEAN, RUNS, SETS
from agents.search import hand_search
from agents.search.meld_table import meld_table, search_args
from zolik_env.envs.zolik_common import observation_space
from zolik_env.rummy import actions as A
from zolik_env.rummy.cards import NUM_KINDS
from zolik_env.rummy.jit import by_identity
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.observe import critic_view_size
from zolik_env.rummy.options import RuleSet, preset

FEATURE_SETS = ("", "hand", "hand+cards", "hand+discard")
FEATURE_VERSION = 4  # bumped whenever the "hand" features change (names their caches)
SUPPORTED_VERSIONS = (3, 4)  # what ``hand_features`` can still compute, for older networks
UNRECORDED_VERSION = 3  # networks saved before the version was recorded were trained on 3
SCALARS = ("best_points", "clean_points", "plan_kept", "can_open", "need_points",
            "top_best_points", "top_clean_points", "top_gain")
HAND_FEATURES = len(SCALARS) + 2 * NUM_KINDS
PLAN_RUNS = slice(HAND_FEATURES - 2 * NUM_KINDS, HAND_FEATURES - NUM_KINDS)  # in the features
PLAN_SETS = slice(HAND_FEATURES - NUM_KINDS, HAND_FEATURES)
_POINT_SCALARS = {"best_points", "clean_points", "plan_kept", "need_points",
                  "top_best_points", "top_clean_points", "top_gain"}


def check_features(name: str) -> str:
    """``name`` if it is one of ``FEATURE_SETS``, else a ``ValueError`` naming it."""
    if name not in FEATURE_SETS:
        raise ValueError(f"obs_features={name!r} unknown: choose from "
                         f"{', '.join(repr(n) for n in FEATURE_SETS)}")
    return name


def has_hand_features(name: str) -> bool:
    """Whether the feature set ``name`` ends with the hand features (the plan prior's)."""
    return check_features(name) != ""


def _has_cards(name: str) -> bool:
    return check_features(name) in ("hand+cards", "hand+discard")


def _has_held(name: str) -> bool:
    return check_features(name) == "hand+discard"


def feature_size(name: str) -> int:
    """How many entries the feature set ``name`` appends to an observation."""
    return (HAND_FEATURES if has_hand_features(name) else 0) + (
        card_width(_has_held(name)) if _has_cards(name) else 0)


def feature_scale(name: str) -> np.ndarray:
    """float32 (feature_size,): the factor the network applies to each feature (points
    / 100, flags and card counts as they are, card values see ``agents.features.card_features``)."""
    if not has_hand_features(name):
        return np.zeros(0, np.float32)
    scalars = [0.01 if s in _POINT_SCALARS else 1.0 for s in SCALARS]
    hand = np.array(scalars + [1.0] * 2 * NUM_KINDS, np.float32)
    return np.concatenate([card_scale(_has_held(name)), hand]) if _has_cards(name) else hand


def augmented_space(rules: RuleSet, name: str) -> gymnasium.spaces.Box:
    """The env's observation space with the features of ``name`` appended."""
    info = np.iinfo(np.int16)
    return _widened(observation_space(rules), feature_size(name), info.min, info.max)


def _widened(space: gymnasium.spaces.Box, extra: int, low: int,
             high: int) -> gymnasium.spaces.Box:
    """``space`` with ``extra`` int16 entries in ``[low, high]`` appended."""
    return gymnasium.spaces.Box(np.concatenate([space.low, np.full(extra, low, np.int16)]),
                                np.concatenate([space.high, np.full(extra, high, np.int16)]),
                                (space.shape[0] + extra,), np.int16)


def training_space(rules: RuleSet, features: str, critic: bool) -> gymnasium.spaces.Box:
    """The learner's observation space: the env's, the ``features`` appended, then the
    critic view (``zolik_env.rummy.observe.critic_view``) with ``critic``."""
    space = augmented_space(rules, features)
    return _widened(space, critic_view_size(rules), 0, 127) if critic else space


def augment(obs: np.ndarray, rules: RuleSet, name: str,
            version: int = FEATURE_VERSION) -> np.ndarray:
    """int16 (B, OBS + feature_size): ``obs`` (B, OBS) with the features of each row."""
    obs = np.asarray(obs)
    if feature_size(name) == 0:
        return obs
    cards = [card_features(obs, rules, _has_held(name))] if _has_cards(name) else []
    return np.concatenate([obs, *cards, hand_features(obs, rules, version)], axis=1)


def check_version(version: int, what: str) -> int:
    """``version`` if ``hand_features`` computes it, else a ``ValueError`` naming ``what``."""
    if version not in SUPPORTED_VERSIONS:
        raise ValueError(f"{what} was trained on hand features version {version}; this kit "
                         f"computes versions {', '.join(map(str, SUPPORTED_VERSIONS))}")
    return version


def hand_features(obs: np.ndarray, rules: RuleSet,
                  version: int = FEATURE_VERSION) -> np.ndarray:
    """int16 (B, HAND_FEATURES): the ``"hand"`` features of each observation row, as
    feature ``version`` computes them (3: without the fixes of 4, see
    ``agents.features.hand_features_kernel``); all 0 once the deal is over."""
    check_version(version, "hand_features")
    cols = columns(np.asarray(obs, np.int16), rules)
    hand = cols["hand"]
    phase = cols["phase"].argmax(1)
    active = phase != ov.PHASE_OVER
    must_held = cols["must_use"] > 0
    must = np.where(must_held.any(1), must_held.argmax(1), -1)
    best, clean, plans = decompose(hand, must, active, version, rules)
    opened = cols["opened"][:, ov.OBSERVER] > 0
    flags = cols["turn_flags"] > 0
    laid = np.where(flags[:, ov.FLAG_LAID], cols["opening_points"][:, 0], 0)
    use_clean = ~opened & rules.opening_needs_clean_run & ~_clean_laid(cols, flags[:, ov.FLAG_LAID])
    plan_points = np.where(use_clean, clean, best)
    plan = np.where(use_clean[:, None, None], plans[:, CLEAN], plans[:, BEST])
    need = np.where(opened, 0, np.maximum(0, rules.opening_points - laid))
    may_lay = (cols["melding_allowed"][:, 0] > 0) & ~flags[:, ov.FLAG_UNDONE]
    # version 4: a clean run still to lay needs a clean plan, however many points are laid
    clean_ok = (version < 4) | ~use_clean | plan.any((1, 2))
    out = np.zeros((len(hand), HAND_FEATURES), np.int64)
    out[:, :5] = np.stack([best, clean, (hand - plan.sum(1)) @ card_values(rules),
                           opened | (may_lay & clean_ok & (plan_points >= need)), need], 1)
    top = cols["discard_newest"][:, 0]
    drawing = active & (phase == ov.PHASE_DRAW) & (top >= 0)
    with_top = hand.copy()
    with_top[drawing, top[drawing]] += 1
    top_must = top if rules.discard_pickup == "top_must_use" else np.full_like(top, -1)
    t_best, t_clean, _ = decompose(with_top, top_must, drawing, version, rules)
    t_points = np.where(use_clean, t_clean, t_best)
    out[:, 5:8] = np.where(drawing[:, None], np.stack([t_best, t_clean, t_points - plan_points],
                                                      1), 0)
    out[:, PLAN_RUNS], out[:, PLAN_SETS] = plan[:, RUNS], plan[:, SETS]
    out[~active] = 0
    return np.clip(out, np.iinfo(np.int16).min, np.iinfo(np.int16).max).astype(np.int16)


def decompose(hands: np.ndarray, musts: np.ndarray, active: np.ndarray, version: int,
              rules: RuleSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best points, clean points (B,) and plans (B, 2, 2, 53) of the ``active`` rows of
    ``hands`` (``agents.features.hand_features_kernel.decompose``)."""
    table = meld_table(rules)
    return kernel.decompose(np.ascontiguousarray(hands, np.int64),
                            np.asarray(musts, np.int64), np.asarray(active, np.bool_),
                            version, table.points, *search_args(table), table.is_run)


def _clean_laid(cols: dict[str, np.ndarray], laid: np.ndarray) -> np.ndarray:
    """bool (B,): whether this turn's provisional melds (the new table melds of a turn
    that has laid) hold a joker-free run already (``turn_plan.TurnInput.clean_laid``)."""
    clean_runs = ((cols["meld_kind"] == A.RUN) & (cols["meld_new"] > 0)
                  & ~(cols["meld_cells"] == A.JOKER_CELL).any(-1))
    return laid & clean_runs.any(1)


def compile_kernels() -> None:
    """Compile (or load from the on-disk cache) the hand search's and the features'
    kernels, by one search and one feature row per version; ``scripts/test.sh`` calls it
    with the core's before the test workers start."""
    hand_search.compile_kernels()
    rules = preset("cz")
    obs = np.zeros((1, observation_space(rules).shape[0]), np.int16)
    for version in SUPPORTED_VERSIONS:
        augment(obs, rules, "hand+discard", version)


@by_identity
def card_values(rules: RuleSet) -> np.ndarray:
    """int64 (53,): what each kind costs left in hand."""
    return np.array([hand_card_value(k, rules) for k in range(NUM_KINDS)], np.int64)


__all__ = [
    "FEATURE_SETS",
    "FEATURE_VERSION",
    "HAND_FEATURES",
    "PLAN_RUNS",
    "PLAN_SETS",
    "SCALARS",
    "SUPPORTED_VERSIONS",
    "UNRECORDED_VERSION",
    "augment",
    "augmented_space",
    "check_features",
    "check_version",
    "compile_kernels",
    "feature_scale",
    "feature_size",
    "hand_features",
    "has_hand_features",
]
