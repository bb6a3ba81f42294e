"""Pět kostek as a PettingZoo AEC environment: ``from zolik_env import kostky_v0``.

``kostky_v0.env(num_players=2, joker="forced")`` is the wrapped env, ``kostky_v0.raw_env``
the bare one; see ``zolik_env.envs.kostky_aec`` for observations, actions and rewards.
"""

from zolik_env.envs.kostky_aec import env, raw_env

__all__ = ["env", "raw_env"]
