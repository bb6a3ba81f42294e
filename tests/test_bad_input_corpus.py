"""The bad-input corpus: wrong types, values out of range and unknown names, fed to every
public surface of the kit (rules API, environments, configs, command line; both games).

Every case must raise the error type it names, with a message that names the bad value
(and the parameter or flag), never a traceback through the command line and never a
silent acceptance: a case that runs without an error fails. Command-line cases run
``zolik`` in-process and expect exit status 2 and a last stderr line ``zolik COMMAND: ...``
naming the value (one line; argparse's own refusals print their usage above it).

``test_corpus__size_by_area`` keeps the corpus from shrinking; ``area_counts()`` is what
the counts by area are read from.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from zolik_env.rummy import options, rules


@dataclasses.dataclass(frozen=True)
class Case:
    area: str  # rules, envs, configs, cli
    name: str
    call: Callable[[Path], Any]  # given a fresh temporary folder
    error: type[BaseException]
    names: tuple[str, ...]  # texts the message must contain


CASES: list[Case] = []


def case(area: str, name: str, call: Callable[[Path], Any], *names: str,
         error: type[BaseException] = ValueError) -> None:
    CASES.append(Case(area, name, call, error, names))


class CommandFailed(Exception):
    """A ``zolik`` command that ended with exit 2 and one line: the line."""


def run_cli(argv: list[str], capsys: Any) -> None:
    from cli import main as cli

    try:
        status = cli.main(argv)
    except SystemExit as stop:  # argparse's refusal: its usage, then one error line
        status = stop.code
    err = capsys.readouterr().err.strip()
    last = err.splitlines()[-1] if err else ""
    if status == 2 and last.startswith("zolik") and "Traceback" not in err:
        raise CommandFailed(last)
    raise AssertionError(f"zolik {' '.join(argv)}: exit {status}, stderr {err[-300:]!r}")


# --- rules API: every rule option, wrong type and out of range ---------------------------

def _option_values(meta: dict[str, Any]) -> list[Any]:
    allowed, kind = meta["allowed"], meta["kind"]
    if kind == "range":
        lo, hi = allowed
        return [hi + 1, lo - 1, 2.5, "3", True, None]
    if isinstance(allowed[0], bool):
        return ["no", 1, None]
    return ["bogus", 3, None]


for _field in dataclasses.fields(options.RuleSet):
    if _field.name == "name":
        continue
    for _value in _option_values(dict(_field.metadata)):
        case("rules", f"preset(cz, {_field.name}={_value!r})",
             lambda tmp, f=_field.name, v=_value: rules.preset("cz", **{f: v}),
             f"{_field.name}={_value!r}")

for _name in ("hu", "", "CZ", 3):
    case("rules", f"preset({_name!r})", lambda tmp, n=_name: rules.preset(n), repr(_name))
case("rules", "preset(cz, jokers=3)", lambda tmp: rules.preset("cz", jokers=3), "'jokers'")
case("rules", "preset(cz, max_hand_cards=3)",
     lambda tmp: rules.preset("cz", max_hand_cards=3), "max_hand_cards=3")
case("rules", "preset(cz, max_hand_cards=14)",
     lambda tmp: rules.preset("cz", max_hand_cards=14), "max_hand_cards=14")

CZ = rules.preset("cz")
for _text in ("XS", "1H", "AZ", "10", "", "JKX", "A S"):
    case("rules", f"parse_card({_text!r})", lambda tmp, t=_text: rules.parse_card(t),
         repr(_text))
for _items in ([None], ["AS", 5.5], ["AS", "QQ"], [-1], [53]):
    case("rules", f"parse_cards({_items!r})", lambda tmp, i=_items: rules.parse_cards(i),
         repr(_items[-1]))
case("rules", "check_meld(cards, 'cz')", lambda tmp: rules.check_meld("AS 2S 3S", "cz"),
     "'cz'")

_SCORE = {"hands": ["", "2S 3H"], "opened": [True, True], "winner": 0}
for _key, _value, _shown in (
        ("hands", ["", "JK JK JK JK JK"], "JK"),
        ("hands", ["", "2S 2S 2S"], "2S"),
        ("hands", [""], "2"),
        ("opened", ["no", "no"], "'no'"),
        ("opened", [True], "1"),
        ("winner", 2, "winner=2"),
        ("winner", -1, "winner=-1"),
        ("winner", "0", "'0'"),
):
    case("rules", f"score_deal({_key}={_value!r})",
         lambda tmp, k=_key, v=_value: rules.score_deal(CZ, **{**_SCORE, k: v}), _shown)
case("rules", "score_deal(jolly, laid=[-5, 0])",
     lambda tmp: rules.score_deal(rules.preset("jolly"), **_SCORE, laid=[-5, 0]), "-5")


# --- environments -------------------------------------------------------------------------

def _aec_step(action: Any) -> None:
    from zolik_env import zolik_v0

    env = zolik_v0.raw_env()
    env.reset(seed=0)
    env.step(action)


def _gym_step(action: Any) -> None:
    from zolik_env.envs.zolik_gym import ZolikEnv

    env = ZolikEnv()
    env.reset(seed=0)
    env.step(action)


def _kostky_step(action: Any) -> None:
    from zolik_env import kostky_v0

    env = kostky_v0.raw_env()
    env.reset(seed=0)
    env.step(action)


for _action, _shown in (("0", "'0'"), (0.7, "0.7"), (-1, "-1"), (99_999, "99999"),
                        (True, "True"), ([1, 2], "[1, 2]"), (None, "None")):
    case("envs", f"zolik_v0 step({_action!r})", lambda tmp, a=_action: _aec_step(a), _shown)
    case("envs", f"Zolik-v0 gym step({_action!r})", lambda tmp, a=_action: _gym_step(a),
         _shown)
    case("envs", f"kostky_v0 step({_action!r})", lambda tmp, a=_action: _kostky_step(a),
         _shown)

for _kwargs, _shown in (
        ({"rules": "hu"}, "'hu'"),
        ({"num_players": 5}, "num_players=5"),
        ({"num_players": 1}, "num_players=1"),
        ({"num_players": "3"}, "'3'"),
        ({"num_players": 2.0}, "2.0"),
        ({"reward": "points"}, "'points'"),
        ({"render_mode": "rgb"}, "'rgb'"),
        ({"rule_options": {"opening_points": 999}}, "opening_points=999"),
        ({"rule_options": {"jokers": 3}}, "'jokers'"),
):
    def _make_aec(tmp: Path, kw: dict[str, Any] = _kwargs) -> Any:
        from zolik_env import zolik_v0
        return zolik_v0.env(**kw)

    def _make_gym(tmp: Path, kw: dict[str, Any] = _kwargs) -> Any:
        from zolik_env.envs.zolik_gym import ZolikEnv
        return ZolikEnv(**kw)

    case("envs", f"zolik_v0.env({_kwargs!r})", _make_aec, _shown)
    case("envs", f"ZolikEnv({_kwargs!r})", _make_gym, _shown)


for _seat in (7, -1, "one"):
    case("envs", f"zolik_v0.env(render_seat={_seat!r})",
         lambda tmp, s=_seat: __import__("zolik_env").zolik_v0.env(render_seat=s),
         f"render_seat={_seat!r}")


def _vec(num_envs: Any = 2, **kwargs: Any) -> Any:
    from train.zolik_vec import ZolikVecEnv
    return ZolikVecEnv(num_envs, **kwargs)


def _vec_step(actions: Any) -> None:
    env = _vec(2)
    env.reset()
    env.step(np.asarray(actions))


for _n in (0, -3, 2.5, "4"):
    case("envs", f"ZolikVecEnv({_n!r})", lambda tmp, n=_n: _vec(n), repr(_n))
case("envs", "ZolikVecEnv(features='cards')", lambda tmp: _vec(2, features="cards"), "'cards'")
case("envs", "ZolikVecEnv(shaping=-1)", lambda tmp: _vec(2, shaping=-1.0), "-1")
case("envs", "ZolikVecEnv(reward='points')", lambda tmp: _vec(2, reward="points"), "'points'")
for _actions, _shown in (([0.5, 0.5], "0.5"), ([99_999, 0], "99999"), ([-1, 0], "-1")):
    case("envs", f"ZolikVecEnv.step({_actions!r})", lambda tmp, a=_actions: _vec_step(a),
         _shown)


# --- configs: every field of the PPO, dice and eval configs -------------------------------

def _bad_values(declared: str) -> list[Any]:
    declared = declared.replace(" ", "")
    if declared == "int":
        return ["ten", 1.5, True]
    if declared == "float":
        return ["x", True]
    if declared == "bool":
        return ["no", 1]
    if declared == "str":
        return [5]
    if declared.startswith("tuple[str"):
        return ["greedy", [5]]
    if declared.startswith("tuple"):
        return ["256", ["a"]]
    if declared.startswith("dict"):
        return ["x"]
    return []


def _ppo(tmp: Path, values: dict[str, Any]) -> Any:
    from train.config import make_config
    return make_config(values, "my.yaml")


def _dice(tmp: Path, values: dict[str, Any]) -> Any:
    from train.dice.ppo import load_config
    path = tmp / "dice.yaml"
    path.write_text(yaml.safe_dump(values))
    return load_config(path)


def _eval(tmp: Path, values: dict[str, Any]) -> Any:
    from eval.config import make_config
    return make_config(values, "eval.yaml")


def _rllib(tmp: Path, values: dict[str, Any]) -> Any:
    from train.rllib.ppo import load_config
    path = tmp / "rllib.yaml"
    path.write_text(yaml.safe_dump(values))
    return load_config(path)


def _config_classes() -> list[tuple[str, type, Callable[[Path, dict[str, Any]], Any], str]]:
    from eval.config import EvalConfig
    from train.config import PPOConfig
    from train.dice.ppo import DicePPOConfig
    from train.rllib.ppo import RllibConfig
    return [("ppo", PPOConfig, _ppo, "my.yaml"), ("dice", DicePPOConfig, _dice, "dice.yaml"),
            ("eval", EvalConfig, _eval, "eval.yaml"),
            ("rllib", RllibConfig, _rllib, "rllib.yaml")]


def _declared(annotation: Any) -> str:
    """A field's type as written: ``int``, ``tuple[int, ...]``, ``dict[str, typing.Any]``."""
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)


