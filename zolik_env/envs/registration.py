"""Gymnasium registration of the kit's single-agent environments.

The ids and entry points live in ``zolik_env.ENV_IDS`` (vector entry points in
``zolik_env.VECTOR_ENTRY_POINTS``): ``import zolik_env`` registers them as soon as
gymnasium is imported, and ``import zolik_env.envs`` at once.
"""

from __future__ import annotations

import gymnasium

from zolik_env import ENV_IDS, VECTOR_ENTRY_POINTS, register_ids

__all__ = ["ENV_IDS", "VECTOR_ENTRY_POINTS", "register_envs"]


def register_envs() -> None:
    """Register every id once; safe to call repeatedly."""
    register_ids(gymnasium)
