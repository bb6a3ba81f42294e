"""Expert iteration (``zolik exit``): labels from the network's own deals, rounds that
resume exactly, and one-line errors."""

import dataclasses
import json

import numpy as np
import pytest
import torch

from agents.learned import ppo as ppo_agent
from agents.learned.ppo import resolve_checkpoint
from agents.registry import make_agent
from cli import main as zolik
from tests.train.test_ppo import _same_weights
from train import expert_iteration as exit_
from zolik_env.rummy import actions as A

LABELLER = "pimc:rollouts=2,candidates=2"


def plan_for(run_dir, **changes):
    return exit_.ExitPlan(**{"init": str(run_dir), "labeller": LABELLER, "rounds": 1,
                             "decisions": 24, "epochs": 1, "eval_deals": 2, "seed": 5,
                             "workers": 1, "deals_at_once": 2, **changes})


def labels(tiny_run, seed, temperature=1.0):
    cfg, result = tiny_run
    return exit_.label_part(cfg.rules(), str(resolve_checkpoint(result.run_dir)), LABELLER,
                            20, seed, 0, cfg.gamma, cfg.reward, deals_at_once=2,
                            temperature=temperature)


def test_labels__a_seed_gives_the_same_labels_another_seed_other_deals(tiny_run):
    first, again, other = labels(tiny_run, 5), labels(tiny_run, 5), labels(tiny_run, 6)
    for field in dataclasses.fields(first):
        np.testing.assert_array_equal(getattr(first, field.name), getattr(again, field.name))
    assert first.obs.shape != other.obs.shape or not np.array_equal(first.obs, other.obs)
    legal = first.legal(np.arange(len(first)))
    assert legal[np.arange(len(first)), first.action].all()  # every label a legal move
    searched = (first.action < A.MELD_BASE) | (first.action >= A.DISCARD_BASE)
    assert searched.any() and (~searched).any()  # draws/discards searched, lays planned


def test_labels__the_network_plays_its_deals_at_the_play_temperature(tiny_run):
    # over a few decisions a tiny network's draws at 1 and at 0.25 can all coincide; its
    # likeliest move (t = 0) cannot
    cooler, again, hot = labels(tiny_run, 5, 0.0), labels(tiny_run, 5, 0.0), labels(tiny_run, 5)
    np.testing.assert_array_equal(cooler.obs, again.obs)
    assert cooler.obs.shape != hot.obs.shape or not np.array_equal(cooler.obs, hot.obs)
    assert exit_.ExitPlan(init="x").play_temperature == 1.0  # as in training, and old runs


def _forget_after_labels(out, r):
    """What a kill after round ``r``'s labels, before its network, leaves: the label parts."""
    for name in ("model.zip", "model.json", "distil.json", "learned.json", "eval.json"):
        (exit_.round_dir(out, r) / name).unlink()
    (out / "final.zip").unlink()


def test_resume__rounds_killed_and_resumed_equal_a_run_that_was_never_stopped(tiny_run,
                                                                              tmp_path):
    _, result = tiny_run
    whole = exit_.run(plan_for(result.run_dir, rounds=2), tmp_path / "whole", progress=False)
    part = tmp_path / "part"
    exit_.run(plan_for(result.run_dir, rounds=1), part, progress=False)  # then stopped
    exit_.run(plan_for(result.run_dir, rounds=2), part, progress=False)  # asked for more
    _forget_after_labels(part, 2)
    resumed = exit_.run(plan_for(result.run_dir, rounds=2), part, progress=False)
    assert _same_weights(whole, resumed)
    assert (tmp_path / "whole" / "exit.csv").read_text().splitlines()[1:] != []
    rows = [line.rsplit(",", 1)[0] for line in (part / "exit.csv").read_text().splitlines()]
    assert rows == [line.rsplit(",", 1)[0]  # the same rounds, labels and scores; not seconds
                    for line in (tmp_path / "whole" / "exit.csv").read_text().splitlines()]
    first = json.loads((exit_.round_dir(part, 1) / "eval.json").read_text())
    assert first["opponent"] == "planner" and first["deals"] == 2


