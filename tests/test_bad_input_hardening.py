"""The bad-input corpus, second part: the classes of the hardening round (docs/style.md §7).

YAML that does not parse (every kind of yaml error: scanner, parser, composer,
constructor), aliases and alias bombs, duplicate keys, huge integers and deep nesting,
fed to every command that reads a config or a ``--set`` value; the web table's request
budget and damaged saves; the strict checks of the rules API and the environments.
Each case asserts the error type and that the message names the bad value (or the file);
command-line cases expect exit 2 and one ``zolik COMMAND: ...`` line, never a traceback.
``tests/test_bad_input_corpus.py`` holds the first part and the shared helpers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.test_bad_input_corpus import Case, CommandFailed, raised_naming, run_cli
from zolik_env.rummy import options, rules

CASES: list[Case] = []
# (name, argv, shown, files to write first: relative path -> text or bytes)
CLI_CASES: list[tuple[str, list[str], str, dict[str, str | bytes]]] = []


def case(area: str, name: str, call: Any, *names: str,
         error: type[BaseException] = ValueError) -> None:
    CASES.append(Case(area, name, call, error, names))


# --- YAML: every yaml error is one ValueError naming the file -----------------------------

BOMB = "\n".join(["a: &a [x, x, x, x, x, x, x, x, x]"]
                 + [f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]"
                    for p, n in zip("abcdefg", "bcdefgh", strict=True)])
BAD_YAML: list[tuple[str, str]] = [
    ("total_steps: [1,", "line 1"),
    ("a: b: c", "line 1"),
    ("\t- x", "line 1"),
    ("{a: 1", "line"),
    ("key: 'unterminated", "line"),
    ('x: "\\q"', "line 1"),
    ("a: [1, 2", "line"),
    ("a: {b: [1, {c: 2]}", "line 1"),
    ("a:\n  - b\n c: d", "line"),
    ("@x: 1", "line 1"),
    ("a: `x`", "line 1"),
    ("a: &x 1\nb: *x", "alias"),
    (BOMB, "alias"),
    ("a: &x [1]\nb: [*x, *x]", "alias"),
    ("a: !!python/object/apply:os.system ['echo']", "python/object"),
    ("a: !!python/name:os.system ''", "python/name"),
    ("a: !custom 1", "!custom"),
    ("{a: 1, a: 2}", "'a'"),
    ("a: 1\nb: 2\na: 3", "'a'"),
    ("gamma: 0.9\ngamma: 0.99", "'gamma'"),
    ("[" * 3000, "deep"),
    ("a: " + "[" * 3000, "deep"),
    ("a: " + "9" * 5000, "4300 digits"),
    ("--- a\n--- b", "single document"),
    ("a: 2002-13-45", "month"),
    ("? [a, b]\n: 1", "unhashable"),
    ("%YAML 9.9\n---\na: 1", "YAML"),
    ("%TAG ! !\n%TAG ! !\n---\na: 1", "tag handle"),
    ("- 1\n- 2", "mapping"),
    ("just a string", "mapping"),
]


def _read(tmp: Path, text: str) -> Any:
    from zolik_env.config_model import read_yaml

    path = tmp / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    return read_yaml(path)


for _number, (_text, _shown) in enumerate(BAD_YAML):
    case("yaml", f"read_yaml #{_number} {_text[:30]!r}", lambda tmp, t=_text: _read(tmp, t),
         "bad.yaml", _shown)
    for _argv in (["eval", "--agents", "random", "greedy", "--config"], ["train", "--config"],
                  ["dice", "train", "--config"],
                  ["strength", "ppo", "--train-minutes", "1", "--config"],
                  ["train", "--backend", "rllib", "--config"]):
        CLI_CASES.append((f"{' '.join(_argv[:2])} --config #{_number}", [*_argv, "bad.yaml"],
                          "bad.yaml", {"bad.yaml": _text}))


def _non_utf8(tmp: Path) -> Any:
    from zolik_env.config_model import read_yaml

    path = tmp / "latin.yaml"
    path.write_bytes(b"exp_name: \xe9t\xe9\n")
    return read_yaml(path)


case("yaml", "read_yaml of a non-UTF-8 file", _non_utf8, "latin.yaml", "UTF-8")

BAD_SET_VALUES = ["[1,", "{a:", "'x", "*x", "&a [1, *a]", "!!python/name:os.system ''",
                  "a: b: c", "[" * 2000, "9" * 5000, "{a: 1, a: 2}", "`x`", "@x", "\tx: 1"]
for _value in BAD_SET_VALUES:
    for _argv in (["train"], ["strength", "ppo", "--train-minutes", "1"], ["main"]):
        CLI_CASES.append((f"{_argv[0]} --set total_steps={_value[:12]!r}",
                          [*_argv, "--set", f"total_steps={_value}"], repr(_value)[1:-1][:10],
                          {}))
    case("yaml", f"parse_yaml({_value[:20]!r})",
         lambda tmp, v=_value: __import__("zolik_env.config_model").config_model.parse_yaml(v),
         repr(_value)[1:-1][:10])


for _number, (_text, _) in enumerate([*BAD_YAML[:12], ("exp_name: x\ngamma: [", "")]):
    CLI_CASES.append((f"train --resume, config.yaml #{_number}", ["train", "--resume", "run"],
                      "config.yaml", {"run/config.yaml": _text}))
CLI_CASES.append(("train --resume, config.yaml not UTF-8", ["train", "--resume", "run"],
                  "config.yaml", {"run/config.yaml": b"exp_name: \xff\n"}))


# --- train --resume: every checkpoint damaged fails loudly, never retrains from 0 ----------

def _run_config() -> str:
    import yaml

    from train.config import make_config
    from zolik_env.config_model import read_yaml

    root = Path(__file__).resolve().parents[1]
    return yaml.safe_dump(make_config(read_yaml(root / "configs/ppo/cz_2p.yaml")).to_dict())


_CONFIG = _run_config()
for _name, _checkpoints in (
        ("junk", {"step_100.zip": "junk"}),
        ("empty", {"step_100.zip": b""}),
        ("two cut", {"step_100.zip": b"PK\x03\x04", "step_200.zip": b"PK\x05\x06"}),
        ("a folder", {"step_100.zip/x": "x"}),
):
    CLI_CASES.append((f"train --resume, checkpoints {_name}", ["train", "--resume", "run"],
                      "damaged", {"run/config.yaml": _CONFIG,
                                  **{f"run/checkpoints/{k}": v for k, v in _checkpoints.items()}}))


# --- zolik replay: a recorded file of any damage is one line naming the line ----------------

_HEAD = json.dumps({"kind": "game", "version": 1, "rules": "cz", "rule_options": {},
                    "num_players": 2})
_DEAL = {"kind": "deal", "deal": 0, "seed": 1, "deal_index": 0}
_MOVE = {"kind": "move", "deal": 0, "turn": 0, "seat": 0, "move": "draw stock"}
for _name, _lines, _shown in (
        ("a move that is a number", [_DEAL, {**_MOVE, "move": 7}], "'7'"),
        ("a move that is a list", [_DEAL, {**_MOVE, "move": ["draw"]}], "draw"),
        ("a seat that is text", [_DEAL, {**_MOVE, "seat": "0"}], "'0'"),
        ("a turn that is a float", [_DEAL, {**_MOVE, "turn": 0.5}], "0.5"),
        ("a seed that is text", [{**_DEAL, "seed": "abc"}], "abc"),
        ("a negative seed", [{**_DEAL, "seed": -4}], "-4"),
        ("a seed of 2^70", [{**_DEAL, "seed": 2**70}], str(2**70)[:10]),
        ("no seed", [{k: v for k, v in _DEAL.items() if k != "seed"}], "seed"),
        ("a deal index that is null", [{**_DEAL, "deal_index": None}], "None"),
        ("a stock of three cards", [{**_DEAL, "stock": "AS 2S 3S", "key": 1}], "stock"),
        ("a key that is text", [{**_DEAL, "stock": "AS", "key": "x"}], "'x'"),
        ("a key of 2^64", [{**_DEAL, "stock": "AS", "key": 2**64}], str(2**64)),
):
    CLI_CASES.append((f"replay: {_name}", ["replay", "game.jsonl"], _shown, {
        "game.jsonl": "\n".join([_HEAD, *(json.dumps(line) for line in _lines)]) + "\n"}))
for _name, _text, _shown in (
        ("a deep line", "[" * 50_000, "line 1"),
        ("a huge integer", '{"kind": ' + "9" * 5000 + "}", "line 1"),
        ("not UTF-8", b"\xff\xfe{}\n", "UTF-8"),
):
    CLI_CASES.append((f"replay: {_name}", ["replay", "game.jsonl"], _shown,
                      {"game.jsonl": _text}))


# --- zolik export: a bot that ships is replaced only with --force ---------------------------

CLI_CASES.append(("export over a shipped bot", ["export", "run", "--name", "cz_2p"],
                  "--force", {"run/config.yaml": "exp_name: x\n"}))
CLI_CASES.append(("export --name with a slash", ["export", "run", "--name", "../x"], "../x",
                  {"run/config.yaml": "exp_name: x\n"}))


# --- strict APIs: types, multiplicity, a state of the same rules, a step after the end -----

def _step(actions: Any, rules_name: str = "cz", players: int = 2, state_rules: Any = None,
          state: Any = None) -> Any:
    from zolik_env.rummy import game, options

    made = options.preset(rules_name, num_players=players)
    state = state if state is not None else game.init(state_rules or made, [1])
    return game.step(made, state, actions)


for _actions, _shown in (([0.0], "float64"), ([1.5], "1.5"), (np.array([True]), "bool"),
                         (["0"], "'0'"), ([None], "None"), (np.array([2.0], np.float32), "2.0"),
                         ([complex(1, 0)], "complex")):
    case("strict", f"game.step({_actions!r})", lambda tmp, a=_actions: _step(a), _shown)
for _rules, _players, _shown in (("jolly", 2, "110"), ("cz", 3, "3 players"),
                                 ("cz", 4, "4 players"), ("jolly", 3, "jolly")):
    case("strict", f"game.step(cz state, {_rules} {_players}p rules)",
         lambda tmp, r=_rules, n=_players: _step([0], r, n, options.preset("cz")), _shown)
def _mask_or_view(which: str, rules_name: str, players: int) -> Any:
    from zolik_env.rummy import game

    state = game.init(options.preset("cz"), [1])
    made = options.preset(rules_name, num_players=players)
    if which == "mask":
        return game.legal_action_mask(made, state)
    return game.observe(made, state, 0)


for _which in ("mask", "observe"):
    for _rules, _players, _shown in (("jolly", 2, "110"), ("cz", 3, "3 players"),
                                     ("sk", 4, "4 players")):
        case("strict", f"{_which} of a cz state with {_rules} {_players}p rules",
             lambda tmp, w=_which, r=_rules, n=_players: _mask_or_view(w, r, n), _shown)
case("strict", "game.step(a dict for a state)",
     lambda tmp: _step([0], state={"hands": []}), "dict")
for _call, _name in (
        (lambda: __import__("zolik_env.rummy.game").rummy.game.init("cz", [1]), "init"),
        (lambda: rules.score_deal("cz", hands=["", "2S"], opened=[True, True], winner=0),
         "score_deal"),
        (lambda: rules.check_opening([], "cz"), "check_opening([])"),
        (lambda: rules.check_opening(["AS 2S 3S"], "jolly"), "check_opening"),
        (lambda: rules.check_meld("AS 2S 3S", "sk"), "check_meld"),
):
    case("strict", f"{_name} with a preset name", lambda tmp, c=_call: c(), "RuleSet")
_CZ = options.preset("cz")
for _melds, _shown in ((["AS AS AS"], "3 x AS"), (["AS 2S 3S"] * 3, "3 x AS"),
                       (["JK JK JK 5H", "JK JK 6H 7H"], "5 x JK"),
                       (["KH KH KH KD"], "3 x KH"), ([["2C", "2C", "2C"]], "3 x 2C"),
                       (["10D 10D 10D 10D"], "4 x 10D")):
    case("strict", f"check_opening({_melds!r})",
         lambda tmp, m=_melds: rules.check_opening(m, _CZ), _shown)
for _preset, _players in (("cz", 2), ("sk", 3), ("jolly", 4)):
    for _winner in range(_players):
        _opened = [True] * _players
        _opened[_winner] = False
        _hands = ["2S"] * _players
        _hands[_winner] = ""
        case("strict", f"score_deal({_preset}, winner {_winner} never opened)",
             lambda tmp, p=_preset, n=_players, w=_winner, o=_opened, h=_hands:
             rules.score_deal(options.preset(p, num_players=n), hands=h, opened=o, winner=w),
             f"seat {_winner}) never opened")


def _after_end(make: str, action: Any) -> None:
    from zolik_env import kostky_v0, zolik_v0

    module, _, name = make.rpartition(".")
    env = getattr(kostky_v0 if module == "kostky_v0" else zolik_v0, name)()
    env.reset(seed=0)
    for _agent in env.agent_iter():
        obs, _, done, cut, _ = env.last()
        env.step(None if done or cut else int(np.flatnonzero(obs["action_mask"])[0]))
    env.step(action)


for _make in ("zolik_v0.env", "zolik_v0.raw_env", "kostky_v0.env", "kostky_v0.raw_env"):
    for _action in (0, None, 5, 0.5, "draw stock"):
        case("strict", f"{_make} step({_action!r}) after the end",
             lambda tmp, m=_make, a=_action: _after_end(m, a), f"step({_action})", "reset()")


# --- zolik play: refused before the server starts -----------------------------------------

for _argv, _shown, _files in (
        (["--seed", "-1"], "-1", {}), (["--seed", str(2**62)], str(2**62), {}),
        (["--games", "afile.txt"], "afile.txt", {"afile.txt": "a file"}),
        (["--games", "afile.txt/sub"], "afile.txt/sub", {"afile.txt": "a file"}),
        (["--port", "0"], "0", {}), (["--humans", "0"], "0", {}),
        (["--players", "7"], "7", {}), (["--preset", "hu"], "hu", {}),
        (["--opponents", "os:system"], "os:system", {}),
        (["--opponents", "random", "random", "random"], "random", {}),
):
    CLI_CASES.append((f"play {' '.join(_argv)}", ["play", "--no-browser", *_argv], _shown,
                      _files))


@pytest.mark.parametrize("case", CASES, ids=[f"{c.area}: {c.name}" for c in CASES])
def test_bad_input__raises_naming_the_value(case: Case, tmp_path: Path) -> None:
    message = raised_naming(case, tmp_path)
    assert "\n" not in message.strip(), message


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@pytest.mark.parametrize(("argv", "shown", "files"), [c[1:] for c in CLI_CASES],
                         ids=[c[0] for c in CLI_CASES])
def test_bad_command__one_line_exit_2_naming_the_value(argv: list[str], shown: str,
                                                       files: dict[str, str | bytes],
                                                       capsys: Any, tmp_path: Path,
                                                       monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    write_files(tmp_path, files)
    with pytest.raises(CommandFailed) as caught:
        run_cli(argv, capsys)
    assert shown in str(caught.value), str(caught.value)


def area_counts() -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c.area] = counts.get(c.area, 0) + 1
    counts["cli"] = counts.get("cli", 0) + len(CLI_CASES)
    return counts


def test_corpus__at_least_600_cases_over_every_class() -> None:
    from collections import Counter

    from tests import test_bad_input_corpus as first
    from tests.play import test_request_budget as web

    counts = Counter(first.area_counts())
    counts.update(area_counts())
    counts["web"] += len(web.CASES) + len(web.DAMAGE) + len(web.RAW_DAMAGE)
    assert sum(counts.values()) >= 600, counts
    for area in ("rules", "envs", "configs", "cli", "yaml", "strict", "web"):
        assert counts[area] >= 30, (area, counts)
