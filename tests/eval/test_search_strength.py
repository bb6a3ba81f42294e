"""``zolik strength search``: the budget table, and a run that continues where it stopped."""

import dataclasses
import json

import pytest

import eval.search_strength as search_strength
import eval.tournament as tournament
from cli import main as cli
from zolik_env.rummy.options import preset

RULES = preset("cz")


def _measure(out, deals=2):
    return list(search_strength.measure(RULES, [2], deals, timing_deals=1, out=out))


def _counting_matches(monkeypatch):
    """Count the chunks ``eval.tournament`` plays (not those it reads back)."""
    played = []
    honest = tournament.play_match

    def counted(*args, **kwargs):
        played.append(1)
        return honest(*args, **kwargs)

    monkeypatch.setattr(tournament, "play_match", counted)
    return played


def test_measure__a_second_run_reads_back_the_kept_deals_and_timing(tmp_path, monkeypatch):
    first = _measure(tmp_path)
    assert (tmp_path / "pimc_2" / "timing.json").exists()
    played = _counting_matches(monkeypatch)

    def no_timing(*_args):
        raise AssertionError("the kept timing is read back, not measured again")

    monkeypatch.setattr(search_strength, "time_decisions", no_timing)
    again = _measure(tmp_path)
    assert again == first and played == []
    assert first[0].deals == 2 and first[0].low <= first[0].difference <= first[0].high


def test_measure__a_killed_run_plays_only_the_chunks_it_lost(tmp_path, monkeypatch):
    first = _measure(tmp_path)
    chunks = sorted((tmp_path / "pimc_2" / "chunks").glob("*.npz"))
    assert chunks
    chunks[-1].unlink()  # as if killed while that chunk was in play
    played = _counting_matches(monkeypatch)
    again = _measure(tmp_path)
    assert len(played) == 1
    assert [dataclasses.replace(r, seconds_per_decision=0.0) for r in again] == [
        dataclasses.replace(r, seconds_per_decision=0.0) for r in first]


def test_measure__a_damaged_timing_file_is_measured_again(tmp_path):
    first = _measure(tmp_path)
    (tmp_path / "pimc_2" / "timing.json").write_text('{"timing_deals": 1, "timing": [')
    again = _measure(tmp_path)
    assert again[0].difference == first[0].difference and again[0].seconds_per_decision > 0
    assert len(json.loads((tmp_path / "pimc_2" / "timing.json").read_text())["timing"]) == 5


def test_measure__without_a_folder_nothing_is_kept(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = list(search_strength.measure(RULES, [2], 1, timing_deals=1))
    assert rows[0].deals == 1 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "shown"), [
    (["--budgets", "8,x"], "'8,x'"),
    (["--budgets", "0"], "--budgets"),
    (["--deals", "0"], "--deals"),
])
def test_cli__bad_values_are_one_line(argv, shown, tmp_path, capsys):
    code = cli.main(["strength", "search", *argv, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and shown in err and len(err.splitlines()) == 1


def test_cli__another_measurement_in_the_same_folder_is_refused(tmp_path, capsys):
    base = ["strength", "search", "--budgets", "2", "--out", str(tmp_path)]
    assert cli.main([*base, "--deals", "1"]) == 0
    assert "\n| 2 | 1 | " in capsys.readouterr().out  # the 2-rollout row, one deal
    code = cli.main([*base, "--deals", "2"])
    err = capsys.readouterr().err.strip()  # a progress line, then the refusal
    assert code == 2 and "another evaluation" in err.splitlines()[-1]
    assert "Traceback" not in err
