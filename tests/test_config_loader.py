"""The one YAML config loader: overrides, unknown keys, tuples, plain dicts."""

import dataclasses

import pytest

from zolik_env.config_loader import build, load, plain_dict, read_values, read_yaml


@dataclasses.dataclass(frozen=True)
class Sample:
    name: str = "a"
    sizes: tuple[int, ...] = (1, 2)
    options: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if not self.name:
            raise ValueError("name must not be empty")


def test_load__yaml_with_overrides_into_a_frozen_dataclass(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: b\nsizes: [3, 4]\n")
    cfg = load(Sample, path, {"name": "c"})
    assert cfg == Sample(name="c", sizes=(3, 4))
    assert load(Sample, path, {"name": None}, skip_none=True).name == "b"
    assert load(Sample, None) == Sample()
    assert plain_dict(cfg) == {"name": "c", "sizes": [3, 4], "options": {}}


def test_build__unknown_keys_name_the_keys_and_the_source():
    with pytest.raises(ValueError, match=r"'nmae', 'sizez' in my\.yaml; known: name, "):
        build(Sample, {"nmae": "x", "sizez": [1]}, "my.yaml")
    with pytest.raises(ValueError, match="name must not be empty"):
        build(Sample, {"name": ""})


def test_read_yaml__empty_file_and_non_mapping(tmp_path):
    empty, listed = tmp_path / "empty.yaml", tmp_path / "list.yaml"
    empty.write_text("")
    listed.write_text("- 1\n- 2\n")
    assert read_yaml(empty) == {} and read_values(empty, {"a": 1}) == {"a": 1}
    with pytest.raises(ValueError, match=r"list\.yaml: expected a mapping"):
        read_yaml(listed)
