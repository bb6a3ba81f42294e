"""The kit's config model: every YAML config and command-line override is a pydantic model.

``eval.config.EvalConfig`` and the trainers' configs (through ``train.hyper``'s PPO
hyper-parameters: ``train.config.PPOConfig``, ``train.rllib.ppo.RllibConfig``,
``train.dice.ppo.DicePPOConfig``) derive from ``ConfigModel``:

    values = read_values(path, overrides)   # the file's mapping, overrides on top
    cfg = build(PPOConfig, values, source)  # a frozen, validated model
    plain_dict(cfg)                         # YAML-able values to write next to a run

The model is strict (pydantic's strict mode): no truthy strings or numbers for flags, no
floats or flags for counts, no numbers for names, no infinities or NaN; YAML lists become
tuples for tuple fields, integers are accepted where a number is asked for, and ``3e-4``
is read as the number it looks like. Each field declares its range
(``Field(gt=0)``, ``ge``, ``le``) and each config's cross-field rules are a model validator
(e.g. ``batch_size`` at most a rollout). Unknown keys are refused with the known ones
listed. Every refusal is one ``ValueError`` line naming the field, the value and the file.

It sits on the envs floor, below both ``eval`` and ``train``, which read configs; the
core's rule options are checked by the rules API itself (``zolik_env.rummy.options``).
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

Model = TypeVar("Model", bound="ConfigModel")


def _list_as_tuple(value: Any) -> Any:
    """YAML has lists, the frozen configs hold tuples; items are still checked strictly."""
    return tuple(value) if isinstance(value, list) else value


MAX_YAML_CHARS = 1_000_000  # a config is a few hundred bytes; this bounds the parser's work


class _ConfigLoader(yaml.SafeLoader):
    """YAML as configs are written: ``3e-4`` is a number (YAML 1.1 wants ``3.0e-4``).
    Only plain data: no tags beyond the safe ones and no aliases (``*name``), so a small
    file cannot expand into a huge one (the "billion laughs")."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, f"an alias (*{event.anchor}) is not allowed in a config: write "
                            f"the value out", event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """A mapping; a key given twice is refused (YAML would keep the last silently)."""
        self.flatten_mapping(node)
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool):
                continue  # the parent refuses an unhashable key
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


_ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def parse_yaml(text: str, source: str | None = None) -> Any:
    """A YAML document or a ``--set`` value, read as the configs are.

    Raises:
        ValueError: one line naming ``source`` (or the text itself) and what is wrong, for
            any YAML error (scanner, parser, composer, constructor), an alias, a document
            over ``MAX_YAML_CHARS`` or nested too deep.
    """
    where = source if source is not None else repr(text[:80])
    if len(text) > MAX_YAML_CHARS:
        raise ValueError(f"{where}: a config of at most {MAX_YAML_CHARS} characters, got "
                         f"{len(text)}")
    try:
        return yaml.load(text, Loader=_ConfigLoader)
    except yaml.YAMLError as err:
        raise ValueError(f"{where} is not valid YAML: {_yaml_problem(err)}") from None
    except RecursionError:
        raise ValueError(f"{where}: YAML nested too deep") from None
    except ValueError as err:  # an integer of thousands of digits, a bad date, ...
        raise ValueError(f"{where} is not valid YAML: {str(err)[:200]}") from None


def _yaml_problem(err: yaml.YAMLError) -> str:
    """A YAML error in one line: what is wrong and where (line, column)."""
    if not isinstance(err, yaml.MarkedYAMLError):
        return " ".join(str(err).split())
    parts = [p for p in (err.context, err.problem) if p]
    mark = err.problem_mark or err.context_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return " ".join(" ".join(parts).split()) + where


IntTuple = Annotated[tuple[int, ...], BeforeValidator(_list_as_tuple)]
StrTuple = Annotated[tuple[str, ...], BeforeValidator(_list_as_tuple)]


