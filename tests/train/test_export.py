"""``train.export`` and ``agents.learned.pretrained``: a run becomes a bot that plays as
exported."""

import json
import pathlib
import re
import shlex
import shutil

import numpy as np
import pytest
import torch

import cli.main as cli
from agents.learned import ppo as ppo_agent
from agents.learned import pretrained
from agents.registry import make_agent
from cli import eval as eval_cli
from cli import strength as strength_cli
from train.best_response import TARGET_FILE, shipped_bot, target_record
from train.bot_run import run_of_bot
from train.export import (
    BEST_RESPONSE_PARAGRAPH,
    best_response_paragraph,
    card_training,
    export,
    record_best_response,
    rules_flags,
    training_paragraph,
)
from train.ppo import read_config
from zolik_env.envs.zolik_common import make_rules
from zolik_env.rummy import game
from zolik_env.rummy.observe import observe


@pytest.fixture(scope="module")
def exported(tiny_run, tmp_path_factory):
    cfg, result = tiny_run
    out = tmp_path_factory.mktemp("bots")
    meta = export(result.run_dir, "tiny", deals=2, opponents=("random",), out_dir=out,
                  note="A test bot.")
    return cfg, result, out, meta


def _some_states(rules, n=32):
    state = game.init(rules, np.arange(n))
    rng = np.random.default_rng(0)
    for _ in range(8):  # after an even number of moves each seat has a discard to choose
        state = game.step(rules, state, game.sample_legal(game.legal_action_mask(rules, state),
                                                          rng))[0]
    mask = game.legal_action_mask(rules, state)
    assert (mask.sum(1) > 1).all()
    return observe(rules, state, state.current), mask


def test_export__the_bot_plays_like_its_checkpoint(exported):
    cfg, result, out, _ = exported
    rules = cfg.rules()
    saved = torch.load(out / "tiny.pt", weights_only=True)
    bot = ppo_agent.PPOPolicy(pretrained.unpack(saved, rules, "tiny"), "bot", rules=rules)
    original = ppo_agent.load(result.final, rules)
    obs, mask = _some_states(rules)
    np.testing.assert_allclose(bot.probabilities(obs, mask), original.probabilities(obs, mask),
                               atol=2e-3)  # float16 weights
    assert (bot.probabilities(obs, mask)[~mask] == 0).all()


def test_run_of_bot__its_final_zip_plays_exactly_as_the_shipped_file(exported, tmp_path):
    """``zolik exit --init pretrained:NAME`` starts from this run: the float16 weights,
    widened, are the network's, and a second call reuses the folder."""
    cfg, _, shipped, meta = exported
    rules = cfg.rules()
    out = tmp_path / "bots"  # the bot's weights moved off a fresh network's, seeded
    shutil.copytree(shipped, out)
    saved = torch.load(out / "tiny.pt", weights_only=True)
    noise = torch.Generator().manual_seed(0)
    saved["state_dict"] = {k: (v + 0.1 * torch.randn(v.shape, generator=noise)).half()
                           if v.is_floating_point() else v
                           for k, v in saved["state_dict"].items()}
    torch.save(saved, out / "tiny.pt")
    run = run_of_bot("tiny", cfg, tmp_path / "init", bots=out)
    bot = ppo_agent.PPOPolicy(pretrained.unpack(saved, rules, "tiny"), "bot", rules=rules)
    copy = ppo_agent.load(ppo_agent.resolve_checkpoint(run), rules)
    obs, mask = _some_states(rules)
    np.testing.assert_array_equal(copy.probabilities(obs, mask), bot.probabilities(obs, mask))
    assert read_config(run) == cfg
    assert json.loads((run / "final.json").read_text())["step"] == meta["steps"]
    assert run_of_bot("tiny", cfg, run, bots=out) == run


