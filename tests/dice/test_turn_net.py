"""``policy: turn``: the dice policy that plays each turn by lookahead over a learned
value of scorecards (``agents.dice.dice_turn_net``)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch
import yaml

from agents.dice.dice_turn_net import ILLEGAL, TurnLookahead
from agents.dice.players import OptimalAgent, PPOAgent, RandomAgent
from train.dice import ppo as dice_ppo
from train.dice.vec import KostkyVecEnv
from zolik_env.dice import DiceRules, combos, game, legal_action_mask, observe, solver, step


def _positions(rules: DiceRules, games: int, seed: int, moves: int):
    """Observations and masks of ``games`` games after up to ``moves`` moves each (a mix of
    optimal and random play, so cards of every kind and all three rolls appear)."""
    rng = np.random.default_rng(seed)
    optimal = OptimalAgent(rules) if rules.table == "classic" else None
    state = game.init(rules, np.arange(games) + seed * 10_000)
    out = []
    for _ in range(moves):
        mask = legal_action_mask(rules, state)
        live = mask.any(1)
        if not live.any():
            break
        obs = observe(rules, state, 0)
        out.append((obs[live], mask[live]))
        actions = RandomAgent().act_batch(obs, mask, rng)
        if optimal is not None:
            best = optimal.act_batch(obs[live], mask[live])
            take = rng.random(live.sum()) < 0.6
            actions[np.flatnonzero(live)[take]] = best[take]
        state, _ = step(rules, state, np.where(live, actions, 0), False)
    return out


def _with_solver_values(net: TurnLookahead, rules: DiceRules) -> None:
    """Replace the learned card values by the exact solver's expected score to come."""
    table = torch.as_tensor(np.nan_to_num(solver.value_table(rules.joker, rules.yahtzee_bonus,
                                                             False)), dtype=torch.float32)
    bits = 2 ** torch.arange(13)

    def exact(is_open, upper, flag):
        open_next = is_open[:, None, :] * (1 - net.cand_box)
        mask = ((1 - open_next).long() * bits).sum(2)
        upper_next = (upper[:, None] + net.cand_add).clamp(max=63).long()
        flag_next = torch.maximum(flag[:, None], net.cand_flag.float() * rules.yahtzee_bonus)
        return table[flag_next.long(), mask, upper_next]

    net.card_values = exact


@pytest.mark.parametrize(("joker", "bonus"), [("forced", True), ("free", True), ("none", False)])
def test_lookahead__with_the_solvers_card_values_gives_the_solvers_action_values(joker, bonus):
    """The lookahead is exact: put the solver's value of every scorecard in place of the
    learned one and each legal action's value is the optimal agent's, on positions of
    every kind (three rolls, joker rolls, bonus rolls); its legal actions are the core's."""
    rules = DiceRules(joker=joker, yahtzee_bonus=bonus)
    net = TurnLookahead(rules, 1.0, (8,))
    _with_solver_values(net, rules)
    optimal = OptimalAgent(rules)
    checked = 0
    for obs, mask in _positions(rules, 120, seed=1, moves=39):
        with torch.no_grad():
            q, legal = net(torch.as_tensor(obs))
        np.testing.assert_array_equal(legal.numpy(), mask)
        exact = optimal.action_values(obs, mask)
        np.testing.assert_allclose(q.numpy()[mask], exact[mask], atol=2e-3)
        checked += int(mask.sum())
    assert checked > 20_000


def _dense_reference(net: TurnLookahead, obs: torch.Tensor) -> torch.Tensor:
    """The same Q through the whole ``(B, 252, 13)`` table with autograd (max and all):
    the slow, obvious way the module's forward must match in value and gradient."""
    b = obs.shape[0]
    counts = net._part(obs, "dice").reshape(b, 5, 6).sum(1).round().long()
    roll = net.roll_of_code[counts @ net.powers]
    rolls_left = net._part(obs, "rolls_left").argmax(1)
    is_open = net._part(obs, "open")
    upper = torch.round(net._part(obs, "upper")[:, 0] * 63)
    flag = (net._part(obs, "yahtzee_50")[:, 0] > 0.5).float() * float(net.bonus)
    final = net.final_values(is_open, flag, net.after_values(is_open, upper, flag))
    boxes = final[torch.arange(b), roll]
    last = final.amax(2)
    one = torch.cat([last @ net.transition, last], dim=1)
    best = [one[:, :1]]
    start = 1
    for size in range(1, 6):
        stop = start + combos.SIZE_STARTS[size]
        parents = torch.cat(best, 1)[:, net.parents[start:stop]].amax(2)
        best.append(torch.maximum(one[:, start:stop], parents))
        start = stop
    two = torch.cat([best[-1] @ net.transition, best[-1]], dim=1)
    keeps = net.reroll_keeps[roll]
    rerolls = torch.where((rolls_left == 2)[:, None], two.gather(1, keeps), one.gather(1, keeps))
    q = torch.cat([rerolls, boxes], dim=1)
    legal = torch.cat([(rolls_left > 0)[:, None].expand(b, 31), boxes > ILLEGAL / 2], dim=1)
    return torch.where(legal, q, torch.zeros_like(q))


