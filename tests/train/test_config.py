"""``train.config``: YAML configs validated, overrides parsed."""

import pathlib

import pytest

from train.config import PPOConfig, load_config, make_config, parse_overrides, to_dict

CONFIGS = sorted(pathlib.Path("configs/ppo").glob("*.yaml"))


def test_configs__repo_configs_load():
    names = {p.stem for p in CONFIGS}
    assert {"cz_2p", "cz_4p", "sk_2p", "jolly_2p"} <= names
    for path in CONFIGS:
        cfg = load_config(path)
        assert cfg.rules().num_players == cfg.players


def test_configs__default_yaml_matches_model_defaults():
    assert to_dict(load_config("configs/ppo/cz_2p.yaml")) == to_dict(PPOConfig())


def test_configs__hour_recipe_is_the_default_with_the_measured_changes():
    hour = to_dict(load_config("configs/ppo/cz_2p_hour.yaml"))
    default = to_dict(PPOConfig())
    changed = {key: hour[key] for key in hour if hour[key] != default[key]}
    assert changed == {
        "exp_name": "ppo_cz2p_hour", "learning_rate_final": 1e-5,
        "teacher": "planner:keep=0.8,danger=3", "teacher_decisions": 1_000_000,
        "teacher_epochs": 6, "torch_threads": 1, "plan_open_start": 16.0,
        "total_steps": 20_000_000,
        "pool": {"latest": 0.2, "past": 0.1, "planner": 0.7}}


@pytest.mark.parametrize("name", ["cz_4p_hour", "sk_2p_hour", "jolly_2p_hour"])
def test_configs__other_hour_recipes_are_cz_2p_hour_on_their_rules(name):
    hour = to_dict(load_config("configs/ppo/cz_2p_hour.yaml"))
    other = to_dict(load_config(f"configs/ppo/{name}.yaml"))
    changed = {key for key in hour if hour[key] != other[key]}
    assert changed <= {"exp_name", "preset", "players"} and "exp_name" in changed


def test_config__unknown_key_is_an_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("preset: cz\ntotal_step: 10\n")
    with pytest.raises(ValueError, match="total_step"):
        load_config(path)


@pytest.mark.parametrize("raw, match", [
    ({"pool": {"latest": 1, "grredy": 1}}, "grredy"),
    ({"pool": {"latest": 0}}, "positive sum"),
    ({"pool": {"latest": 1, "planner:kepe=0.8": 1}}, r"unknown entries \['planner:kepe=0.8'\]"),
    ({"eval_opponents": ["planner:keep=much"]}, "planner:keep=much"),
    ({"players": 5}, "num_players"),
    ({"rule_options": {"opening_pionts": 3}}, "opening_pionts"),
    ({"eval_opponents": ["ppo"]}, "eval_opponents"),
    ({"reward": "points"}, "reward"),
    ({"num_envs": 0}, "num_envs"),
    ({"pool_focus": -1}, "pool_focus=-1 must be >= 0"),
    ({"shaping": -0.5}, "shaping=-0.5 must be >= 0"),
    ({"ent_coef": -0.1}, "ent_coef=-0.1 must be >= 0"),
    ({"vf_coef": -1}, "vf_coef=-1 must be >= 0"),
    ({"learning_rate": 0}, "learning_rate=0 must be > 0"),
    ({"learning_rate_final": 0}, "learning_rate_final=0 must be > 0"),
    ({"ent_coef_final": -0.01}, "ent_coef_final=-0.01 must be >= 0"),
    ({"teacher": "oracle"}, "teacher='oracle': choose from planner, greedy"),
    ({"teacher_epochs": 0}, "teacher_epochs=0 must be > 0"),
    ({"exp_name": "../../x"}, "exp_name='../../x': use letters"),
    ({"gamma": 5}, "gamma=5 must be <= 1"),
    ({"clip_range": -1}, "clip_range=-1 must be > 0"),
    ({"net_arch": [0]}, r"net_arch=\[0\]: hidden layer widths must be positive"),
    ({"batch_size": 100000}, "batch_size=100000 is larger than a rollout"),
    ({"eval_every": 1.5}, "eval_every=1.5 is not an integer"),
    ({"progress": "no"}, "progress='no' is not true or false"),
    ({"total_steps": 5.0}, "total_steps=5.0 is not an integer"),
    ({"num_envs": True}, "num_envs=True is not an integer"),
    ({"net_arch": [64, "wide"]}, r"net_arch=\[64, 'wide'\]: 'wide' at 1 is not an integer"),
    ({"learning_rate": "fast"}, "learning_rate='fast' is not a number"),
    ({"obs_features": "hand"}, "discard_prior needs obs_features: hand\\+discard"),
    ({"prior_lr_scale": 0}, "prior_lr_scale=0 must be > 0"),
    ({"obs_features": "hand+cards", "discard_prior": True}, "got obs_features='hand\\+cards'"),
    ({"obs_features": "hand+held"}, "obs_features='hand\\+held' unknown"),
])
def test_config__bad_values_are_errors(raw, match):
    with pytest.raises(ValueError, match=match) as caught:
        make_config(raw, "my.yaml")
    assert str(caught.value).endswith("(in my.yaml)") and "\n" not in str(caught.value)


def test_parse_overrides__yaml_values():
    got = parse_overrides(["total_steps=100000", "net_arch=[64, 64]", "pool={greedy: 1}"])
    assert got == {"total_steps": 100000, "net_arch": [64, 64], "pool": {"greedy": 1}}
    assert make_config(got).net_arch == (64, 64)
    with pytest.raises(ValueError, match="key=value"):
        parse_overrides(["total_steps"])
