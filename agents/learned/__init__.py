"""Learned players: the PPO network and its priors, saved checkpoints (``ppo:PATH``),
the bots that ship (``pretrained:NAME``) and RLlib policies (``rllib:PATH``)."""
