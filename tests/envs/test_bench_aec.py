"""``zolik bench --aec``: the AEC loop's row beside the core's."""

import sys

import numpy as np
import pytest

from cli import main as cli
from zolik_env.envs.bench import bench_aec, bench_openspiel, bench_rlcard, random_legal


def test_bench_aec__plays_decisions_and_whole_deals():
    row = bench_aec("cz", 2, seconds=0.6)
    assert row.batch == 0 and row.decisions_per_s > 0 and row.deals_per_s > 0


def test_cli__bench_prints_an_aec_row(capsys):
    assert cli.main(["bench", "--presets", "sk", "--players", "3", "--batches", "1",
                     "--seconds", "0.05", "--aec"]) == 0
    table = capsys.readouterr().out.split("\n\n")[-1]
    assert "| sk | 3 | 1 |" in table and "| sk | 3 | aec |" in table


def test_bench_openspiel__plays_gin_rummy_decisions_and_deals():
    row = bench_openspiel(seconds=0.5)
    assert row.loop == "openspiel" and row.decisions_per_s > 0 and row.deals_per_s > 0


def test_cli__bench_openspiel_prints_the_ratios_to_it(capsys):
    assert cli.main(["bench", "--presets", "cz", "--players", "2", "--batches", "1",
                     "--seconds", "0.2", "--aec", "--openspiel"]) == 0
    out = capsys.readouterr().out
    assert "| gin_rummy | 2 | openspiel |" in out
    ratios = out.split("against gin_rummy")[-1].splitlines()
    assert any(line.strip().startswith("cz 2p batch 1:") for line in ratios)
    assert any(line.strip().startswith("cz 2p aec:") for line in ratios)


def test_cli__bench_openspiel_without_open_spiel_is_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import fails as if not installed
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--batches", "1", "--seconds", "0.05", "--openspiel"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "open_spiel" in err[-1] and "Traceback" not in "\n".join(err)


def test_bench_rlcard__plays_gin_rummy_decisions_and_deals():
    row = bench_rlcard(seconds=0.5)
    assert row.loop == "rlcard" and row.decisions_per_s > 0 and row.deals_per_s > 0


def test_cli__bench_with_both_references_prints_the_ratios_to_each(capsys):
    assert cli.main(["bench", "--presets", "cz", "--players", "2", "--batches", "1", "64",
                     "--seconds", "0.1", "--aec", "--openspiel", "--rlcard"]) == 0
    out = capsys.readouterr().out
    assert "| gin_rummy | 2 | rlcard |" in out and "| gin_rummy | 2 | openspiel |" in out
    for reference in ("openspiel", "rlcard"):
        block = out.split(f"against gin_rummy ({reference}")[-1].split("\n\n")[0]
        lines = [line.strip() for line in block.splitlines()[1:]]
        assert [line.split(":")[0] for line in lines] == ["cz 2p batch 1", "cz 2p aec"]


def test_cli__bench_rlcard_without_rlcard_is_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "rlcard", None)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--batches", "1", "--seconds", "0.05", "--rlcard"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "rlcard" in err[-1] and "Traceback" not in "\n".join(err)


def test_random_legal__picks_only_legal_moves_and_each_of_them():
    mask = np.zeros(10, np.int8)
    mask[[2, 7]] = 1
    rng = np.random.default_rng(0)
    assert {random_legal(mask, rng) for _ in range(50)} == {2, 7}
