"""Gymnasium registration of the kit's single-agent environments.

``import zolik_env`` registers the ids as soon as gymnasium is imported (before or after
it); ``import zolik_env.envs`` registers them at once. This module imports gymnasium only
inside ``register_envs``, so the hook in ``zolik_env/__init__.py`` can call it while
gymnasium finishes loading.
"""

from __future__ import annotations

# id -> "module:attribute" of the environment class
ENV_IDS: dict[str, str] = {
    "zolik/Kostky-v0": "zolik_env.envs.kostky:KostkyEnv",
    "zolik/Zolik-v0": "zolik_env.envs.zolik_gym:ZolikEnv",
}


def register_envs() -> None:
    """Register every id once; safe to call repeatedly."""
    import gymnasium

    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)