@pytest.mark.parametrize("joker", ["forced", "free"])
def test_lookahead__gradient_equals_the_dense_tables(joker):
    """forward builds the big table without autograd and re-attaches the gradient at the
    entries the maxima pick; values and the card network's gradient equal the dense way."""
    rules = DiceRules(joker=joker)
    torch.manual_seed(0)
    net = TurnLookahead(rules, 0.02, (16, 16))
    for p in net.card_value.parameters():
        torch.nn.init.normal_(p, std=0.5)
    obs = torch.as_tensor(np.concatenate([o for o, _ in _positions(rules, 40, seed=2, moves=39)]))
    weights = torch.randn(obs.shape[0], 44)
    grads = []
    for fn in (net.forward, lambda x: _dense_reference(net, x)):
        net.zero_grad()
        q = fn(obs)
        q = q[0] if isinstance(q, tuple) else q
        (q * weights).sum().backward()
        grads.append((q.detach(), torch.cat([p.grad.ravel() for p in net.card_value.parameters()])))
    torch.testing.assert_close(grads[0][0], grads[1][0])
    torch.testing.assert_close(grads[0][1], grads[1][1], rtol=1e-4, atol=1e-3)
    assert grads[1][1].abs().max() > 1.0  # the comparison is of real gradients


def test_lookahead__refuses_the_triple_table():
    with pytest.raises(ValueError, match="solitaire classic"):
        TurnLookahead(DiceRules(table="triple"), 0.02, (8,))


def test_config__turn_policy_on_fixed_order_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("policy: turn\nfixed_order: true\n")
    with pytest.raises(ValueError, match="fixed_order"):
        dice_ppo.load_config(path)


def test_config__unknown_policy_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("policy: tree\n")
    with pytest.raises(ValueError, match="policy"):
        dice_ppo.load_config(path)


def _tiny_turn_run(tmp_path, steps: int, hidden: int):
    """A run dir of a tiny ``policy: turn`` run (checkpoints every 256 steps)."""
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({
        "total_timesteps": steps, "num_envs": 16, "n_steps": 16, "batch_size": 64,
        "n_epochs": 1, "checkpoint_every": 256, "policy": "turn", "turn_hidden": [hidden],
        "run_root": str(tmp_path / "runs"),
    }))  # fmt: skip
    return dice_ppo.run(dice_ppo.load_config(path))


def test_run_with_turn_policy__trains_saves_and_plays(tmp_path):
    """A tiny run: PPO updates the card network, the checkpoint reloads (``ppo:PATH``)
    and plays legal moves that follow its values."""
    run_dir = _tiny_turn_run(tmp_path, 512, 16)
    agent = PPOAgent(str(run_dir))
    policy = agent.model.policy
    assert type(policy).__name__ == "TurnLookaheadPolicy"
    last = policy.turn.card_value[-1]
    assert last.weight.abs().sum() > 0  # zero at the start: the updates moved it
    assert policy.log_beta.exp().item() != pytest.approx(20.0, abs=1e-6)  # saved, trained
    env = KostkyVecEnv(8, DiceRules(joker="forced"), seed=1)
    obs, mask = env.reset(), env.action_masks()
    actions = agent.act_batch(obs, mask)
    assert mask[np.arange(8), actions].all()
    with torch.no_grad():
        q, _ = policy.turn(torch.as_tensor(obs))
    best = np.where(mask, q.numpy(), -np.inf).argmax(1)
    np.testing.assert_array_equal(actions, best)


def test_curve__plays_every_snapshot_on_the_same_dice(tmp_path, capsys):
    """``zolik dice curve``: one row per checkpoint and the final model, same games for each
    (a snapshot played twice scores the same), the CSV and the plot in the run dir."""
    from cli import dice as cli

    run_dir = _tiny_turn_run(tmp_path, 768, 8)
    assert cli.main(["curve", str(run_dir), "--games", "40"]) == 0
    rows = list(csv.DictReader((run_dir / "greedy_curve.csv").open()))
    steps = [int(r["steps"]) for r in rows]
    assert steps == sorted(steps) and len(steps) >= 3 and steps[-1] >= 768
    assert (run_dir / "learning_curve.png").stat().st_size > 1000
    assert "written:" in capsys.readouterr().out
    from train.dice.curve import curve

    again = curve(run_dir, 40)
    assert [r["mean"] for r in again] == [float(r["mean"]) for r in rows]


def test_curve__a_folder_without_a_run_is_one_line(tmp_path):
    from cli import dice as cli

    with pytest.raises(SystemExit, match="zolik dice curve: not a dice run dir"):
        cli.main(["curve", str(tmp_path)])