class ConfigModel(BaseModel):
    """A frozen, strictly typed config; attribute docstrings are the fields' descriptions."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid", allow_inf_nan=False,
                              use_attribute_docstrings=True, validate_default=True)

    def to_dict(self) -> dict[str, Any]:
        """Plain YAML-able values (tuples as lists)."""
        return plain_dict(self)


def one_of(choices: Sequence[str]) -> Callable[[str], str]:
    """A field validator (``field_validator("backend")(one_of(BACKENDS))``): the value must
    be one of ``choices``; the error lists them."""
    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"choose from {', '.join(choices)}")
        return value

    return check


def read_yaml(path: str | pathlib.Path) -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (an empty file gives ``{}``).

    Raises:
        ValueError: naming the file when it holds something other than a mapping.
    """
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text (byte {err.start})") from None
    loaded = parse_yaml(text, str(path))
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping of config keys, got "
                         f"{type(loaded).__name__}")
    return dict(loaded)


def read_values(path: str | pathlib.Path | None, overrides: Mapping[str, Any] | None = None,
                *, skip_none: bool = False) -> dict[str, Any]:
    """The mapping in ``path`` (none: ``{}``) with ``overrides`` on top; with ``skip_none``
    overrides whose value is ``None`` are left out (unset command-line options)."""
    values = read_yaml(path) if path is not None else {}
    values.update({k: v for k, v in (overrides or {}).items()
                   if not (skip_none and v is None)})
    return values


def build(cls: type[Model], values: Mapping[str, Any], source: str = "config") -> Model:
    """``cls`` validated from ``values``.

    Raises:
        ValueError: one line naming every bad field with its value (unknown keys with the
            known ones), and ``source``.
    """
    values = dict(values)
    try:
        return cls.model_validate(values)
    except ValidationError as err:
        raise ValueError(f"{describe(cls, values, err)} (in {source})") from None


def load(cls: type[Model], path: str | pathlib.Path | None,
         overrides: Mapping[str, Any] | None = None, *, skip_none: bool = False) -> Model:
    """``build(cls, read_values(path, overrides))``, the path named in errors."""
    source = str(path) if path is not None else "the defaults"
    return build(cls, read_values(path, overrides, skip_none=skip_none), source)


def describe(cls: type[ConfigModel], values: Mapping[str, Any], err: ValidationError) -> str:
    """pydantic's errors as one line: ``field=value: why`` each, unknown keys together."""
    unknown = [str(e["loc"][0]) for e in err.errors() if e["type"] == "extra_forbidden"]
    problems = []
    if unknown:
        problems.append(f"unknown config key(s) {', '.join(map(repr, unknown))}; known: "
                        f"{', '.join(sorted(cls.model_fields))}")
    for error in err.errors(include_url=False):
        if error["type"] == "extra_forbidden":
            continue
        problems.append(_one_problem(error, values))
    return "; ".join(problems)


# pydantic's error types in the kit's words ("total_steps=-5 must be > 0")
_PLAIN_WORDS = {
    "int_type": "is not an integer", "float_type": "is not a number",
    "bool_type": "is not true or false", "string_type": "is not a string",
    "dict_type": "is not a mapping", "tuple_type": "is not a list",
    "greater_than": "must be > {gt}", "greater_than_equal": "must be >= {ge}",
    "less_than": "must be < {lt}", "less_than_equal": "must be <= {le}",
}


def _one_problem(error: Any, values: Mapping[str, Any]) -> str:
    location = [str(part) for part in error["loc"]]
    plain = _PLAIN_WORDS.get(error["type"])
    bounds = {k: f"{v:g}" if isinstance(v, float) else v for k, v in error.get("ctx", {}).items()}
    why = (" " + plain.format(**bounds) if plain
           else ": " + str(error["msg"]).removeprefix("Value error, "))
    if not location:  # a model validator: its message names the fields itself
        return why.removeprefix(": ")
    name = location[0]
    shown = values.get(name, error.get("input"))
    if len(location) > 1:  # an item of a list or mapping: name the item too
        return f"{name}={shown!r}: {error['input']!r} at {'.'.join(location[1:])}{why}"
    return f"{name}={shown!r}{why}"


def plain_dict(cfg: BaseModel) -> dict[str, Any]:
    """A config as plain YAML-able values (tuples as lists)."""
    return cfg.model_dump(mode="json")