def test_resume__a_round_killed_midway_keeps_its_played_parts_and_plays_only_the_rest(
        tiny_run, tmp_path, monkeypatch):
    cfg, result = tiny_run
    plan, played = plan_for(result.run_dir), []
    real_part = exit_.label_part

    def killed_at_third_part(**job):
        if len(played) == 2:
            raise KeyboardInterrupt  # the kill, while the third part plays
        played.append(job["first_deal"])
        return real_part(**job)

    monkeypatch.setattr(exit_, "label_part", killed_at_third_part)
    out = tmp_path / "killed"
    with pytest.raises(KeyboardInterrupt):
        exit_.round_labels(plan, cfg, 1, resolve_checkpoint(result.run_dir), out, False)
    kept = sorted(path.name for path in exit_.round_dir(out, 1).glob("labels_*.npz"))
    assert kept == ["labels_0.npz", "labels_1.npz"]
    played_again, shard = [], played[1]  # parts start at deals 0, shard, 2 shard, ...
    monkeypatch.setattr(exit_, "label_part",
                        lambda **job: played_again.append(job["first_deal"]) or real_part(**job))
    exit_.round_labels(plan, cfg, 1, resolve_checkpoint(result.run_dir), out, False)
    assert played == [0, shard] and played_again == [2 * shard, 3 * shard]
    whole = tmp_path / "whole"
    monkeypatch.setattr(exit_, "label_part", real_part)
    exit_.round_labels(plan, cfg, 1, resolve_checkpoint(result.run_dir), whole, False)
    resumed, unstopped = exit_.raw_labels(out, 1), exit_.raw_labels(whole, 1)
    for field in dataclasses.fields(resumed):
        np.testing.assert_array_equal(getattr(resumed, field.name),
                                      getattr(unstopped, field.name))


def test_resume__other_settings_in_the_same_folder_are_refused(tiny_run, tmp_path):
    _, result = tiny_run
    exit_.run(plan_for(result.run_dir), tmp_path / "out", progress=False)
    with pytest.raises(ValueError, match="other settings \\(decisions\\)"):
        exit_.run(plan_for(result.run_dir, decisions=48), tmp_path / "out", progress=False)


@pytest.mark.parametrize(("argv", "message"), [
    (["--labeller", "planner"], "--labeller 'planner': give a search"),
    (["--labeller", "pimc:rollouts=zero"], "pimc: rollouts='zero' is not a number"),
    (["--labeller", "swap:draw"], "give only its kinds, e.g. swap:kinds=draw+meld"),
    (["--labeller", "swap:kinds=draw,net=greedy"], "give only its kinds"),
    (["--labeller", "swap:kinds=shuffle"], "kind 'shuffle': choose from draw"),
    (["--labeller", "pimc:melds=2"], "pimc: melds='2': give 0 or 1"),
    (["--labeller", "pimc:melds=1", "--anchor", "labeller"], "melds=1 searches the prior's"),
    (["--renamed-repeats"], "give --deviation-weight above 1"),
    (["--labeller", "suits:net=greedy"], "give only views, e.g. suits:views=24"),
    (["--labeller", "suits:views=30"], "suits: views=30 must be 1 to 24"),
    (["--labeller", "suits:copies=2"], "is not KEY=VALUE with KEY one of net, views"),
])
def test_cli__bad_values_are_one_line_errors(tiny_run, tmp_path, capsys, argv, message):
    _, result = tiny_run
    args = ["exit", "--init", str(result.run_dir), "--out", str(tmp_path / "o"), *argv]
    assert zolik.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o").exists()  # refused before any work


def test_resume__a_folder_from_before_a_setting_existed_resumes_with_its_default(tiny_run,
                                                                               tmp_path):
    _, result = tiny_run
    out = tmp_path / "out"
    exit_.run(plan_for(result.run_dir), out, progress=False)
    saved = json.loads((out / "exit.json").read_text())
    del saved["anchor_kl"]  # as written before the setting existed
    (out / "exit.json").write_text(json.dumps(saved))
    exit_.run(plan_for(result.run_dir), out, progress=False)  # not refused
    with pytest.raises(ValueError, match="other settings \\(anchor_kl\\)"):
        exit_.run(plan_for(result.run_dir, anchor_kl=1.0), out, progress=False)


