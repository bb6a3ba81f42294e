"""The kit's one YAML config loader: a YAML mapping, overrides on top, a frozen dataclass.

Every config of the kit (``train.config.PPOConfig``, ``eval.config.EvalConfig``,
``train.dice_ppo.DicePPOConfig``) is a frozen dataclass loaded through here:

    values = read_values(path, overrides)   # the file's mapping, overrides on top
    cfg = build(PPOConfig, values, source)  # unknown keys: ValueError naming them and source
    plain_dict(cfg)                         # YAML-able values to write next to a run

Lists become tuples where the field is declared a tuple. Each config checks its own
values (in ``__post_init__`` or after ``build``). Imports only stdlib and yaml.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import yaml

T = TypeVar("T")


def read_yaml(path: str | pathlib.Path) -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (an empty file gives ``{}``).

    Raises:
        ValueError: naming the file when it holds something other than a mapping.
    """
    loaded = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))
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


def check_keys(cls: type, values: Mapping[str, Any], source: str) -> None:
    """Raise ``ValueError`` naming the keys of ``values`` that are not fields of ``cls``,
    the ``source`` they came from and the known keys."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown config key(s) {', '.join(map(repr, unknown))} in {source}; "
                         f"known: {', '.join(sorted(known))}")


def _is_tuple_field(field: dataclasses.Field[Any]) -> bool:
    kind = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
    return kind.startswith(("tuple", "Tuple"))


# declared field type -> the Python types a value may have (bool is not an int here)
_SCALARS: dict[str, tuple[type, ...]] = {"int": (int,), "float": (int, float), "bool": (bool,),
                                          "str": (str,)}


def _type_error(name: str, value: Any, declared: str) -> str | None:
    """Why ``value`` does not fit the field type ``declared`` (None when it does). Strict:
    no strings or floats for counts, no strings for flags, no numbers for names."""
    declared = declared.replace(" ", "")
    if declared in _SCALARS:
        fits = isinstance(value, _SCALARS[declared]) and not (
            declared != "bool" and isinstance(value, bool))
        return None if fits else f"{name}={value!r} is not {_article(declared)}"
    for inner in ("int", "float", "str"):
        if declared == f"tuple[{inner},...]":
            if not isinstance(value, tuple):
                return f"{name}={value!r} is not a list"
            wrong = [v for v in value if _type_error(name, v, inner)]
            return f"{name}={list(value)!r}: {wrong[0]!r} is not {_article(inner)}" if wrong \
                else None
    if declared.startswith("dict[") and not isinstance(value, dict):
        return f"{name}={value!r} is not a mapping"
    return None


def _article(declared: str) -> str:
    return {"int": "an integer", "float": "a number", "bool": "true or false",
            "str": "a string"}[declared]


def build(cls: type[T], values: Mapping[str, Any], source: str = "config",
          check: Callable[[T], None] | None = None) -> T:
    """``cls(**values)``: sequences become tuples for tuple fields; every value must have
    its field's declared type (``_type_error``), checked before the dataclass sees it;
    then ``check(config)``, the config's own range rules.

    Raises:
        ValueError: naming unknown keys, values of the wrong type, or values the dataclass
            or ``check`` rejects, always with ``source`` named.
    """
    check_keys(cls, values, source)
    kwargs = dict(values)
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        value = kwargs.get(field.name)
        if _is_tuple_field(field) and isinstance(value, list | tuple):
            kwargs[field.name] = tuple(value)
        if field.name in kwargs:
            declared = field.type if isinstance(field.type, str) else ""
            problem = _type_error(field.name, kwargs[field.name], declared)
            if problem:
                raise ValueError(f"{problem} (in {source})")
    try:
        cfg = cls(**kwargs)
        if check is not None:
            check(cfg)
    except TypeError as err:
        raise ValueError(f"bad config in {source}: {err}") from err
    except ValueError as err:  # a range rule: name the file, as the type errors do
        raise ValueError(f"{err} (in {source})") from None
    return cfg


def load(cls: type[T], path: str | pathlib.Path | None,
         overrides: Mapping[str, Any] | None = None, *, skip_none: bool = False) -> T:
    """``build(cls, read_values(path, overrides))``, the path named in errors."""
    source = str(path) if path is not None else "the defaults"
    return build(cls, read_values(path, overrides, skip_none=skip_none), source)


def plain_dict(cfg: Any) -> dict[str, Any]:
    """A config dataclass as plain YAML-able values (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(cfg).items()}
