"""The kit's config model (``zolik_env.config_model``): strict types, declared ranges, one-line
errors naming field, value and file, for every config of the kit."""

from typing import Any

import pytest
from pydantic import Field

from eval.config import EvalConfig
from train.config import PPOConfig
from train.dice.ppo import DicePPOConfig
from train.rllib.ppo import RllibConfig
from zolik_env.config_model import (
    ConfigModel,
    IntTuple,
    build,
    load,
    plain_dict,
    read_values,
    read_yaml,
)

CONFIGS = (PPOConfig, DicePPOConfig, EvalConfig, RllibConfig)
# numeric fields with no range: any integer seeds the generators
UNBOUNDED = {"seed"}


class Sample(ConfigModel):
    name: str = "a"
    sizes: IntTuple = (1, 2)
    rate: float = Field(0.5, gt=0, le=1)
    """How often."""
    options: dict[str, Any] = Field(default_factory=dict)


def test_load__yaml_with_overrides_into_a_frozen_model(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: b\nsizes: [3, 4]\n")
    cfg = load(Sample, path, {"name": "c"})
    assert cfg == Sample(name="c", sizes=(3, 4))
    assert load(Sample, path, {"name": None}, skip_none=True).name == "b"
    assert load(Sample, None) == Sample()
    assert plain_dict(cfg) == {"name": "c", "sizes": [3, 4], "rate": 0.5, "options": {}}
    with pytest.raises(ValueError, match="frozen"):
        cfg.name = "d"  # type: ignore[misc]


def test_build__unknown_keys_name_the_keys_the_known_ones_and_the_source():
    with pytest.raises(ValueError, match=r"'nmae', 'sizez'; known: name, options, rate, sizes "
                                         r"\(in my\.yaml\)"):
        build(Sample, {"nmae": "x", "sizez": [1]}, "my.yaml")


@pytest.mark.parametrize(("values", "message"), [
    ({"name": 5}, "name=5 is not a string"),
    ({"sizes": "12"}, "sizes='12' is not a list"),
    ({"sizes": [1, True]}, "sizes=[1, True]: True at 1 is not an integer"),
    ({"sizes": [1, 2.0]}, "sizes=[1, 2.0]: 2.0 at 1 is not an integer"),
    ({"rate": "0.5"}, "rate='0.5' is not a number"),
    ({"rate": 0}, "rate=0 must be > 0"),
    ({"rate": 2}, "rate=2 must be <= 1"),
    ({"options": [1]}, "options=[1] is not a mapping"),
    ({"rate": 0, "name": 1}, "name=1 is not a string; rate=0 must be > 0"),
])
def test_build__every_bad_value_in_one_line_with_field_value_and_source(values, message):
    with pytest.raises(ValueError) as caught:
        build(Sample, values, "my.yaml")
    assert str(caught.value) == f"{message} (in my.yaml)"


def test_build__integers_are_numbers_but_flags_and_strings_are_not():
    assert build(Sample, {"rate": 1}).rate == 1.0
    for flag_or_text in (True, "1"):
        with pytest.raises(ValueError, match="is not a number"):
            build(Sample, {"rate": flag_or_text})


def test_read_yaml__empty_file_and_non_mapping(tmp_path):
    empty, listed = tmp_path / "empty.yaml", tmp_path / "list.yaml"
    empty.write_text("")
    listed.write_text("- 1\n- 2\n")
    assert read_yaml(empty) == {} and read_values(empty, {"a": 1}) == {"a": 1}
    with pytest.raises(ValueError, match=r"list\.yaml: expected a mapping"):
        read_yaml(listed)


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_configs__every_number_declares_its_range(cls):
    numeric = {name for name, info in cls.model_fields.items() if info.annotation in (int, float)}
    bounded = {name for name in numeric
               if any(hasattr(m, attr) for m in cls.model_fields[name].metadata
                      for attr in ("gt", "ge", "lt", "le"))}
    checked = {"players", "seed_start"}  # a validator of their own (2..4, held-out seeds)
    assert numeric - bounded - UNBOUNDED - checked == set()


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_configs__every_field_is_described(cls):
    assert [n for n, info in cls.model_fields.items() if not info.description] == []


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_configs__defaults_round_trip_through_plain_values(cls):
    cfg = cls()
    assert build(cls, plain_dict(cfg)) == cfg


def test_read_yaml__numbers_as_they_are_written(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("rate: 3e-1\nsizes: [1_000]\nname: 1e3x\n")
    assert read_yaml(path) == {"rate": 0.3, "sizes": [1000], "name": "1e3x"}
    assert build(Sample, read_yaml(path)).rate == 0.3


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_build__no_infinities_or_nan(value):
    with pytest.raises(ValueError, match="finite"):
        build(Sample, {"rate": value})