def test_run_of_bot__another_network_or_another_file_is_refused(exported, tmp_path):
    cfg, _, out, _ = exported
    with pytest.raises(ValueError, match=r"builds another network than pretrained:tiny "
                                         r"\(net_arch differ\)"):
        run_of_bot("tiny", cfg.model_copy(update={"net_arch": (8,)}), tmp_path / "a", bots=out)
    run = run_of_bot("tiny", cfg, tmp_path / "b", bots=out)
    (run / "bot.json").write_text(json.dumps({"bot": "tiny", "bot_sha256": "0" * 64}))
    with pytest.raises(ValueError, match="holds another bot's network"):
        run_of_bot("tiny", cfg, run, bots=out)


def test_run_of_bot__a_bot_with_a_discard_head_starts_a_run_that_plays_as_it(
        discard_prior_run, tmp_path):
    """A head joins a recipe's network after its training (``zolik exit --discard-head``),
    so the recipe its card names builds the network without it: the run gets the head."""
    from agents.learned.build import with_discard_head
    from agents.learned.legacy import load_model
    from train.ppo import save_checkpoint

    cfg, result = discard_prior_run
    rules = cfg.rules()
    run = tmp_path / "headed"
    shutil.copytree(result.run_dir, run)
    model = load_model(result.final, device="cpu")
    with_discard_head(model, 8, rules)
    torch.nn.init.normal_(model.policy.discard_prior.head.mlp[-1].weight, std=1.0)
    for stale in run.glob("*.zip"):
        stale.unlink()
    save_checkpoint(model, cfg, run / "final.zip")
    out = tmp_path / "bots"
    export(run, "headed", deals=2, opponents=("random",), out_dir=out)
    copy = run_of_bot("headed", cfg, tmp_path / "init", bots=out)
    saved = torch.load(out / "headed.pt", weights_only=True)
    bot = ppo_agent.PPOPolicy(pretrained.unpack(saved, rules, "headed"), "bot", rules=rules)
    started = ppo_agent.load(ppo_agent.resolve_checkpoint(copy), rules)
    assert started.policy.discard_prior.head.width == 8
    obs, mask = _some_states(rules)
    np.testing.assert_array_equal(started.probabilities(obs, mask), bot.probabilities(obs, mask))


def test_training_paragraph__an_exit_run_names_its_rounds_and_the_bot_it_started_from(
        exported, tmp_path):
    """The card of a bot exported from ``zolik exit --init pretrained:NAME`` says how the
    rounds ran and carries the training paragraph of the card it started from."""
    import dataclasses

    from train.expert_iteration import ExitPlan

    cfg, result, out, meta = exported
    init = run_of_bot("tiny", cfg, tmp_path / "exit" / "init", bots=out)
    plan = ExitPlan(init=str(init), labeller="pimc:rollouts=8", decisions=1234,
                    deviation_weight=4, epochs=6, anchor_kl=0.5, discard_head=64)
    (tmp_path / "exit" / "exit.json").write_text(json.dumps(dataclasses.asdict(plan)))
    (tmp_path / "exit" / "exit.csv").write_text("round,labels,vs_planner,low,high,deals,"
                                                "seconds\n1,1234,0,0,0,2,600\n2,2468,0,0,0,2,"
                                                "1200\n")
    text = " ".join(training_paragraph(tmp_path / "exit", 0).split())
    assert text.startswith("`zolik exit` (expert iteration, seed 1): 2 rounds, each of 1,234 "
                           "decisions of its own play labelled by `pimc:rollouts=8` with its "
                           "likeliest move as the one to beat, the labels that overrule it "
                           "counted 4 times, distilled for 6 epochs at step 0.0003, a KL "
                           "anchor of weight 0.5, the network given a discard head of 64 "
                           "units (`agents/learned/discard_head.py`); about 30 minutes")
    before = " ".join(training_paragraph(result.run_dir, meta["steps"]).split())
    assert text.endswith(f"It started from `pretrained:tiny` as it shipped then (sha256 "
                         f"{pretrained.digest('tiny', out)[:12]}), trained so: {before} A test "
                         f"bot.")
    assert before.startswith(f"`zolik train` (run `tiny`, seed 3): PPO self-play against an "
                             f"opponent pool for {meta['steps']:,} learner steps")
    renamed = dataclasses.replace(plan, renamed_repeats=True)
    (tmp_path / "exit" / "exit.json").write_text(json.dumps(dataclasses.asdict(renamed)))
    assert "counted 4 times (the copies in renamed suits), distilled" in " ".join(
        training_paragraph(tmp_path / "exit", 0).split())


