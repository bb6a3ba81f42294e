"""Self-play PPO on RLlib: ``zolik train --backend rllib --config rllib/cz_2p``.

The second trainer beside the SB3 recipe (``train.ppo``), for users who scale out on Ray:
RLlib's PPO (new API stack) on ``train.rllib.env.ZolikMultiAgentEnv``, the learner module
``main`` with masked logits (``agents.learned.rllib_net``), ``env_runners`` Ray actors sampling
deals in parallel (0: sampling in the driver), one learner process updating.

Self-play as in the SB3 recipe: every seat but the learner's plays, for one deal, a kind
drawn from ``opponents``: ``latest`` is ``main`` itself, ``past`` one of ``past_slots``
frozen snapshots of it (a slot is overwritten with ``main``'s weights every
``snapshot_every`` iterations, round robin; at the start every slot holds the initial
weights), baselines and agent specs are played inside the env. Only ``main`` trains.

A run dir ``{run_root}/{exp_name}__{seed}__{time}`` holds ``rllib_config.yaml``,
``progress.csv`` (one row per iteration), ``checkpoints/iter_N`` (RLlib's algorithm
checkpoint: every module, the optimizer, the env runners' connectors; ``zolik.json``
beside it records the rules), and, when ``eval_deals`` > 0, ``eval.csv``/``eval.png``
(duplicate deals on held-out seeds at each checkpoint, ``train.evaluate``). A checkpoint
plays in ``zolik eval`` as ``rllib:RUN_DIR`` (``agents.learned.rllib_policy``).
``zolik train --resume RUN_DIR`` continues from the newest checkpoint; iterations logged
after it are dropped, so each is logged once. (Unlike the SB3 recipe, the env runners
sample asynchronously to the driver's clock, so a resumed run is equivalent to, not
bit-identical with, an uninterrupted one.)
"""

from __future__ import annotations

import csv
import functools
import json
import logging
import pathlib
import shutil
import sys
import time
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import Field, field_validator, model_validator

from agents.learned.ppo import rules_meta
from agents.learned.rllib_policy import MODULE_ID, SIDECAR, RllibPolicy, checkpoints_of
from train import runlog
from train.config import SelfPlayConfig, check_eval_opponents, check_pool
from train.runlog import StopRequest, stop_requests, truncate_csv
from zolik_env.config_model import StrTuple, build, read_values
from zolik_env.rummy.options import RuleSet

CONFIG_FILE = "rllib_config.yaml"  # its presence marks an RLlib run dir
ENV_NAME = "zolik_multi_agent"
SELF_KINDS = ("latest", "past")
LOG_FIELDS = ("iteration", "env_steps", "learner_steps", "deals", "learner_return",
              "seconds", "env_steps_per_s")


class RllibConfig(SelfPlayConfig):
    exp_name: str = "rllib_cz2p"
    """Run dirs are ``{run_root}/{exp_name}__{seed}__{time}``."""
    seed: int = Field(1, ge=0)
    """Seeds RLlib (networks, sampling) and the envs' deals and opponent draws."""
    iterations: int = Field(300, gt=0)
    """Training iterations (each samples ``train_batch`` env steps, then updates)."""
    env_runners: int = Field(1, ge=0)
    """Ray actors sampling deals in parallel (0: the driver samples)."""
    envs_per_runner: int = Field(8, gt=0)
    """Deals each env runner steps together (one batched forward per step)."""
    train_batch: int = Field(4000, gt=0)
    """Env steps (decisions of the modules RLlib plays) per iteration."""
    minibatch: int = Field(500, gt=0)
    """Minibatch of a PPO update (at most ``train_batch``)."""
    epochs: int = Field(3, gt=0)
    """Passes over each iteration's batch."""
    opponents: dict[str, float] = Field(
        default_factory=lambda: {"latest": 0.3, "past": 0.3, "greedy": 0.2, "random": 0.2})
    """Opponent mix, drawn per seat and deal: ``latest`` (``main`` itself), ``past`` (a
    frozen snapshot), baselines random, greedy, planner, or an agent spec."""
    past_slots: int = Field(4, ge=0)
    """Frozen snapshot modules (``past_0`` ..); ``past`` in ``opponents`` needs one."""
    snapshot_every: int = Field(5, gt=0)
    """Copy ``main`` into the next snapshot slot every this many iterations."""
    checkpoint_every: int = Field(10, gt=0)
    """Save ``checkpoints/iter_N`` every this many iterations (and always at the end)."""
    eval_opponents: StrTuple = ("random", "greedy")
    """Opponents of the evaluation at each checkpoint (held-out deal seeds)."""
    eval_deals: int = Field(16, ge=0)
    """Duplicate deals per evaluation and opponent; 0 = no evaluation."""
    address: str = ""
    """Ray cluster to run on (``auto`` or ``HOST:PORT``); ``""`` starts a local instance."""

    _opponents = field_validator("opponents")(lambda mix: check_pool(mix, SELF_KINDS))
    _eval_opponents = field_validator("eval_opponents")(check_eval_opponents)

    @model_validator(mode="after")
    def _fields_together(self) -> RllibConfig:
        self.rules()  # names bad presets, options and player counts
        if self.minibatch > self.train_batch:
            raise ValueError(f"minibatch={self.minibatch} is larger than train_batch="
                             f"{self.train_batch}")
        if self.opponents.get("past", 0) > 0 and self.past_slots == 0:
            raise ValueError("opponents has past but past_slots=0: give past_slots >= 1")
        return self


