"""Replays: any game recorded as JSONL replays exactly; ``zolik replay`` prints it."""

import json
import re

import numpy as np
import pytest

from cli import main as cli
from zolik_env import zolik_v0
from zolik_env.envs import replay
from zolik_env.rummy import game, options


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


def _lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def _damaged(tmp_path, change):
    """A recorded random game with ``change(lines) -> lines`` applied."""
    path = tmp_path / "game.jsonl"
    replay.record_random(options.preset("cz", num_players=2, max_turns=40), 3).save(path)
    path.write_text("\n".join(change(_lines(path))) + "\n", encoding="utf-8")
    return path


def _with_result(lines, **changes):
    result = json.loads(lines[-1])
    result.update(changes)
    return [*lines[:-1], json.dumps(result)]


@pytest.mark.parametrize(("change", "message"), [
    (lambda lines: lines[:-6], "has no result line: the file is cut short"),
    (lambda lines: lines[:-1], "has no result line: the file is cut short"),
    (lambda lines: _with_result(lines, truncated=not json.loads(lines[-1])["truncated"]),
     "truncated recorded"),
    (lambda lines: _with_result(lines, scores=[1, 2]), "scores recorded"),
    (lambda lines: [*lines, lines[-2]], "a record after its deal's result line"),
    (lambda lines: [*lines[:-2], lines[-1], lines[-2]], "result recorded before deal 0 ended"),
    (lambda lines: [lines[0], *lines[2:]], "before any deal line"),
    (lambda lines: [*lines[:3], lines[3].replace('"seat": ', '"seat": 1'), *lines[4:]],
     "the move is recorded for seat"),
    (lambda lines: [*lines[:2], "{not json", *lines[2:]], "line 3 is not JSON"),
    (lambda lines: [], "empty replay file"),
])
def test_replay__a_damaged_file_is_an_error_naming_what_is_wrong(tmp_path, change, message):
    path = _damaged(tmp_path, change)
    with pytest.raises(ValueError, match=re.escape(message)):
        list(replay.replay(replay.load(path)))


def test_replay_cli__a_file_cut_short_exits_2_in_one_line(tmp_path, capsys):
    from cli import replay as replay_cli

    path = _damaged(tmp_path, lambda lines: lines[:-1])
    with pytest.raises(SystemExit) as stop:
        replay_cli.main([str(path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "cut short" in err and "replayed" not in err
