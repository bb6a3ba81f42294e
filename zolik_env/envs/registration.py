"""Gymnasium registration of the kit's single-agent environments."""

from __future__ import annotations

import gymnasium

# id -> "module:attribute" of the environment class
ENV_IDS: dict[str, str] = {
    "zolik/Kostky-v0": "zolik_env.envs.kostky:KostkyEnv",
    "zolik/Zolik-v0": "zolik_env.envs.zolik_gym:ZolikEnv",
}


def register_envs() -> None:
    """Register every id once; safe to call repeatedly."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)