def load_config(path: str | pathlib.Path, overrides: dict[str, Any] | None = None
                ) -> RllibConfig:
    """``RllibConfig`` from YAML with ``overrides`` on top (one-line ``ValueError``s)."""
    return build(RllibConfig, read_values(path, overrides), str(path))


def env_config(cfg: RllibConfig) -> dict[str, Any]:
    return {"preset": cfg.preset, "players": cfg.players, "rule_options": cfg.rule_options,
            "reward": cfg.reward, "opponents": cfg.opponents, "past_slots": cfg.past_slots,
            "seed": cfg.seed}


def algorithm_config(cfg: RllibConfig, start_iteration: int = 0) -> Any:
    """RLlib's ``PPOConfig`` for ``cfg``, for a session that starts at ``start_iteration``
    (it keys the envs' generators: a resumed session deals new deals)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.learned.rllib_net import MaskedPPOModule
    from train.rllib.env import module_for, past_module

    model = {"fcnet_hiddens": list(cfg.net_arch), "vf_share_layers": False}
    modules = [MODULE_ID, *(past_module(slot) for slot in range(cfg.past_slots))]
    specs = {m: RLModuleSpec(module_class=MaskedPPOModule, model_config=model) for m in modules}
    return (PPOConfig()
            .environment(ENV_NAME, env_config={**env_config(cfg),
                                               "start_iteration": start_iteration},
                         disable_env_checking=True)
            .env_runners(num_env_runners=cfg.env_runners,
                         num_envs_per_env_runner=cfg.envs_per_runner)
            .multi_agent(policies=set(modules),
                         policy_mapping_fn=lambda agent_id, episode, **_: module_for(agent_id),
                         policies_to_train=[MODULE_ID])
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
            .training(train_batch_size_per_learner=cfg.train_batch,
                      minibatch_size=cfg.minibatch, num_epochs=cfg.epochs,
                      lr=cfg.learning_rate, gamma=cfg.gamma, lambda_=cfg.gae_lambda,
                      clip_param=cfg.clip_range, entropy_coeff=cfg.ent_coef,
                      vf_loss_coeff=cfg.vf_coef, grad_clip=cfg.max_grad_norm)
            .callbacks(functools.partial(SnapshotCallback, cfg.past_slots, cfg.snapshot_every))
            .debugging(seed=cfg.seed))


def _callback_base() -> Any:
    from ray.rllib.callbacks.callbacks import RLlibCallback

    return RLlibCallback


class SnapshotCallback(_callback_base()):  # type: ignore[misc]
    """Fills the frozen ``past_K`` modules with ``main``'s weights: all at the start, one
    slot every ``every`` iterations (round robin) after that."""

    def __init__(self, slots: int, every: int) -> None:
        super().__init__()
        self.slots, self.every = slots, every

    def _copy_main(self, algorithm: Any, slots: range) -> None:
        from train.rllib.env import past_module

        if not slots:
            return
        main = algorithm.learner_group.get_state(
            components=f"learner/rl_module/{MODULE_ID}")["learner"]["rl_module"][MODULE_ID]
        frozen = {past_module(slot): main for slot in slots}
        algorithm.learner_group.set_state({"learner": {"rl_module": frozen}})
        # The env runners play the slots. ``Algorithm.set_state`` would skip them: they
        # already hold the learner's weights version of this iteration (PPO synced only
        # ``main``), so the new weights are set on them directly.
        algorithm.env_runner_group.foreach_env_runner(
            lambda runner: runner.set_state({"rl_module": frozen}), local_env_runner=True)

    def on_algorithm_init(self, *, algorithm: Any, **_: Any) -> None:
        self._copy_main(algorithm, range(self.slots))

    def on_train_result(self, *, algorithm: Any, result: dict[str, Any], **_: Any) -> None:
        if self.slots and algorithm.iteration % self.every == 0:
            slot = (algorithm.iteration // self.every - 1) % self.slots
            self._copy_main(algorithm, range(slot, slot + 1))


@dataclass
class RunResult:
    run_dir: pathlib.Path
    iterations: int
    env_steps: int
    seconds: float
    final: pathlib.Path | None


def newest_iteration(run_dir: pathlib.Path | None) -> int:
    """The iteration of the newest checkpoint in ``run_dir`` (none: 0)."""
    found = checkpoints_of(run_dir) if run_dir is not None else []
    return int(found[-1].name.split("_")[1]) if found else 0


def new_run_dir(cfg: RllibConfig) -> pathlib.Path:
    run_dir = runlog.new_run_dir(cfg.run_root, f"{cfg.exp_name}__{cfg.seed}")
    (run_dir / CONFIG_FILE).write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return run_dir


def read_config(run_dir: pathlib.Path) -> RllibConfig:
    return load_config(run_dir / CONFIG_FILE)


def log_row(result: dict[str, Any], seconds: float, previous_steps: int) -> dict[str, Any]:
    """One ``progress.csv`` row from RLlib's result of an iteration."""
    runners = result.get("env_runners", {})
    env_steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
    learner_steps = runners.get("num_agent_steps_sampled_lifetime", {}).get("learner", 0)
    returns = runners.get("agent_episode_returns_mean", {})
    return {"iteration": int(result["training_iteration"]), "env_steps": env_steps,
            "learner_steps": int(learner_steps),
            "deals": int(runners.get("num_episodes_lifetime", 0)),
            "learner_return": round(float(returns.get("learner", float("nan"))), 5),
            "seconds": round(seconds, 2),
            "env_steps_per_s": round((env_steps - previous_steps) / max(seconds, 1e-9), 1)}


