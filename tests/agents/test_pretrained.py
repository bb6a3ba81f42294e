"""The bots that ship (``pretrained:NAME``) load, play legal moves and are as strong as
their cards say, checked on a small sample of fresh held-out deals."""

import numpy as np
import pytest

from agents.learned import pretrained
from agents.registry import make_agent
from eval import stats
from eval.harness import play_match
from zolik_env.rummy import game
from zolik_env.rummy.observe import observe
from zolik_env.rummy.rules import preset
from zolik_env.seeds import EVAL_SEED_START

SMALL_SAMPLE = EVAL_SEED_START + 4_000_000 + np.arange(200)  # not the card's deals


def test_pretrained__cz_2p_ships_with_rules_strength_and_card():
    assert "cz_2p" in pretrained.names()
    meta = pretrained.card("cz_2p")
    assert meta["rules"] == "cz" and meta["num_players"] == 2 and meta["deals"] >= 400
    assert {row["opponent"] for row in meta["strength"]} >= {"greedy", "planner"}
    assert (pretrained.BOTS / "cz_2p.pt").stat().st_size <= 5 * 2**20
    assert "# pretrained:cz_2p" in (pretrained.BOTS / "cz_2p.md").read_text(encoding="utf-8")


def test_pretrained__an_unknown_card_names_the_bots_of_its_folder(tmp_path):
    (tmp_path / "mine.pt").write_bytes(b"")
    (tmp_path / "mine.json").write_text('{"steps": 3}')
    assert pretrained.card("mine", tmp_path) == {"steps": 3}
    with pytest.raises(ValueError, match=r"'cz_2p': choose from mine$"):
        pretrained.card("cz_2p", tmp_path)


@pytest.mark.parametrize("name", pretrained.names())
def test_pretrained__claim_against_greedy_holds_on_a_small_sample(name):
    meta = pretrained.card(name)
    rules = preset(meta["rules"], num_players=meta["num_players"], **meta["rule_options"])
    claim = next(row for row in meta["strength"] if row["opponent"] == "greedy")
    bot, greedy = make_agent(f"pretrained:{name}", rules), make_agent("greedy", rules)
    match = play_match(rules, [bot, greedy], SMALL_SAMPLE, seed=5)
    sample = stats.summarize(stats.pair_difference(match), 0.95, 1000, 0)
    # the two means agree within 3 standard errors (from the 95% half-widths), and the
    # sample alone already separates the bot from greedy
    se = np.hypot(sample["high"] - sample["low"],
                  claim["score_diff_high"] - claim["score_diff_low"]) / (2 * 1.96)
    assert abs(sample["mean"] - claim["score_diff"]) < 3 * se, (sample, claim)
    assert sample["low"] > 0


def test_pretrained__plays_legal_moves_with_sampling_and_argmax():
    rules = preset("cz")
    state = game.init(rules, np.arange(8))
    rng = np.random.default_rng(0)
    for spec in ("pretrained:cz_2p", "pretrained:cz_2p:argmax"):
        bot = make_agent(spec, rules)
        mask = game.legal_action_mask(rules, state)
        moves = bot.act_batch(observe(rules, state, state.current), mask, rng)
        assert mask[np.arange(8), moves].all() and bot.name == spec
