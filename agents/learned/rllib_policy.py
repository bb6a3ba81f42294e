"""``rllib:PATH``: the learner of an RLlib run (``zolik train --backend rllib``) as a Policy.

``PATH`` is a run dir (its newest ``checkpoints/iter_*``), one algorithm checkpoint
(``checkpoints/iter_000040``) or the learner module's own folder inside one
(``.../learner_group/learner/rl_module/main``). ``rllib:PATH:argmax`` plays the most
likely move; by default moves are drawn from the masked distribution with the generator
the harness gives (``agents.learned.ppo.pick_moves``), so the same seed gives the same games.

Each algorithm checkpoint has ``zolik.json`` beside it with the rules it was trained for;
a mismatch with the requested rules is an error naming the difference. The module is
``agents.learned.rllib_net.MaskedPPOModule``; the observation is scaled here exactly as the
training env scales it (``agents.learned.ppo.obs_scale``). Needs the ``[ray]`` extra.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import SingleFromBatched
from agents.learned.ppo import CLIP, obs_scale, pick_moves, rules_difference, split_mode
from zolik_env.rummy.options import RuleSet

MODULE_ID = "main"  # the module that learns in the RLlib recipe
MODULE_DIR = Path("learner_group", "learner", "rl_module", MODULE_ID)
SIDECAR = "zolik.json"
RAY_EXTRA = "the [ray] extra is not installed: pip install -e '.[ray]' (scripts/setup.sh does)"


def checkpoints_of(run_dir: Path) -> list[Path]:
    """The algorithm checkpoints of a run dir, oldest first."""
    found = [p for p in (run_dir / "checkpoints").glob("iter_*")
             if re.fullmatch(r"iter_\d+", p.name)]
    return sorted(found, key=lambda p: int(p.name.split("_")[1]))


def resolve(path: str | Path) -> tuple[Path, Path | None]:
    """(the module folder, the algorithm checkpoint holding it or ``None``) for ``path``."""
    p = Path(path)
    if not p.is_dir():
        raise FileNotFoundError(f"no RLlib checkpoint at {p} (give a run dir, a "
                                f"checkpoints/iter_* folder or a module folder)")
    if (p / "checkpoints").is_dir():
        found = checkpoints_of(p)
        if not found:
            raise FileNotFoundError(f"no checkpoints/iter_* in the run dir {p}")
        p = found[-1]
    if (p / MODULE_DIR).is_dir():
        return p / MODULE_DIR, p
    if (p / "module_state.pkl").exists() or (p / "class_and_ctor_args.pkl").exists():
        # a module folder inside an algorithm checkpoint: check that checkpoint's rules
        full = p.resolve()
        inside = full.parents[len(MODULE_DIR.parts) - 1] \
            if len(full.parts) > len(MODULE_DIR.parts) else None
        return p, (inside if inside is not None and inside / MODULE_DIR == full else None)
    raise FileNotFoundError(f"{p} is not an RLlib checkpoint: no {MODULE_DIR} in it")


def check_rules(checkpoint: Path | None, rules: RuleSet) -> None:
    """Raise ``ValueError`` unless the checkpoint's sidecar records ``rules``."""
    if checkpoint is None or not (checkpoint / SIDECAR).exists():
        return
    saved = json.loads((checkpoint / SIDECAR).read_text())
    detail = rules_difference(saved, rules, "checkpoint")
    if detail:
        raise ValueError(f"RLlib checkpoint {checkpoint} was trained for other rules ({detail})")


class RllibPolicy(SingleFromBatched):
    """An RLlib module with masked logits (``agents.learned.rllib_net``) as a Policy."""

    def __init__(self, module: Any, rules: RuleSet, name: str = "rllib",
                 deterministic: bool = False) -> None:
        self.module = module
        self.name = name
        self.deterministic = deterministic
        self.scale = obs_scale(rules)

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float64 (B, A): the module's move distribution, zero on illegal moves."""
        import torch

        scaled = np.clip(np.asarray(obs, np.float32) * self.scale, -CLIP, CLIP)
        batch = {"obs": {"observations": torch.from_numpy(scaled),
                         "action_mask": torch.from_numpy(np.asarray(mask, np.float32))}}
        with torch.inference_mode():
            logits = self.module.forward_inference(batch)["action_dist_inputs"]
            logits = logits.masked_fill(~torch.from_numpy(np.asarray(mask, bool)), -torch.inf)
            return torch.softmax(logits, 1).double().numpy()

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        return pick_moves(self.probabilities(obs, mask), mask, rng, self.deterministic)


def load(path: str | Path, rules: RuleSet, deterministic: bool = False,
         name: str | None = None) -> RllibPolicy:
    """The learner module at ``path`` (see the module docstring), checked against ``rules``."""
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError:
        raise ValueError(f"rllib:{path}: {RAY_EXTRA}") from None
    module_dir, checkpoint = resolve(path)
    check_rules(checkpoint, rules)
    module = RLModule.from_checkpoint(module_dir.resolve())
    want = len(obs_scale(rules))
    got = int(module.observation_space["observations"].shape[0])
    if got != want:
        raise ValueError(f"RLlib module {module_dir} takes observations of {got}; "
                         f"{rules.name} with {rules.num_players} players has {want}")
    return RllibPolicy(module, rules, name or f"rllib:{path}", deterministic)


def make(rules: RuleSet, argument: str = "") -> RllibPolicy:
    """Registry factory for ``rllib:PATH`` (``rllib:PATH:argmax`` plays deterministically)."""
    if not argument:
        raise ValueError("rllib needs a checkpoint: rllib:PATH (a run dir or a checkpoint)")
    path, mode = split_mode(argument, "rllib")
    return load(path, rules, mode == "argmax", name=f"rllib:{argument}")
