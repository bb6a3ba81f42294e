"""The RLlib backend: PPO self-play through RLlib (``zolik train --backend rllib``)."""
