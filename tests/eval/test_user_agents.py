"""User agents: by import path (with display names, in worker processes), as Python objects
through ``evaluate``, and ``--record`` replays that name the agent in each seat."""

import subprocess
import sys
from pathlib import Path

import pytest

from agents.registry import display_name, make_agent, split_name
from cli import eval as cli
from cli import replay as replay_cli
from eval.tournament import evaluate
from tests.eval.policies import MeldFirst
from tests.eval.sample_agents import FirstLegal
from tests.eval.sample_agents import make_agent as sample_factory
from zolik_env.envs.replay import load, replay
from zolik_env.rummy.options import preset

ROOT = Path(__file__).resolve().parents[2]


def test_make_agent__import_path_with_argument_and_name():
    rules = preset("cz")
    assert make_agent("tests.eval.sample_agents:make_agent", rules).name == "meld_first"
    assert make_agent("tests.eval.sample_agents:make_agent:mine", rules).name == "mine"
    named = make_agent("me=tests.eval.sample_agents:FirstLegal", rules)
    assert isinstance(named, FirstLegal) and named.name == "me"
    assert make_agent("g=greedy", rules).name == "g"
    assert split_name("ppo:runs/a=b.zip") == (None, "ppo:runs/a=b.zip")
    assert display_name("mine=pkg.mod:make") == "mine"


BOT_FILE = """
import numpy as np


class Lowest:
    name = "lowest"

    def act(self, obs, mask, rng):
        return int(np.flatnonzero(mask)[0])

    def act_batch(self, obs, mask, rng):
        return np.argmax(mask, axis=1).astype(np.int64)


def make_agent(rules, argument=""):
    bot = Lowest()
    bot.name = argument or bot.name
    return bot
"""


def test_make_agent__a_python_file_path_with_factory(tmp_path, monkeypatch):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mybot.py").write_text(BOT_FILE, encoding="utf-8")
    rules = preset("cz")
    path = tmp_path / "bots" / "mybot.py"
    assert make_agent(f"{path}:make_agent", rules).name == "lowest"
    assert make_agent(f"{path}:make_agent:tuned", rules).name == "tuned"
    assert make_agent(f"me={path}:make_agent", rules).name == "me"
    monkeypatch.chdir(tmp_path)  # relative to the current directory, as the issue writes it
    bot = make_agent("bots/mybot.py:make_agent", rules)
    assert bot.name == "lowest" and callable(bot.act_batch)
    with pytest.raises(ValueError, match=r"no file 'bots/other\.py'"):
        make_agent("bots/other.py:make_agent", rules)
    with pytest.raises(ValueError, match="has no 'missing'"):
        make_agent("bots/mybot.py:missing", rules)


@pytest.mark.parametrize("spec, message", [
    ("nosuch.module:make", "cannot import 'nosuch.module'"),
    ("tests.eval.sample_agents:missing", "has no 'missing'"),
    ("tests.eval.sample_agents:not_a_policy", "not a Policy"),
    ("bogus", "unknown agent 'bogus'"),
])
def test_make_agent__bad_import_paths_are_value_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, preset("cz"))


def test_cli__user_agent_by_import_path_with_two_workers_and_replays(tmp_path, capsys):
    replays = tmp_path / "replays"
    code = cli.main(["--agents", "mine=tests.eval.sample_agents:make_agent", "greedy",
                     "--deals", "2", "--chunk-deals", "1", "--workers", "2",
                     "--out", str(tmp_path / "run"), "--no-plots", "--no-progress",
                     "--record", str(replays)])
    assert code == 0
    out = capsys.readouterr().out
    assert "mine" in out and "tests.eval" not in out.split("report:")[0]
    files = sorted(replays.glob("*.jsonl"))
    assert len(files) == 4  # 2 deals x 2 rotations
    seatings = {tuple(load(f)[0]["agents"]) for f in files}
    assert seatings == {("mine", "greedy"), ("greedy", "mine")}
    records = load(files[0])
    assert sum(1 for _ in replay(records)) == sum(r["kind"] == "move" for r in records) > 0
    assert replay_cli.main([str(files[0])]) == 0
    shown = capsys.readouterr().out
    assert "seats: 0 " in shown and "(mine)" in shown and "(greedy)" in shown


def test_evaluate__specs_policies_and_factories():
    result = evaluate([MeldFirst(), sample_factory, "random"], "cz", deals=4, chunk_deals=2,
                      bootstrap=200)
    assert result.names == ("meld_first", "make_agent", "random")
    assert len(result.summary.pairs) == 3
    by_spec = evaluate(["a=greedy", "random"], preset("sk", num_players=3), deals=2,
                       bootstrap=200)
    assert by_spec.names == ("a", "random") and by_spec.config.players == 3


def test_docs_eval__python_example_runs_as_a_script(tmp_path):
    text = (ROOT / "docs" / "eval.md").read_text(encoding="utf-8")
    blocks = text.split("```python\n")[1:]
    script = tmp_path / "my_eval.py"
    script.write_text(blocks[0].split("```")[0], encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "mine" in proc.stdout


def test_docs_eval__cli_example_finds_the_script_in_the_current_directory(tmp_path):
    text = (ROOT / "docs" / "eval.md").read_text(encoding="utf-8")
    (tmp_path / "my_eval.py").write_text(text.split("```python\n")[1].split("```")[0])
    command = next(line for line in text.splitlines() if "my_eval:make_agent" in line
                   and line.startswith("zolik eval"))
    zolik = Path(sys.executable).parent / "zolik"
    proc = subprocess.run([str(zolik), *command.split()[1:], "--no-progress"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "mine" in proc.stdout


def test_register__a_kind_registered_under_the_main_guard_reaches_two_workers(tmp_path):
    """Worker processes re-import the script as a module, so the guarded ``register``
    never runs there: the registry must travel with the evaluation."""
    script = tmp_path / "guarded.py"
    script.write_text(
        "from agents.planner.greedy import GreedyPolicy\n"
        "from agents.registry import register\n"
        "from eval.tournament import evaluate\n\n\n"
        "def make(rules, argument=''):\n"
        "    policy = GreedyPolicy(rules)\n"
        "    policy.name = 'guarded'\n"
        "    return policy\n\n\n"
        "if __name__ == '__main__':\n"
        "    register('guarded', 'guarded:make')\n"
        "    result = evaluate(['guarded', 'random'], 'cz', deals=4, workers=2,\n"
        "                      chunk_deals=2)\n"
        "    print(sorted(result.names))\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "'guarded'" in proc.stdout
