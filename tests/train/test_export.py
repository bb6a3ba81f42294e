"""``train.export`` and ``agents.learned.pretrained``: a run becomes a bot that plays as
exported."""

import json

import numpy as np
import pytest
import torch

from agents.learned import ppo as ppo_agent
from agents.learned import pretrained
from train.export import export
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