for _kind, _cls, _load, _file in _config_classes():
    for _name, _info in _cls.model_fields.items():
        for _value in _bad_values(_declared(_info.annotation)):
            case("configs", f"{_kind} {_name}={_value!r}",
                 lambda tmp, ld=_load, f=_name, v=_value: ld(tmp, {f: v}),
                 f"{_name}=", _file)

for _kind, _load, _file, _key, _value, _shown in (
        ("ppo", _ppo, "my.yaml", "gamma", 5.0, "5.0"),
        ("ppo", _ppo, "my.yaml", "clip_range", -1.0, "-1.0"),
        ("ppo", _ppo, "my.yaml", "net_arch", [0], "[0]"),
        ("ppo", _ppo, "my.yaml", "privileged_critic", "yes", "'yes'"),
        ("ppo", _ppo, "my.yaml", "batch_size", 100_000, "100000"),
        ("ppo", _ppo, "my.yaml", "exp_name", "../../x", "'../../x'"),
        ("ppo", _ppo, "my.yaml", "total_steps", -5, "-5"),
        ("ppo", _ppo, "my.yaml", "teacher", "oracle", "'oracle'"),
        ("ppo", _ppo, "my.yaml", "ent_coef", -0.1, "-0.1"),
        ("ppo", _ppo, "my.yaml", "pool", {"wizard": 1.0}, "wizard"),
        ("ppo", _ppo, "my.yaml", "pool", {"greedy": -1.0}, "-1.0"),
        ("ppo", _ppo, "my.yaml", "preset", "hu", "'hu'"),
        ("ppo", _ppo, "my.yaml", "players", 7, "7"),
        ("ppo", _ppo, "my.yaml", "reward", "points", "'points'"),
        ("ppo", _ppo, "my.yaml", "obs_features", "cards", "'cards'"),
        ("ppo", _ppo, "my.yaml", "eval_opponents", ["oracle"], "oracle"),
        ("ppo", _ppo, "my.yaml", "learning_rate", 0.0, "0.0"),
        ("ppo", _ppo, "my.yaml", "gae_lambda", 1.5, "1.5"),
        ("dice", _dice, "dice.yaml", "total_timesteps", -5, "-5"),
        ("dice", _dice, "dice.yaml", "checkpoint_every", 0, "0"),
        ("dice", _dice, "dice.yaml", "gamma", 5.0, "5.0"),
        ("dice", _dice, "dice.yaml", "net_arch", [0], "[0]"),
        ("dice", _dice, "dice.yaml", "ent_coef", -3.0, "-3.0"),
        ("dice", _dice, "dice.yaml", "joker", "wild", "'wild'"),
        ("dice", _dice, "dice.yaml", "lr_schedule", "cosine", "cosine"),
        ("dice", _dice, "dice.yaml", "batch_size", 10_000_000, "10000000"),
        ("rllib", _rllib, "rllib.yaml", "minibatch", 99_999, "99999"),
        ("rllib", _rllib, "rllib.yaml", "past_slots", -1, "-1"),
        ("rllib", _rllib, "rllib.yaml", "opponents", {"oracle": 1.0}, "oracle"),
        ("rllib", _rllib, "rllib.yaml", "opponents", {"past": 1.0, "greedy": -2.0}, "-2.0"),
        ("rllib", _rllib, "rllib.yaml", "gamma", 1.5, "1.5"),
        ("rllib", _rllib, "rllib.yaml", "env_runners", -1, "-1"),
        ("rllib", _rllib, "rllib.yaml", "eval_opponents", ["oracle"], "oracle"),
        ("eval", _eval, "eval.yaml", "deals", 0, "0"),
        ("eval", _eval, "eval.yaml", "players", 9, "9"),
        ("eval", _eval, "eval.yaml", "preset", "hu", "'hu'"),
        ("eval", _eval, "eval.yaml", "seed_start", 5, "5"),
        ("eval", _eval, "eval.yaml", "seed_start", 2**63, str(2**63)),
        ("eval", _eval, "eval.yaml", "confidence", 1.5, "1.5"),
        ("eval", _eval, "eval.yaml", "rng_scope", "game", "'game'"),
        ("eval", _eval, "eval.yaml", "workers", -1, "-1"),
        ("eval", _eval, "eval.yaml", "agents", ["random"], "['random']"),
):
    case("configs", f"{_kind} {_key}={_value!r} (range)",
         lambda tmp, ld=_load, k=_key, v=_value: ld(tmp, {k: v}), _key, _shown, _file)
