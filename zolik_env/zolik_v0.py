"""Žolík as a PettingZoo AEC environment: ``from zolik_env import zolik_v0``.

``zolik_v0.env(rules="cz", num_players=2)`` is the wrapped env, ``zolik_v0.raw_env`` the
bare one; see ``zolik_env.envs.zolik_aec`` for observations, actions and rewards.
"""

from zolik_env.envs.zolik_aec import env, raw_env

__all__ = ["env", "raw_env"]
