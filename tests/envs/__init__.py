"""Tests of the Žolík environments: PettingZoo AEC, Gymnasium, SB3 VecEnv, replays."""
