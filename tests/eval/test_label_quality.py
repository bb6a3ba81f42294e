"""What a labeller's corrections are worth (``eval.label_quality``)."""

import math

import pytest

from cli import strength as cli
from eval import label_quality as lq
from zolik_env.rummy import options

CZ2 = options.preset("cz", num_players=2)


def audit(net: str, labeller: str, decisions: int = 30, reference: int = 16) -> list[lq.Label]:
    return lq.audit(CZ2, net, labeller, decisions, reference)


def test_anchored__a_pimc_labeller_without_prior_takes_the_networks_likeliest_move():
    assert lq.anchored("pimc:rollouts=8", "pretrained:cz_2p") == \
        "pimc:rollouts=8,prior=pretrained:cz_2p:argmax"
    assert lq.anchored("pimc", "ppo:runs/x:argmax") == "pimc:prior=ppo:runs/x:argmax"
    assert lq.anchored("pimc:prior=planner", "pretrained:cz_2p") == "pimc:prior=planner"
    assert lq.anchored("planner", "pretrained:cz_2p") == "planner"
    assert lq.anchored("pimc:rollouts=4", "greedy") == "pimc:rollouts=4,prior=greedy"


def test_audit__a_pimc_labeller_corrects_a_heuristic_net_too():
    labels = audit("greedy", "pimc:rollouts=4", decisions=12, reference=4)
    assert len(labels) == 12


def test_audit__a_labeller_that_is_the_net_never_overrules_it():
    labels = audit("greedy", "greedy")
    assert len(labels) == 30
    assert not any(x.overruled for x in labels)
    assert lq.summarize(labels)["per_100_decisions"] == 0


def test_audit__the_same_seed_gives_the_same_labels_and_labellers_meet_the_same_decisions():
    first, again = audit("greedy", "planner"), audit("greedy", "planner")
    assert first == [lq.Label(**{**x.__dict__, "seconds": y.seconds})
                     for x, y in zip(again, first, strict=True)]
    other = audit("greedy", "random")
    assert [(x.deal, x.kind) for x in other] == [(x.deal, x.kind) for x in first]
    assert any(x.overruled for x in first)  # the planner corrects greedy somewhere


def test_audit__random_corrections_of_the_planner_are_measured_as_losses():
    labels = audit("planner", "random", decisions=60, reference=64)  # one discard's stake is
    row = lq.summarize(labels)  # a few points against tens of rollout noise: enough worlds
    assert row["overruled"] > 0.5
    assert row["high"] < 0  # the whole interval below zero: the measure sees bad labels
    assert row["per_100_decisions"] < 0


def test_summarize__shares_means_and_an_interval_around_the_mean():
    labels = [lq.Label(deal=d, kind="discard", overruled=o, gain=g, stderr=1.0, seconds=0.5)
              for d, o, g in [(0, True, 2.0), (0, False, 0.0), (1, True, 4.0), (2, False, 0.0),
                              (3, True, -3.0), (3, True, 1.0)]]
    row = lq.summarize(labels)
    assert row["decisions"] == 6 and row["deals"] == 4
    assert row["overruled"] == pytest.approx(4 / 6)
    assert row["gain"] == pytest.approx(1.0)
    assert row["gaining"] == pytest.approx(0.75)
    assert row["per_100_decisions"] == pytest.approx(100 * 4 / 6)
    assert row["low"] <= row["gain"] <= row["high"]
    assert row["seconds_per_decision"] == pytest.approx(0.5)
    none = lq.summarize([lq.Label(0, "draw", False, 0.0, 0.0, 0.1)])
    assert none["overruled"] == 0 and math.isnan(none["gain"])


@pytest.mark.parametrize("argv, message", [
    (["--reference", "1"], "--reference must be at least 2 worlds, got 1"),
    (["--decisions", "0"], "--decisions must be positive, got 0"),
    (["--labeller", "pimc:rolls=3"], "rolls"),
    (["--net", "pimc"], "searches or sees every card"),
    (["--seed-start", "5"], "--seed-start 5 is a training deal"),
])
def test_cli__bad_values_are_one_line_errors(argv, message, tmp_path, capsys):
    base = {"--net": "greedy", "--labeller": "planner", "--decisions": "2",
            "--reference": "4", "--out": str(tmp_path)}
    base.update(dict(zip(argv[::2], argv[1::2], strict=True)))
    with pytest.raises(SystemExit) as stop:
        cli.main(["labels", "--quiet", *[a for kv in base.items() for a in kv]])
    assert message in str(stop.value)
    assert "\n" not in str(stop.value)


def test_cli__writes_the_table_json_and_each_labellers_decisions(tmp_path, capsys):
    code = cli.main(["labels", "--net", "greedy", "--labeller", "greedy", "--labeller",
                     "planner", "--decisions", "6", "--reference", "4", "--quiet",
                     "--out", str(tmp_path)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "1: all" in printed and "2: all" in printed
    assert (tmp_path / "label_quality.json").exists()
    assert len((tmp_path / "labels_2.csv").read_text().splitlines()) == 7


def test_save_load__the_same_settings_read_back_the_same_labels_others_none(tmp_path):
    labels = audit("greedy", "planner", decisions=8, reference=4)
    settings = {"net": "greedy", "labeller": "planner", "decisions": 8}
    path = tmp_path / "labels_1.csv"
    lq.save(path, labels, settings)
    assert lq.load(path, settings) == labels
    assert lq.load(path, {**settings, "decisions": 9}) is None
    assert lq.load(tmp_path / "labels_2.csv", settings) is None


def test_cli__a_run_started_again_reads_the_labels_it_kept(tmp_path, capsys, monkeypatch):
    argv = ["labels", "--net", "greedy", "--labeller", "planner", "--decisions", "6",
            "--reference", "4", "--quiet", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out

    def no_audit(*args, **kwargs):
        raise AssertionError("audited again")

    monkeypatch.setattr(lq, "audit", no_audit)
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == first
    with pytest.raises(AssertionError, match="audited again"):  # other settings: audited
        cli.main([("5" if a == "4" else a) for a in argv])  # --reference 5
