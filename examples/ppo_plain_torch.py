"""PPO in one file of plain torch on the Gymnasium vector env, no SB3 (CleanRL style).

    python examples/ppo_plain_torch.py --minutes 5 --eval-deals 400

Trains a masked-action PPO learner against random opponents on
``gymnasium.make_vec("zolik/Zolik-v0", num_envs=N)`` (the core's batch axis: one core
call per step for all deals), then measures it against the random agent on held-out
duplicate deals with the kit's evaluation harness (``eval.tournament.evaluate``: points
per deal, higher is better for the first, with a 95% interval). Illegal moves get a
logit of -1e9, so the policy only ever samples legal ones.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import zolik_env  # noqa: F401  (registers zolik/Zolik-v0)
from agents.base import SingleFromBatched
from eval.tournament import evaluate

MASKED = -1e9


class ActorCritic(nn.Module):
    def __init__(self, obs_size: int, actions: int, hidden: int = 256) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.pi, self.v = nn.Linear(hidden, actions), nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs.float().clamp(-1, 100) / 10)
        return self.pi(h).masked_fill(~mask, MASKED), self.v(h).squeeze(-1)


class Learner(SingleFromBatched):
    """The trained network as a kit Policy (its likeliest legal move), for the harness."""

    name = "plain_ppo"

    def __init__(self, net: ActorCritic) -> None:
        self.net = net

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator
                  ) -> np.ndarray:
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(obs), torch.as_tensor(mask, dtype=torch.bool))
        return logits.argmax(-1).numpy()


def rollout(envs, net, obs, mask, steps: int) -> tuple[dict[str, torch.Tensor], ...]:
    """``steps`` steps of every env with the current policy: the batch for an update."""
    keys = ("obs", "mask", "action", "logp", "value", "reward", "done")
    buf: dict[str, list[torch.Tensor]] = {k: [] for k in keys}
    for _ in range(steps):
        o, m = torch.as_tensor(obs), torch.as_tensor(mask, dtype=torch.bool)
        with torch.no_grad():
            logits, value = net(o, m)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        obs, reward, term, trunc, info = envs.step(action.numpy())
        mask = info["action_mask"]
        for key, value_ in zip(keys, (o, m, action, dist.log_prob(action), value,
                                      torch.as_tensor(reward, dtype=torch.float32),
                                      torch.as_tensor(term | trunc, dtype=torch.float32)),
                               strict=True):
            buf[key].append(value_)
    with torch.no_grad():
        _, last = net(torch.as_tensor(obs), torch.as_tensor(mask, dtype=torch.bool))
    return {k: torch.stack(v) for k, v in buf.items()}, last, obs, mask


def advantages(batch: dict[str, torch.Tensor], last: torch.Tensor, gamma: float,
               lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE(lambda); a done step's next value is the new deal's, so it is cut off."""
    adv = torch.zeros_like(batch["reward"])
    running = torch.zeros_like(last)
    for t in reversed(range(len(adv))):
        nxt = last if t == len(adv) - 1 else batch["value"][t + 1]
        keep = 1.0 - batch["done"][t]
        delta = batch["reward"][t] + gamma * nxt * keep - batch["value"][t]
        running = delta + gamma * lam * keep * running
        adv[t] = running
    return adv, adv + batch["value"]


def update(net, optimizer, batch, adv, returns, epochs: int = 3, minibatch: int = 1024,
           clip: float = 0.2) -> None:
    flat = {k: v.flatten(0, 1) for k, v in batch.items()}
    adv, returns = adv.flatten(), returns.flatten()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    for _ in range(epochs):
        for rows in torch.randperm(len(adv)).split(minibatch):
            logits, value = net(flat["obs"][rows], flat["mask"][rows])
            dist = torch.distributions.Categorical(logits=logits)
            ratio = (dist.log_prob(flat["action"][rows]) - flat["logp"][rows]).exp()
            policy_loss = -torch.min(ratio * adv[rows],
                                     ratio.clamp(1 - clip, 1 + clip) * adv[rows]).mean()
            loss = (policy_loss + 0.5 * ((value - returns[rows]) ** 2).mean()
                    - 0.001 * dist.entropy().mean())
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimizer.step()


def train(minutes: float, num_envs: int, steps: int, seed: int) -> ActorCritic:
    torch.manual_seed(seed)
    envs = gym.make_vec("zolik/Zolik-v0", num_envs=num_envs, rules="cz", num_players=2,
                        opponents="random", seed=seed, seed_limit=10**9)
    obs, info = envs.reset(seed=seed)
    mask = info["action_mask"]
    net = ActorCritic(obs.shape[1], envs.single_action_space.n)
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-4)
    start, done_steps = time.time(), 0
    while time.time() - start < 60 * minutes:
        batch, last, obs, mask = rollout(envs, net, obs, mask, steps)
        adv, returns = advantages(batch, last, gamma=0.998, lam=0.95)
        update(net, optimizer, batch, adv, returns)
        done_steps += steps * num_envs
    print(f"trained {done_steps:,} learner steps in {time.time() - start:.0f} s")
    return net


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=32, help="steps per env per rollout")
    parser.add_argument("--eval-deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(2)
    net = train(args.minutes, args.num_envs, args.steps, args.seed)
    result = evaluate([Learner(net), "random"], "cz", players=2, deals=args.eval_deals,
                      names=["plain_ppo", "random"], workers=1, progress=False)
    pair = result.summary.pairs[0]["difference"]
    print(f"plain_ppo - random on {args.eval_deals} held-out duplicate deals: points per deal "
          f"{pair['mean']:+.1f} [{pair['low']:+.1f}, {pair['high']:+.1f}] (95%, higher is "
          f"better for plain_ppo)")


if __name__ == "__main__":
    main()
