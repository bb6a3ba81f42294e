"""``zolik configs``: the YAML configs that ship with the kit, and how commands find them.

    zolik configs            # every packaged config: kind, name, first comment line

A ``--config`` value is a path to a YAML file, or the name of a packaged config
(``cz_2p``, ``ppo/cz_2p``, ``configs/ppo/cz_2p.yaml`` from any directory). The configs
live in the repository's ``configs/`` and install as the package ``zolik_configs``.
"""

from __future__ import annotations

import argparse
import importlib.resources
from pathlib import Path

KINDS = ("ppo", "rllib", "eval", "dice")


def config_root() -> Path:
    """The directory of the packaged configs (``zolik_configs``)."""
    try:
        return Path(str(importlib.resources.files("zolik_configs")))
    except ModuleNotFoundError:  # a checkout not installed since the configs became data
        return Path(__file__).resolve().parents[1] / "configs"


def available(kind: str) -> list[str]:
    """Names of the packaged configs of ``kind`` (``KINDS``)."""
    return sorted(p.stem for p in (config_root() / kind).glob("*.yaml"))


def resolve_config(name_or_path: str | Path, kind: str) -> Path:
    """The YAML file ``name_or_path`` if it exists, else the packaged config of that name.

    Raises:
        ValueError: in one line, listing the packaged names of ``kind``.
    """
    path = Path(name_or_path)
    if path.is_file():
        return path
    parts = path.with_suffix("").parts
    if parts[:1] == ("configs",):
        parts = parts[1:]
    if (len(parts) == 2 and parts[0] == kind) or len(parts) == 1:
        packaged = config_root() / kind / f"{parts[-1]}.yaml"
        if packaged.is_file():
            return packaged
    raise ValueError(f"no {kind} config {str(name_or_path)!r}: give a YAML file or one of "
                     f"{', '.join(available(kind))}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="zolik configs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    root = config_root()
    for kind in KINDS:
        for name in available(kind):
            lines = (root / kind / f"{name}.yaml").read_text(encoding="utf-8").splitlines()
            note = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("#") else ""
            print(f"{kind:5} {name:12} {note}")
    print(f"({root}; use a name with --config, e.g. zolik train --config cz_2p)")
    return 0
