"""A warm start for PPO: behaviour cloning of a teacher agent on deals of the batched core.

PPO from scratch spends most of its budget learning what any sensible player knows (open,
lay off, keep pairs); a teacher (the ``planner``, or ``greedy``) knows it already. Here the
teacher plays every seat of ``num_deals`` deals at once on the batched core, and every
decision becomes a sample: the acting seat's observation, its legal moves, the teacher's
move and the discounted return that seat went on to get (the env's ``reward`` mode, paid
at the seat's last decision, discounted by ``gamma`` per later decision of that seat, as
the learner's critic sees it). The policy network is then trained by cross-entropy on
the teacher's moves (masked logits) and the critic by regression on the returns, before
PPO continues from those weights. The result is a plain PPO policy (``ppo:PATH``): it
never calls the teacher.

The dataset is a deterministic function of (rules, teacher, decisions, seed, gamma,
reward), so it is written once to ``cache_dir`` and read back on later runs. It is
played in ``TEACHER_SHARDS`` independent parts (each its own deals), so ``workers``
processes can make it side by side and its bytes do not depend on how many did.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import pathlib
import sys
from typing import Any

import numpy as np

from agents.features.hand_features import FEATURE_VERSION, augment, feature_size
from agents.learned.legacy import spec_of
from agents.registry import make_agent
from train.config import check_teacher, is_search_teacher
from train.search_labels import search_labels
from train.work_pool import in_processes, make_bar, progress_bar
from zolik_env.envs.zolik_common import shape_rewards
from zolik_env.rummy import actions, game
from zolik_env.rummy.observe import critic_view, observe
from zolik_env.rummy.options import RuleSet, rule_options_of
from zolik_env.seeds import TRAIN_SEED_LIMIT

_SEED_STRIDE = 1_000_003  # teacher deal seeds: seed * stride + deal number, mod the limit
TEACHER_SHARDS = 4  # a cached dataset is played in this many parts, on `workers` processes
_SHARD_DEALS = 250_000  # part i numbers its deals from i x this: 4 parts fit in one stride


@dataclasses.dataclass(frozen=True)
class TeacherData:
    """N teacher decisions."""

    obs: np.ndarray  # int16 (N, OBS) the acting seat's observation
    mask: np.ndarray  # uint8 (N, ceil(A / 8)) legal moves, np.packbits along axis 1
    action: np.ndarray  # int16 (N,) the teacher's move
    ret: np.ndarray  # float32 (N,) discounted return of the acting seat
    critic: np.ndarray  # int16 (N, C) the acting seat's critic view (hidden facts), or (N, 0)

    def __len__(self) -> int:
        return len(self.action)

    def take(self, rows: np.ndarray) -> TeacherData:
        """The samples ``rows`` (copies), in that order."""
        return TeacherData(**{f.name: getattr(self, f.name)[rows]
                              for f in dataclasses.fields(TeacherData)})

    def legal(self, rows: np.ndarray) -> np.ndarray:
        """bool (len(rows), NUM_ACTIONS): the legal moves of those samples."""
        return np.unpackbits(self.mask[rows], axis=1, count=actions.NUM_ACTIONS).astype(bool)

    def inputs(self, rows: np.ndarray, critic: bool) -> np.ndarray:
        """The network inputs of those samples: observations, with the critic view
        appended when the network has a privileged critic."""
        if not critic:
            return self.obs[rows]
        if self.critic.shape[1] == 0:
            raise ValueError("the teacher data has no critic view: collect it again")
        return np.concatenate([self.obs[rows], self.critic[rows]], axis=1)


def _returns(seats: np.ndarray, reward: np.ndarray, gamma: float) -> np.ndarray:
    """float32 (n,): for one deal's decisions by ``seats`` (n,), in order, ``reward[seat] *
    gamma ** (decisions that seat made after this one)``."""
    later = np.zeros(len(seats), np.int64)
    for seat in np.unique(seats):
        mine = np.flatnonzero(seats == seat)
        later[mine] = np.arange(len(mine))[::-1]
    return (reward[seats] * gamma ** later).astype(np.float32)


class _Deals:
    """Per-row buffers of the deals in play: the samples of each row's current deal."""

    def __init__(self, rows: int) -> None:
        self.rows: list[list[tuple[Any, ...]]] = [[] for _ in range(rows)]

    def record(self, obs: np.ndarray, mask: np.ndarray, action: np.ndarray,
               seat: np.ndarray, critic: np.ndarray) -> None:
        packed = np.packbits(mask, axis=1)
        for b, row in enumerate(self.rows):
            row.append((obs[b], packed[b], int(action[b]), int(seat[b]), critic[b]))

    def finish(self, b: int, reward: np.ndarray, gamma: float) -> list[tuple[Any, ...]]:
        """The samples of row ``b``'s finished deal, with returns; the row starts afresh."""
        samples, self.rows[b] = self.rows[b], []
        seats = np.array([s[3] for s in samples])
        ret = _returns(seats, reward, gamma)
        return [(o, m, a, r, c) for (o, m, a, _, c), r in zip(samples, ret, strict=True)]