case("configs", "ppo unknown key", lambda tmp: _ppo(tmp, {"learning_rat": 0.1}),
     "'learning_rat'", "my.yaml")
case("configs", "dice unknown key", lambda tmp: _dice(tmp, {"learning_rat": 0.1}),
     "'learning_rat'", "dice.yaml")
case("configs", "eval unknown key", lambda tmp: _eval(tmp, {"deal": 3}), "'deal'", "eval.yaml")


# --- command line: both games --------------------------------------------------------------

CLI_CASES: list[tuple[list[str], str]] = [
    (["eval", "--deals", "0"], "0"),
    (["eval", "--agents", "random"], "random"),
    (["eval", "--agents", "random", "wizard"], "wizard"),
    (["eval", "--agents", "random", "ppo:missing.zip"], "missing.zip"),
    (["eval", "--agents", "random", "greedy", "--preset", "hu"], "hu"),
    (["eval", "--agents", "random", "greedy", "--players", "9"], "9"),
    (["eval", "--agents", "random", "greedy", "--config", "nope.yaml"], "nope.yaml"),
    (["eval", "--agents", "random", "greedy", "--seed-start", "5"], "5"),
    (["main", "--deals", "0"], "0"),
    (["main", "--minutes", "-1"], "-1"),
    (["main", "--opponents", "bogus"], "bogus"),
    (["main", "--steps", "10"], "10"),
    (["train", "--config", "nope"], "nope"),
    (["train", "--minutes", "-1"], "-1"),
    (["train", "--resume", "/nonexistent/run"], "/nonexistent/run"),
    (["train", "--set", "gamma=5"], "5"),
    (["train", "--set", "wizard=1"], "wizard"),
    (["train", "--set", "num_envs=0"], "0"),
    (["train", "--restart"], "--restart"),
    (["strength", "pairs", "--deals", "0"], "0"),
    (["strength", "pairs", "--players", "two"], "two"),
    (["strength", "pairs", "--pair", "greedy", "wizard"], "wizard"),
    (["strength", "pairs", "--presets", "hu"], "hu"),
    (["strength", "ppo", "--train-minutes", "-1"], "-1"),
    (["strength", "ppo", "--run", "/nonexistent/run"], "/nonexistent/run"),
    (["export", "/nonexistent/run", "--name", "x"], "/nonexistent/run"),
    (["replay", "/nonexistent/game.jsonl"], "/nonexistent/game.jsonl"),
    (["rules", "--preset", "hu"], "hu"),
    (["rules", "--meld", "AS QQ 3S"], "QQ"),
    (["bench-env", "--seconds", "-1"], "-1"),
    (["bench-play", "--agents", "wizard"], "wizard"),
    (["bench-play", "--moves", "0"], "0"),
    (["play", "--opponents", "wizard", "--no-browser"], "wizard"),
    (["play", "--humans", "5", "--no-browser"], "5"),
    (["play", "--port", "70000", "--no-browser"], "70000"),
    (["eval", "--agents", "random", "greedy", "--backend", "ray", "--address", "nowhere"],
     "nowhere"),
    (["replay", "/nonexistent/game.jsonl", "--seat", "1"], "/nonexistent/game.jsonl"),
    (["dice", "eval", "--agent", "bogus"], "bogus"),
    (["dice", "eval", "--agent", "ppo:missing.zip"], "missing.zip"),
    (["dice", "train", "--config", "nope"], "nope"),
    (["dice", "train", "--resume", "/nonexistent/run"], "/nonexistent/run"),
    (["dice", "train", "--restart"], "--restart"),
    (["dice", "eval", "--games", "0"], "0"),
    (["dice", "bench", "--batch", "0"], "0"),
    (["dice", "solve", "--joker", "wild"], "wild"),
    (["eval", "--agents", "random", "greedy", "--out", "afile.txt"], "afile.txt"),
    (["eval", "--agents", "random", "rllib:/nonexistent/run"], "/nonexistent/run"),
    (["train", "--backend", "rllib", "--set", "past_slots=0"], "past_slots=0"),
    (["train", "--backend", "rllib", "--config", "nope"], "nope"),
    (["train", "--backend", "rllib", "--set", "iterations=-3"], "-3"),
    (["train", "--backend", "rllib", "--address", "nowhere"], "nowhere"),
    (["train", "--backend", "torch"], "torch"),
    (["train", "--address", "auto"], "--address"),
]


