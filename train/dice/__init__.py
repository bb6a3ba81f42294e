"""Training on Pět kostek: PPO on the batched dice core and its learning curve."""
