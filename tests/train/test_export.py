"""``train.export`` and ``agents.learned.pretrained``: a run becomes a bot that plays as
exported."""

import json
import pathlib
import re
import shlex

import numpy as np
import pytest
import torch

from agents.learned import ppo as ppo_agent
from agents.learned import pretrained
from agents.registry import make_agent
from cli import eval as eval_cli
from cli import strength as strength_cli
from train.export import export, rules_flags
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
    for _ in range(7):
        state = game.step(rules, state, game.sample_legal(game.legal_action_mask(rules, state),
                                                          rng))[0]
    return observe(rules, state, state.current), game.legal_action_mask(rules, state)


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


def test_rules_flags__only_what_differs_from_cz_with_two_players():
    assert rules_flags("cz", 2) == ""
    assert rules_flags("sk", 2) == " --preset sk"
    assert rules_flags("cz", 4) == " --players 4"
    assert rules_flags("jolly", 3) == " --preset jolly --players 3"
