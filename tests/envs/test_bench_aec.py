"""``zolik bench --aec``: the AEC loop's row beside the core's."""

from cli import main as cli
from zolik_env.envs.bench import bench_aec


def test_bench_aec__plays_decisions_and_whole_deals():
    row = bench_aec("cz", 2, seconds=0.6)
    assert row.batch == 0 and row.decisions_per_s > 0 and row.deals_per_s > 0


def test_cli__bench_prints_an_aec_row(capsys):
    assert cli.main(["bench", "--presets", "sk", "--players", "3", "--batches", "1",
                     "--seconds", "0.05", "--aec"]) == 0
    table = capsys.readouterr().out.split("\n\n")[-1]
    assert "| sk | 3 | 1 |" in table and "| sk | 3 | aec |" in table