def collect(rules: RuleSet, teacher: str = "planner", decisions: int = 100_000, seed: int = 0,
            gamma: float = 0.998, reward: str = "score", num_deals: int = 64,
            progress: bool = False, driver: Any = None, first_deal: int = 0,
            bar: Any = None) -> TeacherData:
    """Play the teacher at every seat until at least ``decisions`` samples of finished deals
    are gathered (deals still running at the end are dropped). The deals are numbered from
    ``first_deal``; ``bar`` (with ``update(n)``) replaces the progress bar.

    A search teacher (``pimc:...``, slow: a DAgger round's) labels from the acting seat's
    information state (``train.search_labels``).

    With ``driver`` (a Policy, e.g. the cloned network) the driver's moves are played and
    the teacher only labels each decision with the move it would make there (DAgger, Ross,
    Gordon & Bagnell 2011): the samples then cover the states the learner itself reaches,
    where its mistakes lead, and the returns are the driver's.
    """
    if not (searcher := is_search_teacher(teacher)) and driver is None:
        check_teacher(teacher)  # a labeller of a driver's deals may be any observing agent
    policy = make_agent(teacher, rules)
    rng = np.random.default_rng([seed, first_deal])
    driver_rng = np.random.default_rng([seed, first_deal, 1])
    started = first_deal + num_deals

    def seeds(first: int, n: int) -> np.ndarray:
        return (seed * _SEED_STRIDE + np.arange(first, first + n)) % TRAIN_SEED_LIMIT

    state = game.init(rules, seeds(first_deal, num_deals),
                      np.arange(first_deal, first_deal + num_deals))
    deals = _Deals(num_deals)
    out: list[tuple[Any, ...]] = []
    own_bar = bar is None
    bar = progress_bar(decisions, progress) if own_bar else bar
    while len(out) < decisions:
        obs = observe(rules, state, state.current)
        mask = game.legal_action_mask(rules, state)
        action = (search_labels(policy, rules, state, rng) if searcher
                  else np.asarray(policy.act_batch(obs, mask, rng), np.int64))
        deals.record(obs, mask, action, state.current,
                     critic_view(rules, state, state.current))
        if driver is not None:
            action = np.asarray(driver.act_batch(obs, mask, driver_rng), np.int64)
        state = game.step(rules, state, action)[0]
        ended = np.flatnonzero(state.done)
        if ended.size:
            rewards = shape_rewards(rules, game.rewards_of(rules, state)[ended],
                                    state.winner[ended], reward)
            for b, r in zip(ended, rewards, strict=True):
                new = deals.finish(int(b), r, gamma)
                out.extend(new)
                bar.update(len(new))
            state = game.reset_where(rules, state, ended, seeds(started, ended.size),
                                     np.arange(started, started + ended.size))
            started += ended.size
    if own_bar:
        bar.close()
    return TeacherData(obs=np.stack([s[0] for s in out]), mask=np.stack([s[1] for s in out]),
                       action=np.array([s[2] for s in out], np.int16),
                       ret=np.array([s[3] for s in out], np.float32),
                       critic=np.stack([s[4] for s in out]))