def test_training_paragraph__a_copy_of_a_shipped_bot_keeps_its_card_s_paragraph(
        exported, tmp_path):
    """A bot exported again from its copy (at another play temperature) is still the
    network its card's training paragraph describes, not an untrained-looking run."""
    cfg, _, out, _ = exported
    copy = run_of_bot("tiny", cfg, tmp_path / "copy", bots=out)
    assert training_paragraph(copy, 0) == card_training("tiny", out)
    assert card_training("tiny", out).startswith("`zolik train` (run `tiny`, seed 3)")


@pytest.mark.parametrize("name", pretrained.names())
def test_bot_config__each_shipped_bot_s_packaged_recipe_builds_its_network(name):
    """``zolik exit --init pretrained:NAME`` rebuilds the bot from the config its card
    names: a recipe changed since the export would no longer fit the weights."""
    from cli.exit import bot_config
    from train.bot_run import recipe_differences

    saved = torch.load(pretrained.BOTS / f"{name}.pt", weights_only=True)
    spec = pretrained.spec_of_bot(saved, name).to_dict()
    assert recipe_differences(bot_config(name), spec)[0] == []
    wider = {**spec, "net_arch": [w + 1 for w in spec["net_arch"]]}  # a changed recipe shows
    assert recipe_differences(bot_config(name), wider)[0] == ["net_arch"]


def test_export__writes_rules_strength_and_a_model_card(exported):
    _, _, out, meta = exported
    saved = json.loads((out / "tiny.json").read_text())
    assert saved == json.loads(json.dumps(meta))
    assert saved["rules"] == "cz" and saved["num_players"] == 2
    assert [(row["play"], row["opponent"]) for row in saved["strength"]] == [
        ("sample", "random"), ("argmax", "random")]
    card = (out / "tiny.md").read_text()
    assert "# pretrained:tiny" in card and "A test bot." in card and "| argmax | random |" in card
    # a new file's exploitability is unmeasured, whatever the bot it replaces had
    assert saved["best_response"]["margin"] is None
    assert saved["best_response"]["command"].startswith(
        "zolik strength exploit --agent pretrained:tiny ")
    assert "**Best-response margin.** Not measured yet" in card


def test_pretrained__other_rules_are_an_error_naming_the_difference(exported):
    _, _, out, _ = exported
    saved = torch.load(out / "tiny.pt", weights_only=True)
    with pytest.raises(ValueError, match="num_players: bot 2 vs requested 3"):
        pretrained.unpack(saved, make_rules("cz", 3, {"max_turns": 40}), "tiny")


def test_pretrained__unknown_bot_names_the_ones_that_ship():
    with pytest.raises(ValueError, match="no pretrained bot 'nope'"):
        pretrained.card("nope")


