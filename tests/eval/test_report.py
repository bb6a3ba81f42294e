"""Reports are written and readable; the config loader and the CLI."""

import csv
import json

import numpy as np
import pytest
import yaml

from agents.random_policy import RandomPolicy
from cli import eval as cli
from cli.main import SUBCOMMANDS
from eval.config import EVAL_SEED_START, EvalConfig, load_config
from eval.tournament import run
from tests.eval.policies import MeldFirst


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("eval")
    cfg = EvalConfig(agents=("meld_first", "random"), players=4, deals=4, chunk_deals=4,
                     workers=1, progress=False, bootstrap=200, out=str(out))
    result = run(cfg, [MeldFirst(), RandomPolicy()])
    assert result.out_dir == out
    return out


def test_write_report__json_and_csv_are_readable(report_dir):
    data = json.loads((report_dir / "results.json").read_text())
    assert [a["agent"] for a in data["agents"]] == ["meld_first", "random"]
    assert data["rules"]["num_players"] == 4 and data["config"]["deals"] == 4
    assert set(data["agents"][0]) >= {"score", "reward", "win", "opened", "out"}
    assert data["win_matrix"]["rates"][0][1] + data["win_matrix"]["rates"][1][0] == 1
    with (report_dir / "games.csv").open() as f:
        games = list(csv.DictReader(f))
    assert len(games) == 4 * 2 * 4  # deals x rotations x seats
    with (report_dir / "seats.csv").open() as f:
        seats = list(csv.DictReader(f))
    assert [(r["agent"], r["seat"]) for r in seats][:2] == [("meld_first", "0"),
                                                            ("meld_first", "1")]
    assert float(seats[0]["score_low"]) <= float(seats[0]["score_mean"])
    resolved = load_config(report_dir / "config.yaml")
    assert resolved.players == 4 and resolved.agents == ("meld_first", "random")


def test_write_report__pages_and_plots(report_dir):
    for name in ("scores.png", "win_matrix.png", "ratings.png"):
        assert (report_dir / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    md = (report_dir / "report.md").read_text()
    assert "| meld_first |" in md and "![Ratings](ratings.png)" in md
    page = (report_dir / "report.html").read_text()
    assert page.count("<table>") == 3 and 'src="win_matrix.png"' in page


def test_report_tables__one_sign_convention_and_a_labelled_raw_score(report_dir):
    # cz: the preset's score is a penalty; every table reads points per deal, higher is
    # better (for the first of a pair), and the penalty has its own labelled column
    md = (report_dir / "report.md").read_text()
    headers = [line for line in md.splitlines() if line.startswith("| agent |")
               or line.startswith("| first |")]
    assert len(headers) == 3
    for line in headers:
        assert "points per deal" in line and "higher is better" in line
        assert "reward difference" not in line
    assert "higher is better for the first" in headers[2]
    lower = [c for line in headers for c in line.split("|") if "lower is better" in c]
    assert lower == [" raw cz score (penalty, lower is better) "]


def test_report__per_agent_means_broken_down_per_opponent(report_dir):
    data = json.loads((report_dir / "results.json").read_text())
    rows = {(o["agent"], o["opponent"]): o for o in data["opponents"]}
    assert set(rows) == {("meld_first", "random"), ("random", "meld_first")}
    one, other = rows["meld_first", "random"], rows["random", "meld_first"]
    assert one["difference"]["mean"] == pytest.approx(-other["difference"]["mean"])
    pooled = {a["agent"]: a["reward"]["mean"] for a in data["agents"]}
    assert one["points"]["mean"] == pytest.approx(pooled["meld_first"])  # one opponent only
    with (report_dir / "opponents.csv").open() as f:
        assert len(list(csv.DictReader(f))) == 2
    assert "## Agents by opponent" in (report_dir / "report.md").read_text()


def test_load_config__unknown_keys_and_training_seeds_are_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("agents: [random, random]\ndeal: 10\nworkerz: 2\n")
    with pytest.raises(ValueError, match="'deal', 'workerz'"):
        load_config(bad)
    with pytest.raises(ValueError, match="training seeds"):
        EvalConfig(seed_start=5)
    with pytest.raises(ValueError, match="agents"):
        EvalConfig(agents=("random",))


def test_default_config__matches_the_dataclass_defaults():
    path = "configs/eval/default.yaml"
    with open(path, encoding="utf-8") as f:
        values = yaml.safe_load(f)
    assert set(values) == set(EvalConfig().to_dict())
    assert load_config(path) == EvalConfig()
    assert EvalConfig().seed_start == EVAL_SEED_START == 2 * 10**9
    assert load_config(path, deals=7, preset=None).deals == 7


def test_cli__prints_the_table_and_writes_the_report(tmp_path, capsys):
    assert SUBCOMMANDS["eval"][0] == "cli.eval"
    code = cli.main(["--agents", "random", "random", "--deals", "2", "--chunk-deals", "2",
                     "--workers", "1", "--out", str(tmp_path), "--no-plots", "--no-progress",
                     "--preset", "sk"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "score (higher is better)" in printed and "random#2" in printed
    assert (tmp_path / "results.json").exists() and not (tmp_path / "scores.png").exists()
    assert cli.main(["--agents", "random", "nobody", "--deals", "2"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_cli__an_unwritable_report_folder_fails_before_any_deal(tmp_path, capsys, monkeypatch):
    from eval import tournament

    monkeypatch.setattr(tournament, "play_pool",
                        lambda *a, **k: pytest.fail("played deals before checking --out"))
    taken = tmp_path / "a_file"
    taken.write_text("not a folder")
    code = cli.main(["--agents", "random", "random", "--deals", "2", "--out", str(taken),
                     "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith(f"zolik eval: cannot write the report to {taken}")
    assert len(err.splitlines()) == 1 and taken.read_text() == "not a folder"


@pytest.mark.parametrize(("overrides", "message"), [
    ({"seed_start": 2**64}, "passes the largest deal seed"),
    ({"players": "two"}, "players='two' is not an integer"),
    ({"deals": 1.5}, "deals=1.5 is not an integer"),
    ({"sequential": "no"}, "sequential='no' is not true or false"),
])
def test_load_config__bad_values_are_one_line_errors(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, **overrides)


def test_eval__an_interrupted_run_reuses_its_saved_chunks(tmp_path, monkeypatch):
    from eval import tournament

    out = tmp_path / "ev"
    args = {"agents": ("random", "greedy"), "deals": 8, "chunk_deals": 4, "out": str(out),
                "progress": False, "plots": False, "workers": 1}
    played = []
    real = tournament.play_match

    def counting(*a, **k):
        played.append(1)
        return real(*a, **k)

    monkeypatch.setattr(tournament, "play_match", counting)
    first = run(load_config(None, **args))
    assert len(played) == 2 and len(list((out / "chunks").glob("*.npz"))) == 2
    (out / "chunks" / sorted(p.name for p in (out / "chunks").glob("*.npz"))[1]).unlink()
    again = run(load_config(None, **args, resume=True))  # after an interrupt: one left
    assert len(played) == 3
    pair = next(iter(first.matches))
    for name in ("scores", "winner", "turns"):
        np.testing.assert_array_equal(getattr(first.matches[pair], name),
                                      getattr(again.matches[pair], name))
    with pytest.raises(ValueError, match="holds the results of another evaluation"):
        run(load_config(None, **{**args, "deals": 12}, resume=True))
    run(load_config(None, **args))  # without --resume: everything is played again
    assert len(played) == 5