def append_log(path: pathlib.Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, LOG_FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def save_checkpoint(algo: Any, run_dir: pathlib.Path, rules: RuleSet,
                    row: dict[str, Any]) -> pathlib.Path:
    """``checkpoints/iter_N`` (written to a temporary name, then renamed, so a crash never
    leaves a half checkpoint under the name the loaders look for); its sidecar records the
    rules and the counters of ``row``, the iteration's log row."""
    final = run_dir / "checkpoints" / f"iter_{algo.iteration:06d}"
    tmp = final.with_name(f".{final.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    counters = {k: row.get(k, 0) for k in ("env_steps", "learner_steps")}
    (tmp / SIDECAR).write_text(json.dumps({**rules_meta(rules), "iteration": algo.iteration,
                                           **counters}))
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    return final


def evaluate_now(algo: Any, cfg: RllibConfig, run_dir: pathlib.Path, steps: int) -> None:
    """Duplicate deals of the learner module against ``eval_opponents``: ``eval.csv``,
    ``eval.png``."""
    from train.evaluate import append_rows, evaluate, plot_curve

    rules = cfg.rules()
    learner = RllibPolicy(algo.get_module(MODULE_ID), rules, "rllib")
    rows = evaluate(rules, learner, cfg.eval_opponents, cfg.eval_deals, steps, seed=cfg.seed)
    append_rows(run_dir / "eval.csv", rows)
    plot_curve(run_dir / "eval.csv", run_dir / "eval.png")


def run(cfg: RllibConfig, run_dir: pathlib.Path | None = None,
        minutes: float | None = None) -> RunResult:
    """Train (or, with ``run_dir``, resume) until ``iterations`` or the time budget.
    Ctrl-C or SIGTERM ends the session after the iteration in progress, with a checkpoint
    of it; a second one stops at once, without saving the half-done iteration."""
    from ray.tune.registry import register_env

    from eval.ray_backend import import_ray, start
    from train.rllib.env import ZolikMultiAgentEnv

    owned = not import_ray().is_initialized()
    ray = start(cfg.address, 0)
    register_env(ENV_NAME, ZolikMultiAgentEnv)
    for name in ("ray", "ray.rllib", "ray.tune"):  # RLlib's start-up notes, not the run's
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        algo = algorithm_config(cfg, newest_iteration(run_dir)).build_algo()
        session = Session(cfg, run_dir)
        try:
            session.resume(algo)
            with stop_requests() as stop:
                session.train(algo, 60 * (cfg.time_budget_minutes if minutes is None
                                          else minutes), stop)
            session.save_last(algo)
        except KeyboardInterrupt:
            print(f"interrupted inside an iteration: not saved; {session.final} is the "
                  f"newest checkpoint")
        finally:
            algo.stop()
    finally:
        if owned:
            ray.shutdown()
    return session.result(algo)


class Session:
    """One ``zolik train`` session of an RLlib run: its counters and the newest checkpoint."""

    def __init__(self, cfg: RllibConfig, run_dir: pathlib.Path | None) -> None:
        self.cfg = cfg
        self.run_dir = run_dir or new_run_dir(cfg)
        self.final: pathlib.Path | None = None
        self.row: dict[str, Any] = {}  # the last iteration's log row
        self.env_steps = 0
        self.started = time.monotonic()

    def resume(self, algo: Any) -> None:
        """Restore the newest checkpoint that loads (each damaged one is skipped with a
        warning; none: iteration 0) and cut the logs back to it."""
        saved = {"env_steps": 0, "learner_steps": 0}
        for checkpoint in reversed(checkpoints_of(self.run_dir)):
            try:
                meta = json.loads((checkpoint / SIDECAR).read_text())
                algo.restore_from_path(str(checkpoint.resolve()))
            except Exception as error:
                print(f"warning: skipping damaged checkpoint {checkpoint} "
                      f"({type(error).__name__}: {error})", file=sys.stderr)
                continue
            saved, self.final = meta, checkpoint
            print(f"resuming {self.run_dir} from {checkpoint.name}")
            break
        truncate_csv(self.run_dir / "progress.csv", "iteration", algo.iteration)
        truncate_csv(self.run_dir / "eval.csv", "steps", saved["learner_steps"])
        self.env_steps = int(saved["env_steps"])

    def train(self, algo: Any, budget_s: float, stop: StopRequest) -> None:
        """Iterations until the config's last or the budget (start-up not counted)."""
        from tqdm import tqdm

        cfg = self.cfg
        self.started = last = time.monotonic()
        bar = tqdm(total=cfg.iterations, initial=algo.iteration, unit="it",
                   disable=not cfg.progress, desc="rllib ppo")
        while algo.iteration < cfg.iterations and not stop.requested and not (
                budget_s and time.monotonic() - self.started > budget_s):
            result = algo.train()
            now = time.monotonic()
            self.row = log_row(result, now - last, self.env_steps)
            self.env_steps, last = self.row["env_steps"], now
            append_log(self.run_dir / "progress.csv", self.row)
            bar.update(1)
            bar.set_postfix(steps=self.env_steps, ret=self.row["learner_return"])
            if algo.iteration % cfg.checkpoint_every == 0:
                self.final = checkpoint_and_eval(algo, cfg, self.run_dir, self.row)
        bar.close()

    def save_last(self, algo: Any) -> None:
        """Checkpoint the last iteration of this session unless it has one."""
        if self.row.get("iteration") == algo.iteration and (
                self.final is None or self.final.name != f"iter_{algo.iteration:06d}"):
            self.final = save_checkpoint(algo, self.run_dir, self.cfg.rules(), self.row)

    def result(self, algo: Any) -> RunResult:
        return RunResult(self.run_dir, algo.iteration, self.env_steps,
                         time.monotonic() - self.started, self.final)


def checkpoint_and_eval(algo: Any, cfg: RllibConfig, run_dir: pathlib.Path,
                        row: dict[str, Any]) -> pathlib.Path:
    path = save_checkpoint(algo, run_dir, cfg.rules(), row)
    if cfg.eval_deals:
        evaluate_now(algo, cfg, run_dir, row["learner_steps"])
    return path