SHIPPED = sorted(pathlib.Path("agents/learned/bots").glob("*.json"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_card__its_commands_seat_the_bot_at_its_own_rules(path):
    meta, name = json.loads(path.read_text()), path.stem
    card = path.with_suffix(".md").read_text()
    play = re.search(r"Play it: `(zolik eval [^`]+)`", card).group(1)
    for command in (play, meta["best_response"]["command"]):
        assert command in card
        words = shlex.split(command)
        parser = {"eval": eval_cli, "strength": strength_cli}[words[1]].build_parser()
        args = parser.parse_args(words[2:])
        seated = (args.preset or "cz", args.players or 2)  # eval's defaults come from its config
        assert seated == (meta["rules"], meta["num_players"]), command
    rules = make_rules(meta["rules"], meta["num_players"], meta["rule_options"])
    make_agent(f"pretrained:{name}", rules)  # the bot accepts the rules the flags give
    # the card's best-response paragraph says what its json says
    assert BEST_RESPONSE_PARAGRAPH.search(card).group(0) == best_response_paragraph(
        meta["best_response"])


def test_rules_flags__only_what_differs_from_cz_with_two_players():
    assert rules_flags("cz", 2) == ""
    assert rules_flags("sk", 2) == " --preset sk"
    assert rules_flags("cz", 4) == " --players 4"
    assert rules_flags("jolly", 3) == " --preset jolly --players 3"


@pytest.fixture
def best_response_run(exported, tmp_path):
    """A copy of the tiny bot's files, and a best-response run against it whose margin was
    measured: (bots folder, run dir)."""
    _, result, out, _ = exported
    bots = tmp_path / "bots"
    bots.mkdir()
    for suffix in (".pt", ".json", ".md"):
        shutil.copy(out / f"tiny{suffix}", bots)
    run = tmp_path / "exploit_tiny"
    run.mkdir()
    shutil.copy(result.run_dir / "config.yaml", run)
    final = {"agent": "ppo:x", "target": "pretrained:tiny", "deals": 2000, "difference": 3.25,
             "low": 1.5, "high": 5.0, "win_share": 0.55, "step": 123456}
    reference = {**final, "target": "planner", "difference": -7.5, "low": -9.0, "high": -6.0,
                 "step": 654321}
    (run / "exploit.json").write_text(json.dumps({"final": final, "reference": reference}))
    (run / TARGET_FILE).write_text(json.dumps(
        {"target": "pretrained:tiny", "bot_sha256": pretrained.digest("tiny", bots)}))
    return bots, run


def test_record_best_response__the_margin_goes_into_the_json_and_the_card(best_response_run):
    bots, run = best_response_run
    before = (bots / "tiny.md").read_text()
    name, entry = record_best_response(run, bots)
    assert name == "tiny" and entry["margin"]["difference"] == 3.25
    saved = json.loads((bots / "tiny.json").read_text())
    assert saved["best_response"] == entry and entry["steps"] == 123456
    assert entry["bot_sha256"] == pretrained.digest("tiny", bots)
    budget = read_config(run).time_budget_minutes
    assert (f"for a\n{budget:g}-minute session" if budget else "without a\ntime budget") in (
        bots / "tiny.md").read_text()
    assert entry["command"].startswith("zolik strength exploit --agent pretrained:tiny ")
    card = (bots / "tiny.md").read_text()
    assert "**+3.25 [+1.50, +5.00]**" in card and "\n2,000 held-out" in card
    assert "the reference: -7.50 [-9.00, -6.00]" in card and "(654,321 learner" in card
    assert "Not measured yet" in before and "Not measured yet" not in card
    # only the paragraph changed
    assert card.split("**Best-response margin.**")[0] == before.split(
        "**Best-response margin.**")[0]
    assert card.split("Play it:")[1] == before.split("Play it:")[1]


def test_record_best_response__refuses_a_run_against_another_file(best_response_run):
    bots, run = best_response_run
    (bots / "tiny.pt").write_bytes((bots / "tiny.pt").read_bytes() + b"\0")
    with pytest.raises(ValueError, match="another file of pretrained:tiny"):
        record_best_response(run, bots)
    assert "Not measured yet" in (bots / "tiny.md").read_text()


@pytest.mark.parametrize(("change", "named"), [
    (lambda run: (run / TARGET_FILE).write_text('{"target": "planner"}'),
     "best response to 'planner', not to a bot that ships"),
    (lambda run: (run / TARGET_FILE).unlink(), "is not a best-response run"),
    (lambda run: (run / "exploit.json").unlink(), "has no measured margin"),
])
def test_record_best_response__refusals_name_the_run(best_response_run, change, named):
    bots, run = best_response_run
    change(run)
    with pytest.raises(ValueError, match=named):
        record_best_response(run, bots)


def test_best_response_target_record__keeps_the_file_of_a_shipped_bot():
    assert target_record("planner") == {"target": "planner"}
    assert shipped_bot("pretrained:cz_2p:argmax") == "cz_2p"
    assert shipped_bot("me=pretrained:cz_2p") == "cz_2p"
    assert target_record("pretrained:cz_2p")["bot_sha256"] == pretrained.digest("cz_2p")


def test_export_cli__best_response_of_a_missing_run_is_one_line(capsys, tmp_path):
    assert cli.main(["export", "--best-response", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nowhere" in err


def test_record_best_response__a_reference_without_steps_reads_them_from_its_run(
        best_response_run, exported):
    from eval.exploit import checkpoints

    _, result, _, _ = exported
    bots, run = best_response_run
    measured = json.loads((run / "exploit.json").read_text())
    measured["reference"].update(step=0, agent=f"ppo:{result.final}")
    (run / "exploit.json").write_text(json.dumps(measured))
    _, entry = record_best_response(run, bots)
    steps = checkpoints(result.run_dir)[-1][0]
    assert steps > 0 and entry["reference"]["steps"] == steps
    assert f"by the same recipe ({steps:,} learner steps)" in (bots / "tiny.md").read_text()


def test_export__a_play_temperature_is_saved_measured_and_played(exported, tmp_path):
    cfg, result, _, _ = exported
    rules = cfg.rules()
    meta = export(result.run_dir, "cold", deals=2, opponents=("random",), out_dir=tmp_path,
                  temperature=0.5)
    saved = torch.load(tmp_path / "cold.pt", weights_only=True)
    assert saved["format"] == pretrained.FORMAT == 3 and pretrained.temperature(saved) == 0.5
    assert meta["temperature"] == 0.5
    assert "at play temperature 0.5" in (tmp_path / "cold.md").read_text()
    bot = ppo_agent.PPOPolicy(pretrained.unpack(saved, rules, "cold"), "bot", rules=rules,
                              temperature=pretrained.temperature(saved))
    obs, mask = _some_states(rules, 256)
    probs = bot.probabilities(obs, mask)
    got = bot.act_batch(obs, mask, np.random.default_rng(5))
    want = ppo_agent.pick_moves(ppo_agent.sharpen(probs, 0.5), mask,
                                np.random.default_rng(5), False)
    np.testing.assert_array_equal(got, want)
    fixed = np.zeros((20_000, mask.shape[1]))
    fixed[:, [0, 2, 4]] = [0.2, 0.5, 0.3]  # the bot's draw from a known distribution
    drawn = bot.act_probabilities(fixed, fixed > 0, np.random.default_rng(6))
    share = np.bincount(drawn, minlength=5)[[0, 2, 4]] / len(drawn)
    np.testing.assert_allclose(share, np.array([4, 25, 9]) / 38, atol=0.015)
    for bad, named in ((-1, "--temperature: play temperature -1"),
                       (float("nan"), "--temperature: play temperature nan")):
        with pytest.raises(ValueError, match=named):
            export(result.run_dir, "bad", deals=2, opponents=("random",), out_dir=tmp_path,
                   temperature=bad)
    assert not (tmp_path / "bad.pt").exists()


def test_export__at_temperature_0_the_bot_plays_its_likeliest_move_and_says_so(
        exported, tmp_path):
    cfg, result, _, _ = exported
    rules = cfg.rules()
    meta = export(result.run_dir, "top", deals=2, opponents=("random",), out_dir=tmp_path,
                  temperature=0)
    assert [(r["play"], r["opponent"]) for r in meta["strength"]] == [("argmax", "random")]
    card = (tmp_path / "top.md").read_text()
    assert "`argmax` always plays its likeliest move, as `pretrained:top` does" in card
    assert "| sample |" not in card and "`pretrained:top:t=1` samples" in card
    saved = torch.load(tmp_path / "top.pt", weights_only=True)
    assert pretrained.temperature(saved) == 0.0
    bot = ppo_agent.PPOPolicy(pretrained.unpack(saved, rules, "top"), "bot", rules=rules,
                              temperature=pretrained.temperature(saved))
    obs, mask = _some_states(rules, 256)
    want = np.where(mask, bot.probabilities(obs, mask), -1.0).argmax(1)
    for seed in (1, 2):  # no draw: the same move whatever the generator
        np.testing.assert_array_equal(bot.act_batch(obs, mask, np.random.default_rng(seed)),
                                      want)


def test_export__a_bot_averaged_over_renamings_is_measured_and_played_so(exported, tmp_path):
    from agents.suit_average import SuitAveraged

    cfg, result, _, _ = exported
    rules = cfg.rules()
    meta = export(result.run_dir, "even", deals=2, opponents=("random",), out_dir=tmp_path,
                  temperature=0, views=4)
    saved = torch.load(tmp_path / "even.pt", weights_only=True)
    assert meta["views"] == pretrained.play_views(saved) == 4
    assert "averaged over 4 renamings of the suits" in (tmp_path / "even.md").read_text()
    bot = pretrained.player(saved, rules, "even", "", False, 0.0, 4)
    network = pretrained.player(saved, rules, "even", ":argmax", True, 0.0, 1)
    assert isinstance(bot, SuitAveraged) and bot.name == "pretrained:even"
    obs, mask = _some_states(rules, 256)
    want = SuitAveraged(network, rules, 4).act_batch(obs, mask, np.random.default_rng(0))
    np.testing.assert_array_equal(bot.act_batch(obs, mask, np.random.default_rng(1)), want)
    assert pretrained.play_views({"temperature": 0.0}) == 1  # a bot from before: the network
    for bad, named in (({"temperature": 0.5, "views": 4}, "give play temperature 0"),
                       ({"temperature": 0, "views": 30}, "views=30 must be 1 to 24")):
        with pytest.raises(ValueError, match=named):
            export(result.run_dir, "bad", deals=2, opponents=("random",), out_dir=tmp_path,
                   **bad)
    assert not (tmp_path / "bad.pt").exists()


def test_pretrained__the_spec_chooses_the_temperature_and_names_it():
    cz = make_rules("cz", 2, {})
    shipped = make_agent("pretrained:cz_2p", cz)
    saved = torch.load(pretrained.BOTS / "cz_2p.pt", weights_only=True)
    network = getattr(shipped, "net", shipped)  # a bot averaged over renamings: its network
    assert network.temperature == pretrained.temperature(saved)
    views = len(shipped.renamings) if hasattr(shipped, "renamings") else 1
    assert views == pretrained.play_views(saved)
    assert make_agent("pretrained:cz_2p:views=2", cz).name == "pretrained:cz_2p:views=2"
    warm = make_agent("pretrained:cz_2p:t=0.25", cz)
    assert warm.name == "pretrained:cz_2p:t=0.25" and warm.temperature == 0.25
    top = make_agent("pretrained:cz_2p:t=0", cz)
    assert top.deterministic and make_agent("pretrained:cz_2p:argmax", cz).deterministic
    for spec, named in (("pretrained:cz_2p:t=hot", "'hot' is not a number"),
                        ("pretrained:cz_2p:t=-2", "play temperature -2.0 must be"),
                        ("pretrained:cz_2p:t=inf", "play temperature inf must be"),
                        ("pretrained:cz_2p:warm", "unknown mode 'warm'"),
                        ("rllib:somewhere:t=0.5", "unknown mode 't=0.5'")):
        with pytest.raises(ValueError, match=named):
            make_agent(spec, cz)
