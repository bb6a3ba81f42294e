"""The readable per-row planner and greedy: the oracle the compiled ones are held to.

``agents.planner`` plays these same strategies as compiled batch kernels
(``agents.planner.planner_kernel``); ``tests/agents/test_planner_kernel.py`` plays both on
the same positions and compares every move. The product has one implementation; this
one stays here, written for reading, as ``hand_features_reference`` does for the hand
features.
"""