def collect_shards(rules: RuleSet, teacher: str, decisions: int, seed: int, gamma: float,
                   reward: str, progress: bool = False, workers: int = 1) -> TeacherData:
    """``TEACHER_SHARDS`` ``collect`` parts of ``decisions / TEACHER_SHARDS`` samples each,
    on their own deals, in ``workers`` processes; the same bytes for any ``workers``."""
    check_teacher(teacher)
    per_part = -(-decisions // TEACHER_SHARDS)
    jobs = [{"rules": rules, "teacher": teacher, "decisions": per_part, "seed": seed,
             "gamma": gamma, "reward": reward, "first_deal": part * _SHARD_DEALS}
            for part in range(TEACHER_SHARDS)]
    return concat(*in_processes(collect, jobs, workers, progress_bar(decisions, progress)))


def with_features(data: TeacherData, rules: RuleSet, features: str,
                  progress: bool = False, workers: int = 1) -> TeacherData:
    """``data`` with the ``features`` of ``agents.features.hand_features`` appended to every
    observation (the cache keeps the plain observations; ``""``: ``data`` itself), computed
    in ``workers`` processes."""
    if not feature_size(features):
        return data
    bounds = np.linspace(0, len(data), max(1, min(workers, len(data))) + 1).astype(int)
    jobs = [{"obs": data.obs[start:end], "rules": rules, "features": features}
            for start, end in itertools.pairwise(bounds)]
    bar = make_bar(len(data), "hand features", "obs", progress)
    return dataclasses.replace(data, obs=np.concatenate(
        in_processes(_augment, jobs, workers, bar)))


def _augment(obs: np.ndarray, rules: RuleSet, features: str, bar: Any) -> np.ndarray:
    """``obs`` with their features appended, 4,096 observations at a time."""
    out = []
    for rows in np.array_split(np.arange(len(obs)), max(1, len(obs) // 4096)):
        out.append(augment(obs[rows], rules, features))
        bar.update(rows.size)
    return np.concatenate(out)


def concat(*parts: TeacherData) -> TeacherData:
    """One dataset of the samples of ``parts``, in order (without critic views unless
    every part has them: a cache from before they were recorded has none)."""
    if len({p.critic.shape[1] for p in parts}) > 1:
        parts = tuple(dataclasses.replace(p, critic=p.critic[:, :0]) for p in parts)
    return TeacherData(**{f.name: np.concatenate([getattr(p, f.name) for p in parts])
                          for f in dataclasses.fields(TeacherData)})


TEACHER_DATA_VERSION = 2  # 2: the compiled planner, each decision from its observation alone


def cache_path(cache_dir: str | pathlib.Path, rules: RuleSet, **params: Any) -> pathlib.Path:
    """The cache file of a dataset: named by a hash of its rules, its parameters and
    ``TEACHER_DATA_VERSION`` (raised whenever the teachers' moves change, so that data
    labelled by an older teacher is never read back as today's)."""
    key = json.dumps({"rules": rules.name, "players": rules.num_players,
                      "options": rule_options_of(rules), "version": TEACHER_DATA_VERSION,
                      **params}, sort_keys=True, default=str)
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return pathlib.Path(cache_dir) / f"teacher_{rules.name}_{rules.num_players}p_{digest}.npz"


def load_or_collect(cache_dir: str | pathlib.Path, rules: RuleSet, teacher: str,
                    decisions: int, seed: int, gamma: float, reward: str,
                    progress: bool = False, features: str = "",
                    critic: bool = False, workers: int = 1) -> TeacherData:
    """The dataset from ``cache_dir`` if it was made before, else collected and saved
    (atomically: a kill mid-write leaves no partial file under the final name). With
    ``features``, the observations come with them (``with_features``), cached beside the
    dataset in ``NAME.FEATURES-vN.npz`` (N: ``agents.features.hand_features.FEATURE_VERSION``).
    ``critic``: the data must hold the critic views (a cache file written before they
    were recorded is collected again). ``workers``: processes that make what is not cached
    (``collect_shards``, ``with_features``)."""
    path = cache_path(cache_dir, rules, teacher=teacher, decisions=decisions, seed=seed,
                      gamma=gamma, reward=reward, shards=TEACHER_SHARDS)
    data = _read_cache(path) if path.exists() else None
    if data is None or (critic and data.critic.shape[1] == 0):
        data = collect_shards(rules, teacher, decisions, seed, gamma, reward,
                              progress=progress, workers=workers)
        _save(path, dataclasses.asdict(data))
    if not feature_size(features):
        return data
    extra_path = path.with_name(f"{path.stem}.{features}-v{FEATURE_VERSION}.npz")
    if extra_path.exists():
        with np.load(extra_path) as z:
            extra = z["features"]
    else:
        extra = with_features(data, rules, features, progress,
                              workers).obs[:, data.obs.shape[1]:]
        _save(extra_path, {"features": extra})
    return dataclasses.replace(data, obs=np.concatenate([data.obs, extra], axis=1))


def _read_cache(path: pathlib.Path) -> TeacherData:
    """A cached dataset; files from before critic views were recorded have none."""
    with np.load(path) as z:
        arrays = {name: z[name] for name in z.files}
    arrays.setdefault("critic", np.zeros((len(arrays["action"]), 0), np.int16))
    return TeacherData(**{f.name: arrays[f.name] for f in dataclasses.fields(TeacherData)})


def _save(path: pathlib.Path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` to ``path`` via a temporary file; a failure only warns (the data is
    kept in memory: training goes on uncached)."""
    tmp = path.with_name(f".{path.stem}.tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        print(f"warning: cannot cache the teacher data in {path.parent} "
              f"({error.strerror or error}); continuing without the cache", file=sys.stderr)


@dataclasses.dataclass(frozen=True)
class CloneReport:
    """How well the cloned policy matches the teacher on held-out samples."""

    samples: int
    epochs: int
    accuracy: float  # argmax of the masked policy == the teacher's move
    value_mse: float
    seconds: float


def clone(policy: Any, data: TeacherData, epochs: int = 3, batch_size: int = 512,
          learning_rate: float = 1e-3, value_coef: float = 0.5, holdout: float = 0.05,
          seed: int = 0, progress: bool = False, anchor: Any = None,
          anchor_kl: float = 0.0) -> CloneReport:
    """Train ``policy`` (a sb3-contrib ``MaskableActorCriticPolicy``) to play the
    teacher's moves and to predict the returns; ``holdout`` of the samples (the last
    ones) are kept aside to report the match. Uses its own Adam, not the policy's.

    With an ``anchor`` (a frozen network of the same spec) and ``anchor_kl`` > 0 the loss
    adds ``anchor_kl`` x KL(anchor || policy) of the move distributions: a trust region
    that lets the policy take the labels where they differ from the anchor's moves
    without drifting where they agree (expert iteration distils a search anchored on the
    round's own network)."""
    import time

    import torch

    start = time.time()
    n_train = int(len(data) * (1 - holdout))
    gen = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    batches = max(1, n_train // batch_size)
    bar = make_bar(epochs * batches, "cloning the teacher", "batch", progress)
    for _ in range(epochs):
        for rows in np.array_split(gen.permutation(n_train), batches):
            values, log_prob, _ = _evaluate(policy, data, rows)
            target = torch.as_tensor(data.ret[rows])
            loss = -log_prob.mean() + value_coef * torch.mean((values - target) ** 2)
            if anchor is not None and anchor_kl > 0:
                loss = loss + anchor_kl * drift(anchor, policy, data, rows)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            bar.update(1)
    bar.close()
    policy.set_training_mode(False)
    accuracy, mse = _held_out(policy, data, np.arange(n_train, len(data)))
    return CloneReport(samples=n_train, epochs=epochs, accuracy=accuracy, value_mse=mse,
                       seconds=time.time() - start)


def drift(anchor: Any, policy: Any, data: TeacherData, rows: np.ndarray) -> Any:
    """(scalar tensor) mean KL(anchor || policy) of the move distributions over ``rows``:
    0 where the two networks agree; gradients reach ``policy`` only."""
    import torch

    obs = torch.as_tensor(data.inputs(rows, spec_of(policy).critic_extra > 0))
    masks = data.legal(rows)
    with torch.no_grad():
        fixed, _ = anchor.legal_log_probs(obs, masks)
    moving, _ = policy.legal_log_probs(obs, masks)
    slot = torch.isfinite(fixed)  # the same slots in both: the same masks
    fixed, moving = fixed.masked_fill(~slot, 0.0), moving.masked_fill(~slot, 0.0)
    return (slot * fixed.exp() * (fixed - moving)).sum(1).mean()


def _evaluate(policy: Any, data: TeacherData, rows: np.ndarray) -> tuple[Any, Any, Any]:
    import torch

    obs = torch.as_tensor(data.inputs(rows, spec_of(policy).critic_extra > 0))
    acts = torch.as_tensor(data.action[rows].astype(np.int64))
    values, log_prob, entropy = policy.evaluate_actions(obs, acts,
                                                        action_masks=data.legal(rows))
    return values.flatten(), log_prob, entropy


def _held_out(policy: Any, data: TeacherData, rows: np.ndarray) -> tuple[float, float]:
    """(accuracy, value MSE) over ``rows``; (nan, nan) when there are none."""
    import torch

    if not rows.size:
        return float("nan"), float("nan")
    hits, errors = 0, 0.0
    with torch.inference_mode():
        for part in np.array_split(rows, max(1, rows.size // 1024)):
            obs = torch.as_tensor(data.inputs(part, spec_of(policy).critic_extra > 0))
            dist = policy.get_distribution(obs, action_masks=data.legal(part))
            best = dist.distribution.probs.argmax(1).numpy()
            hits += int((best == data.action[part]).sum())
            values = policy.predict_values(obs).flatten().numpy()
            errors += float(((values - data.ret[part]) ** 2).sum())
    return hits / rows.size, errors / rows.size
