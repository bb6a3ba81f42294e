"""Exact search: the hand search over a meld table (compiled) and ``pimc``, the one-step
search over sampled worlds. The bottom of the agents' floors: it needs only the core."""
