"""zolik: rules cores for Žolík (``zolik_env.rummy``) and Pět kostek (``zolik_env.dice``),
PettingZoo and Gymnasium environments over them (``zolik_env.envs``, ``zolik_v0``,
``kostky_v0``).

``import zolik_env`` registers the Gymnasium ids ``zolik/Zolik-v0`` and
``zolik/Kostky-v0`` without importing gymnasium or the envs: the cores stay free of both
(tests/test_layering.py). If gymnasium is loaded already the ids are registered now;
otherwise a one-shot import hook registers them the moment gymnasium is first imported.
The entry points are strings, so ``gymnasium.make`` imports an env only when it builds one.
``zolik/Zolik-v0`` also has a ``vector_entry_point`` (``VECTOR_ENTRY_POINTS``):
``gymnasium.make_vec("zolik/Zolik-v0", num_envs=N)`` builds the batched vector env over
the core (``zolik_env.envs.zolik_vector``), not N copies of the single env.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

# Gymnasium id -> "module:attribute" of the environment class
ENV_IDS: dict[str, str] = {
    "zolik/Kostky-v0": "zolik_env.envs.kostky:KostkyEnv",
    "zolik/Zolik-v0": "zolik_env.envs.zolik_gym:ZolikEnv",
}

# Gymnasium id -> "module:attribute" of its vector env (``gymnasium.make_vec``'s default)
VECTOR_ENTRY_POINTS: dict[str, str] = {
    "zolik/Zolik-v0": "zolik_env.envs.zolik_vector:ZolikVectorEnv",
}


# Ids that ``gymnasium.make`` returns unwrapped, so that ``env.action_masks()`` works on
# what it returns (Gymnasium 1.x wrappers forward no attributes). The env itself refuses a
# step before reset and is held to Gymnasium's checks by the tests, which is what the
# order-enforcing wrapper and the passive checker would add.
UNWRAPPED_IDS = frozenset({"zolik/Zolik-v0"})


def register_ids(gymnasium: ModuleType) -> None:
    """Register every id of ``ENV_IDS`` with the ``gymnasium`` module, each once."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            bare = env_id in UNWRAPPED_IDS
            gymnasium.register(id=env_id, entry_point=entry_point,
                               vector_entry_point=VECTOR_ENTRY_POINTS.get(env_id),
                               order_enforce=not bare, disable_env_checker=bare)


class _RegisterWithGymnasium(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when gymnasium is about to be imported, it removes itself,
    lets gymnasium's own loader run, then registers the kit's ids."""

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
            register_ids(module)

        setattr(spec.loader, "exec_module", exec_then_register)  # noqa: B010  # this loader only
        return spec


if "gymnasium" in sys.modules:
    register_ids(sys.modules["gymnasium"])
elif not any(isinstance(f, _RegisterWithGymnasium) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWithGymnasium())
