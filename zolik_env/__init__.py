"""zolik: rules cores for Žolík (``zolik_env.rummy``) and Pět kostek (``zolik_env.dice``),
PettingZoo and Gymnasium environments over them (``zolik_env.envs``, ``zolik_v0``,
``kostky_v0``).

``import zolik_env`` registers the Gymnasium ids ``zolik/Zolik-v0`` and
``zolik/Kostky-v0`` without importing gymnasium itself: the cores stay free of it
(tests/test_layering.py). If gymnasium is loaded already the ids are registered now;
otherwise a one-shot import hook registers them the moment gymnasium is first imported.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType


def _register() -> None:
    from zolik_env.envs.registration import register_envs

    register_envs()


class _RegisterWithGymnasium(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when gymnasium is about to be imported, it removes itself and
    has gymnasium's own loader run, then register the kit's ids."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_then_register(module: ModuleType) -> None:
            run(module)
            _register()

        setattr(spec.loader, "exec_module", exec_then_register)  # noqa: B010  # this loader only
        return spec


if "gymnasium" in sys.modules:
    _register()
elif not any(isinstance(f, _RegisterWithGymnasium) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWithGymnasium())
