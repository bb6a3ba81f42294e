"""Replays: any game recorded as JSONL replays exactly; ``zolik replay`` prints it."""

import json

import numpy as np
import pytest

from cli import main as cli
from zolik_env import zolik_v0
from zolik_env.envs import replay
from zolik_env.rummy import game


def play_and_record(tmp_path, **kwargs):
    env = zolik_v0.env(**kwargs)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    path = tmp_path / "game.jsonl"
    env.unwrapped.recorder.save(path)
    return env.unwrapped, path


@pytest.mark.parametrize("kwargs", [
    {"rules": "sk", "num_players": 3, "rule_options": {"opening_points": 45}},
    {"rules": "jolly", "num_players": 2, "match": True,
     "rule_options": {"max_turns": 30, "match_target": 0, "match_deals": 2}},
], ids=["sk3", "jolly_match"])
def test_replay__recorded_game_replays_exactly(tmp_path, kwargs):
    raw, path = play_and_record(tmp_path, **kwargs)
    records = replay.load(path)
    header = records[0]
    assert header["rules"] == raw.rules.name and header["num_players"] == raw.rules.num_players
    assert replay.rules_of(header) == raw.rules
    moves = [r for r in records if r["kind"] == "move"]
    assert all(isinstance(m["move"], str) for m in moves)
    steps = list(replay.replay(records))
    assert len(steps) == len(moves)
    last = steps[-1]
    final, _ = game.step(raw.rules, last.state, [last.action])
    assert all(np.array_equal(getattr(final, f), getattr(raw.core_state, f))
               for f in ("hands", "discard", "cells", "scores", "winner"))
    results = [r["scores"] for r in records if r["kind"] == "result"]
    assert results == raw.deal_scores


def test_replay__a_changed_record_is_detected(tmp_path):
    _, path = play_and_record(tmp_path, rules="cz")
    records = replay.load(path)
    records[-1]["scores"] = [s + 1 for s in records[-1]["scores"]]
    with pytest.raises(ValueError, match="replay diverged in deal 0"):
        list(replay.replay(records))
    records = replay.load(path)
    records[1]["seed"] += 1  # another deal: the recorded moves stop being legal
    with pytest.raises(ValueError, match="illegal move"):
        list(replay.replay(records))


def test_replay_cli__records_and_prints_turn_by_turn(tmp_path, capsys):
    path = tmp_path / "random.jsonl"
    assert cli.main(["replay", str(path), "--record", "--preset", "sk", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "deal 0 turn 0 seat 0: discard" in out and "replayed" in out and "exactly" in out
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["kind"] == "game" and lines[-1]["kind"] == "result"
    assert cli.main(["replay", str(path), "--table"]) == 0
    assert "sk deal, turn 1 (round 1)" in capsys.readouterr().out  # the table after turn 0
    with pytest.raises(SystemExit):
        cli.main(["replay", str(tmp_path / "missing.jsonl")])
    assert "bench-env" in cli.SUBCOMMANDS and "replay" in cli.SUBCOMMANDS