def _drift_after(tiny_run, anchor_kl):
    """KL(start || network) over the labels after cloning them at a high step size."""
    from agents.learned import legacy
    from train.imitation import clone, drift

    cfg, result = tiny_run
    checkpoint = resolve_checkpoint(result.run_dir)
    data = exit_.label_part(cfg.rules(), str(checkpoint), "planner", 64, 9, 0, cfg.gamma,
                            cfg.reward, deals_at_once=2)
    model, start = (legacy.load_model(checkpoint, device="cpu") for _ in range(2))
    rows = np.arange(len(data))
    before = float(drift(start.policy, model.policy, data, rows).detach())
    assert before == pytest.approx(0, abs=1e-6)
    clone(model.policy, data, epochs=4, batch_size=16, learning_rate=3e-3, seed=1,
          anchor=start.policy, anchor_kl=anchor_kl)
    assert all(p.grad is None for p in start.policy.parameters())  # the anchor stays frozen
    return float(drift(start.policy, model.policy, data, rows).detach())


def test_anchor_kl__the_distilled_network_stays_nearer_the_rounds_network(tiny_run):
    free, held = _drift_after(tiny_run, 0.0), _drift_after(tiny_run, 20.0)
    assert free > 0.05  # the planner's labels pull a tiny network away from its moves
    assert held < free / 3


