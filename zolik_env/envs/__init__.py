"""Environments over the rules cores: PettingZoo AEC envs and Gymnasium adapters.

This package is the only place in ``zolik_env`` that imports pettingzoo or
gymnasium. Importing it registers the Gymnasium ids (``zolik/Kostky-v0``, ...).
"""

from zolik_env.envs.registration import register_envs

register_envs()
