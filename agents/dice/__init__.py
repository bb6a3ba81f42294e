"""Players of Pět kostek: optimal (the solver's tables), random and PPO networks."""