@pytest.mark.parametrize(("argv", "message"), [
    (["--anchor-kl", "-1"], "argument --anchor-kl: must be a finite number >= 0, got -1"),
    (["--anchor-kl", "nan"], "argument --anchor-kl: must be a finite number >= 0, got nan"),
    (["--anchor-kl", "much"], "argument --anchor-kl: expected a number, got 'much'"),
    (["--rounds", "0"], "argument --rounds: must be positive, got 0"),
    (["--decisions", "-3"], "argument --decisions: must be positive, got -3"),
    (["--discard-head", "0"], "argument --discard-head: must be positive, got 0"),
    (["--play-temperature", "-0.5"],
     "argument --play-temperature: must be a finite number >= 0, got -0.5"),
    (["--play-temperature", "hot"], "argument --play-temperature: expected a number, got 'hot'"),
])
def test_cli__bad_numbers_are_argparses_one_line_error(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        zolik.main(["exit", "--init", str(tmp_path), "--out", str(tmp_path / "o"), *argv])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(message)


def test_cli__an_init_that_is_no_run_is_named(tmp_path, capsys):
    assert zolik.main(["exit", "--init", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert f"--init {str(tmp_path)!r}: not a run dir" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["--init", "pretrained:nope"], "--init pretrained:nope: no pretrained bot 'nope': choose "
                                    "from cz_2p"),
    (["--init", "pretrained:cz_2p", "--labeller", "planner"], "--labeller 'planner': give a "
                                                              "search"),
])
def test_cli__a_bot_as_init_is_refused_before_its_copy(tmp_path, capsys, argv, message):
    assert zolik.main(["exit", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def overruling_labels(tiny_run, labeller="pimc:rollouts=8,z=0"):
    """(config, checkpoint, labels) of a search with z=0, which overrules the network
    wherever another move looks better at all."""
    cfg, result = tiny_run
    checkpoint = resolve_checkpoint(result.run_dir)
    spec = exit_.anchored(labeller, "network")
    return cfg, checkpoint, exit_.label_part(cfg.rules(), str(checkpoint), spec, 60, 7, 0,
                                             cfg.gamma, cfg.reward, deals_at_once=2)


def test_anchor__the_search_overrules_the_network_only_where_it_draws_or_discards(tiny_run):
    cfg, checkpoint, data = overruling_labels(tiny_run)
    over = exit_.overruled(data, cfg, checkpoint)
    net = ppo_agent.load(checkpoint, cfg.rules(), deterministic=True)
    own = net.act_batch(data.obs, data.legal(np.arange(len(data))), np.random.default_rng(0))
    searched = (own < A.MELD_BASE) | (own >= A.DISCARD_BASE)
    assert over.any()  # with z=0 the search overrules somewhere
    assert not over[~searched].any()  # where the network lays or lays off: its own move
    np.testing.assert_array_equal(over, own != data.action)


def test_anchor__with_melds_the_planners_move_overrules_the_networks_melds_too(tiny_run):
    cfg, checkpoint, data = overruling_labels(tiny_run, "pimc:rollouts=8,z=0,melds=1")
    over = exit_.overruled(data, cfg, checkpoint)
    net = ppo_agent.load(checkpoint, cfg.rules(), deterministic=True)
    own = net.act_batch(data.obs, data.legal(np.arange(len(data))), np.random.default_rng(0))
    melds = (own >= A.MELD_BASE) & (own < A.DISCARD_BASE)
    assert over[melds].any()  # a lay, lay-off, joker swap or undo of the network's, overruled


def test_stressed__overruled_labels_repeat_and_the_held_out_tail_holds_no_copy(tiny_run):
    data = labels(tiny_run, 5)
    over = np.zeros(len(data), bool)
    over[[0, 3, len(data) - 1]] = True  # the last one is held out
    out = exit_.stressed(data, over, 3)
    assert len(out) == len(data) + 2 * 2
    np.testing.assert_array_equal(out.action[-len(data):], data.action)  # originals in order
    np.testing.assert_array_equal(out.obs[:4], data.obs[[0, 3, 0, 3]])


@pytest.mark.parametrize("renamed", [False, True])
def test_round_labels__overruled_labels_repeat_as_they_are_or_in_other_suits(tiny_run,
                                                                           tmp_path, renamed):
    cfg, result = tiny_run
    plan = plan_for(result.run_dir, deviation_weight=3, renamed_repeats=renamed)
    checkpoint = resolve_checkpoint(result.run_dir)
    data = exit_.round_labels(plan, cfg, 1, checkpoint, tmp_path, progress=False)
    raw = exit_.raw_labels(tmp_path, 1)
    over = exit_.overruled(raw, cfg, checkpoint)
    rows = np.flatnonzero(over[:int(len(raw) * (1 - exit_.HOLDOUT))])
    assert rows.size and len(data) == len(raw) + 2 * rows.size
    plain = raw.obs.shape[1]  # the features follow the plain observation
    np.testing.assert_array_equal(data.obs[-len(raw):, :plain], raw.obs)
    repeats = data.obs[:2 * rows.size, :plain].reshape(2, rows.size, -1)
    same = [(repeat == raw.obs[rows]).all(1) for repeat in repeats]
    assert all(s.all() for s in same) != renamed  # renamed: no repeat is its label again
    if renamed:
        assert not any(s.any() for s in same)


def test_suits_labeller__labels_the_networks_own_play_averaged_over_renamings(tiny_run,
                                                                              tmp_path):
    from agents.suit_average import SuitAveraged

    cfg, result = tiny_run
    checkpoint = resolve_checkpoint(result.run_dir)
    plan = plan_for(result.run_dir, labeller="suits:views=24")
    exit_.round_labels(plan, cfg, 1, checkpoint, tmp_path, progress=False)
    raw = exit_.raw_labels(tmp_path, 1)
    legal = raw.legal(np.arange(len(raw)))
    net = ppo_agent.load(checkpoint, cfg.rules(), deterministic=True)
    averaged = SuitAveraged(net, cfg.rules(), 24)
    np.testing.assert_array_equal(raw.action,
                                  averaged.act_batch(raw.obs, legal, np.random.default_rng(0)))
    own = net.act_batch(raw.obs, legal, np.random.default_rng(0))
    assert (own != raw.action).any()  # the untrained network follows the suits' names


def test_swap_labeller__the_planners_draws_and_the_networks_own_moves_elsewhere(tiny_run):
    cfg, result = tiny_run
    checkpoint = resolve_checkpoint(result.run_dir)
    spec = exit_.anchored("swap:kinds=draw", "network")
    assert spec == f"swap:net=ppo:{exit_.NETWORK}:argmax,kinds=draw"
    data = exit_.label_part(cfg.rules(), str(checkpoint), spec, 60, 7, 0, cfg.gamma,
                            cfg.reward, deals_at_once=2)
    legal = data.legal(np.arange(len(data)))
    net = ppo_agent.load(checkpoint, cfg.rules(), deterministic=True)
    own = net.act_batch(data.obs, legal, np.random.default_rng(0))
    planner = make_agent("planner", cfg.rules()).act_batch(data.obs, legal,
                                                           np.random.default_rng(0))
    draws = own < A.MELD_BASE
    np.testing.assert_array_equal(data.action[draws], planner[draws])
    np.testing.assert_array_equal(data.action[~draws], own[~draws])
    assert (own[draws] != planner[draws]).any()  # a real correction somewhere


def test_learned__a_round_reports_the_corrections_its_network_took(tiny_run, tmp_path):
    _, result = tiny_run
    out = tmp_path / "out"
    exit_.run(plan_for(result.run_dir, labeller="pimc:rollouts=4,z=0"), out, progress=False)
    row = json.loads((exit_.round_dir(out, 1) / "learned.json").read_text())
    assert row["labels"] >= 1
    for part in (row, row["by_kind"]["draw"], row["by_kind"]["discard"]):
        for key in ("overruled", "corrected", "kept", "moved", "sure_before", "sure_after"):
            assert 0 <= part[key] <= 1
    kinds = row["by_kind"]["draw"]["labels"] + row["by_kind"]["discard"]["labels"]
    assert kinds <= row["labels"]


def test_learned__the_start_network_keeps_every_kept_move_and_takes_no_correction(tiny_run):
    cfg, checkpoint, data = overruling_labels(tiny_run)
    same = exit_.learned(data, cfg, checkpoint, checkpoint, holdout=1.0)
    assert same["labels"] == len(data)
    assert same["overruled"] > 0  # z=0: the search overrules somewhere
    assert same["corrected"] == 0 and same["kept"] == 1 and same["moved"] == 0
    assert same["sure_before"] == same["sure_after"] < 1
    assert same["by_kind"]["discard"]["kept"] == 1
    over = exit_.overruled(data, cfg, checkpoint)
    assert same["overruled"] == pytest.approx(over.mean())


def test_learned__a_network_that_plays_every_label_took_every_correction(tiny_run,
                                                                         monkeypatch):
    cfg, checkpoint, data = overruling_labels(tiny_run)
    own = exit_.likeliest(data, cfg, checkpoint)
    # the "after" network plays the labels themselves: every correction taken
    monkeypatch.setattr(exit_, "likeliest", lambda raw, cfg_, net, rows=None:
                        own[rows] if net == checkpoint else raw.action[rows].astype(np.int64))
    monkeypatch.setattr(exit_, "sureness", lambda raw, cfg_, net, rows: np.ones(len(rows)))
    took = exit_.learned(data, cfg, checkpoint, "labels", holdout=1.0)
    assert took["corrected"] == 1 and took["kept"] == 1
    assert took["moved"] == pytest.approx(took["overruled"])


def test_discard_head__the_rounds_network_has_it_saves_it_and_plays(discard_prior_run,
                                                                    tmp_path):
    cfg, result = discard_prior_run
    out = tmp_path / "out"
    final = exit_.run(plan_for(result.run_dir, discard_head=8, rounds=2), out, progress=False)
    net = ppo_agent.load(final, cfg.rules(), deterministic=True)
    head = net.policy.discard_prior.head
    assert head is not None and head.width == 8
    assert head.mlp[-1].weight.abs().sum() > 0  # trained: no longer the zero start
    sidecar = json.loads(final.with_suffix(".json").read_text())
    assert sidecar["net_spec"]["discard_prior"]["head"]["width"] == 8
    # round 2 distils round 1's network, head and all: one head, still of width 8
    second = ppo_agent.load(exit_.round_dir(out, 2) / "model.zip", cfg.rules())
    assert second.policy.discard_prior.head.width == 8


def test_discard_head__a_network_without_the_discard_prior_is_refused_in_one_line(tiny_run,
                                                                                   tmp_path,
                                                                                   capsys):
    _, result = tiny_run
    args = ["exit", "--init", str(result.run_dir), "--out", str(tmp_path / "o"),
            "--discard-head", "8"]
    assert zolik.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "--discard-head 8:" in err and "no discard prior" in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "o").exists()


def test_sureness__a_network_with_no_preference_gives_each_legal_move_its_share(tiny_run,
                                                                              tmp_path):
    from agents.learned import legacy
    from train.ppo import save_checkpoint

    cfg, checkpoint, data = overruling_labels(tiny_run)
    model = legacy.load_model(checkpoint, device="cpu")
    with torch.no_grad():  # the last layer gives every move the same logit
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias.zero_()
    flat = save_checkpoint(model, cfg, tmp_path / "flat.zip")
    rows = np.arange(len(data))
    legal = data.legal(rows).sum(1)
    sure = exit_.sureness(data, cfg, flat, rows)
    np.testing.assert_allclose(sure[legal > 1], 1 / legal[legal > 1], rtol=1e-5)
    assert np.isnan(sure[legal == 1]).all()
    assert np.nanmean(exit_.sureness(data, cfg, checkpoint, rows)) > np.nanmean(sure)