def _bad_replay(tmp: Path, text: str) -> Path:
    path = tmp / "game.jsonl"
    path.write_text(text)
    return path


def raised_naming(case: Case, tmp_path: Path) -> str:
    """The message ``case`` raises, checked to be its error type and to name its values."""
    with pytest.raises(case.error) as caught:
        case.call(tmp_path)
    message = str(caught.value)
    missing = [text for text in case.names if text not in message]
    assert not missing, f"{message!r} does not name {missing}"
    return message


@pytest.mark.parametrize("case", CASES, ids=[f"{c.area}: {c.name}" for c in CASES])
def test_bad_input__raises_naming_the_value(case: Case, tmp_path: Path) -> None:
    raised_naming(case, tmp_path)


@pytest.mark.parametrize(("argv", "shown"), CLI_CASES, ids=[" ".join(a) for a, _ in CLI_CASES])
def test_bad_command__one_line_exit_2_naming_the_value(argv: list[str], shown: str,
                                                       capsys: Any, tmp_path: Path,
                                                       monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile.txt").write_text("an existing file, not a folder\n")
    with pytest.raises(CommandFailed) as caught:
        run_cli(argv, capsys)
    assert shown in str(caught.value), str(caught.value)


@pytest.mark.parametrize(("text", "shown"), [
    ("", "empty"),
    ("not json\n", "line 1"),
    (json.dumps({"kind": "header"}) + "\n", "header"),
])
def test_bad_replay__names_the_line(text: str, shown: str, tmp_path: Path, capsys: Any) -> None:
    path = _bad_replay(tmp_path, text)
    with pytest.raises(CommandFailed) as caught:
        run_cli(["replay", str(path)], capsys)
    assert shown in str(caught.value), str(caught.value)


def area_counts() -> Counter[str]:
    counts = Counter(c.area for c in CASES)
    counts["cli"] += len(CLI_CASES) + 3  # with the replay cases
    return counts


def test_corpus__size_by_area() -> None:
    counts = area_counts()
    assert sum(counts.values()) >= 300, counts
    assert all(counts[area] >= 30 for area in ("rules", "envs", "configs", "cli")), counts
