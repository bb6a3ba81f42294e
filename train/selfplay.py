"""Self-play: the opponent pool and the VecEnv whose opponents are drawn from it.

``OpponentPool`` holds the baselines of the config's mix (``random``, ``greedy``,
``planner``, built with ``agents.registry``) and snapshots of the learner (checkpoints
saved every ``snapshot_every`` steps, loaded with ``agents.learned.ppo``). For every new deal
and every opponent seat, ``sample`` draws a kind by the configured weights: ``latest``
(the newest snapshot), ``past`` (an older snapshot, uniformly), or a baseline. Until the
first snapshot exists, self kinds fall back to ``random`` (an untrained network plays
near uniformly too). Draws come from the pool's own generator: the same seed gives the
same opponents.

``PoolVecEnv`` is ``ZolikVecEnv`` with the ``PoolOpponents`` hook: the opponent is
chosen per row and seat (``opp``), not per seat for all rows. Rewards stay the learner's
own seat's (``shape_rewards(...)[row, learner seat]``), in 2, 3 or 4-player deals.
Training deal seeds are reduced below ``zolik_env.seeds.TRAIN_SEED_LIMIT`` (10^9), so
they never meet the held-out evaluation deals (from 2·10^9). It also adds up seconds
spent in opponent policies and in the env step (``seconds``) for the profile.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import numpy as np

from agents.learned import ppo as ppo_agent
from agents.registry import make_agent
from train.config import SELF_KINDS
from train.zolik_vec import ZolikVecEnv
from zolik_env.envs.zolik_common import opponent_actions
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import State
from zolik_env.seeds import TRAIN_SEED_LIMIT

FOCUS_FLOOR = 0.05  # the least (1 - win share) a kind is weighted by in ``focus``
OUTCOME_WINDOW = 500  # the learner's last deals per opponent kind that ``focus`` weighs


def _outcome_name(kind: str) -> str:
    """The name outcomes against a pool kind are logged under (``deal_info``)."""
    return "self" if kind in SELF_KINDS else kind


class OpponentPool:
    """Baselines and learner snapshots; ``policies[i]`` is the opponent with id ``i``."""

    def __init__(self, rules: RuleSet, weights: dict[str, float], pool_size: int,
                 seed: int) -> None:
        self.rules, self.pool_size = rules, pool_size
        self.kinds = [k for k, w in weights.items() if w > 0]
        self.base_weights = np.array([weights[k] for k in self.kinds], np.float64)
        self.weights = self.base_weights.copy()
        self.rng = np.random.default_rng(seed)
        self.policies: list[Any] = []
        self.names: list[str] = []
        self.baseline: dict[str, int] = {}
        for kind in sorted({*self.kinds, "random"} - {"latest", "past"}):
            self.baseline[kind] = self._add(make_agent(kind, rules), kind)
        self.snapshots: list[int] = []  # policy ids of the snapshots in the pool, oldest first
        self.paths: dict[int, Path] = {}  # the checkpoint of every snapshot id, to load again
        # the learner's last OUTCOME_WINDOW deals per opponent kind: (won, reward, opened);
        # the training callback adds them, ``focus`` is given their win shares
        self.outcomes: dict[str, deque[tuple[float, float, float]]] = defaultdict(
            lambda: deque(maxlen=OUTCOME_WINDOW))
        self.seconds = 0.0  # spent in opponent policies

    def _add(self, policy: Any, name: str) -> int:
        self.policies.append(policy)
        self.names.append(name)
        return len(self.policies) - 1

    def add_snapshot(self, path: Path) -> None:
        """Load the checkpoint at ``path`` as the newest snapshot (oldest dropped past
        ``pool_size``)."""
        index = self._add(self._load(path), "self")
        self.paths[index] = path
        self.snapshots.append(index)
        del self.snapshots[:-self.pool_size]

    def _load(self, path: Path) -> Any:
        policy = ppo_agent.load(path, self.rules, name=f"snapshot:{path.stem}")
        policy.policy.optimizer = None  # an opponent needs no Adam state
        return policy

    def restore(self, in_use: np.ndarray) -> None:
        """Load again the snapshots ``in_use`` that were freed (``prune``): a resumed run's
        deals may still play one that left the pool before the checkpoint."""
        for i in np.unique(in_use).tolist():
            if self.policies[i] is None and i in self.paths:
                self.policies[i] = self._load(self.paths[i])

    def focus(self, win_share: dict[str, float], power: float) -> None:
        """Draw the opponents the learner beats less often more often (prioritised
        fictitious self-play): each kind's configured weight times ``(1 - w) ** power``,
        ``w`` the learner's recent win share against that kind (``self`` for snapshots,
        0.5 while unknown), at least ``FOCUS_FLOOR`` so no kind drops out of the mix."""
        shares = np.array([win_share.get(_outcome_name(k), 0.5) for k in self.kinds])
        factor = np.maximum(1.0 - shares, FOCUS_FLOOR) ** power
        self.weights = self.base_weights * factor

    def mix(self) -> dict[str, float]:
        """The current chance of each kind per opponent seat."""
        return {k: float(w) for k, w in zip(self.kinds, self.weights / self.weights.sum(),
                                             strict=True)}

    def sample(self, n: int) -> np.ndarray:
        """int64 (n,) opponent ids drawn by the configured weights."""
        kinds = self.rng.choice(len(self.kinds), size=n, p=self.weights / self.weights.sum())
        ids = np.zeros(n, np.int64)
        for j, kind in enumerate(self.kinds):
            rows = np.flatnonzero(kinds == j)
            ids[rows] = self._ids_of(kind, rows.size)
        return ids

    def _ids_of(self, kind: str, n: int) -> np.ndarray | int:
        if kind in self.baseline:
            return self.baseline[kind]
        if not self.snapshots:
            return self.baseline["random"]
        if kind == "latest" or len(self.snapshots) == 1:
            return self.snapshots[-1]
        return np.asarray(self.snapshots[:-1])[self.rng.integers(0, len(self.snapshots) - 1, n)]

    def get_state(self) -> dict[str, Any]:
        """The generator, the current mix and the snapshot ids (``set_state`` checks the
        rebuilt pool holds the same snapshots)."""
        return {"rng": self.rng.bit_generator.state, "weights": self.weights.copy(),
                "snapshots": list(self.snapshots),
                "outcomes": {kind: list(seen) for kind, seen in self.outcomes.items()}}

    def set_state(self, saved: dict[str, Any]) -> None:
        if saved["snapshots"] != self.snapshots:
            raise ValueError(f"the pool's snapshots {self.snapshots} are not those saved "
                             f"({saved['snapshots']}): pool/ lost or gained files")
        self.rng.bit_generator.state = saved["rng"]
        self.weights = saved["weights"].copy()
        self.outcomes.clear()
        for kind, seen in saved["outcomes"].items():
            self.outcomes[kind].extend(seen)

    def prune(self, in_use: np.ndarray) -> None:
        """Free snapshots that left the pool and no deal still plays against."""
        keep = set(self.snapshots) | set(self.baseline.values()) | set(np.unique(in_use).tolist())
        for i, policy in enumerate(self.policies):
            if policy is not None and i not in keep:
                self.policies[i] = None

    def act(self, rules: RuleSet, sub: Any, ids: np.ndarray,
            rng: np.random.Generator) -> np.ndarray:
        start = time.perf_counter()
        actions = opponent_actions(rules, sub, ids, self.policies, rng)
        self.seconds += time.perf_counter() - start
        return actions


class PoolOpponents:
    """``OpponentHook`` of self-play: a pool opponent per row and seat (``opp``), drawn
    for every new deal."""

    def __init__(self, num_envs: int, rules: RuleSet, pool: OpponentPool) -> None:
        self.rules, self.pool = rules, pool
        self.opp = np.zeros((num_envs, rules.num_players - 1), np.int64)

    def new_deals(self, rows: np.ndarray) -> None:
        n = self.rules.num_players
        self.opp[rows] = self.pool.sample(rows.size * (n - 1)).reshape(rows.size, n - 1)
        self.pool.prune(self.opp)

    def actions(self, sub: State, rows: np.ndarray, slot: np.ndarray,
                rng: np.random.Generator) -> np.ndarray:
        return self.pool.act(self.rules, sub, self.opp[rows, slot], rng)

    def deal_info(self, row: int) -> dict[str, Any]:
        return {"opponent": self.pool.names[self.opp[row, 0]]}

    def get_state(self) -> dict[str, Any]:
        return {"opp": self.opp.copy(), "pool": self.pool.get_state()}

    def set_state(self, saved: dict[str, Any]) -> None:
        self.opp = saved["opp"].copy()
        self.pool.set_state(saved["pool"])
        self.pool.restore(self.opp)


class PoolVecEnv(ZolikVecEnv):
    """``ZolikVecEnv`` with pool opponents (see the module docstring) and a step timer."""

    def __init__(self, num_envs: int, rules: RuleSet, pool: OpponentPool,
                 reward: str = "score", seed: int = 0, shaping: float = 0.0,
                 gamma: float = 1.0, features: str = "", critic: bool = False,
                 reference: Any = None) -> None:
        self.pool = pool
        self.seconds = 0.0  # spent in step_wait (core, masks, observations, opponents)
        super().__init__(num_envs, rules=rules, reward=reward, seed=seed,
                         hook=PoolOpponents(num_envs, rules, pool), seed_limit=TRAIN_SEED_LIMIT,
                         shaping=shaping, gamma=gamma, features=features, critic=critic,
                         reference=reference)

    def step_wait(self) -> Any:
        start = time.perf_counter()
        out = super().step_wait()
        self.seconds += time.perf_counter() - start
        return out
