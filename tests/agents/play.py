"""Helpers for agent tests: decisions on scripted states and whole deals through the core."""

from __future__ import annotations

import numpy as np

from agents.base import Policy
from zolik_env.rummy import actions as A
from zolik_env.rummy import game
from zolik_env.rummy.observe import observe
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import State


def decide(policy: Policy, rules: RuleSet, state: State, seed: int = 0) -> int:
    """The action ``policy`` takes for the seat to act in game 0; checked legal."""
    obs = observe(rules, state, state.current)[0]
    mask = game.legal_action_mask(rules, state)[0]
    action = policy.act(obs, mask, np.random.default_rng(seed))
    assert mask[action], f"illegal choice {A.action_to_string(action)}"
    return action


def play_turn(policy: Policy, rules: RuleSet, state: State) -> tuple[State, list[str]]:
    """Let the seat to act play until its turn ends; (state after it, moves as text)."""
    seat, turn, moves = int(state.current[0]), int(state.turn[0]), []
    while not state.done[0] and int(state.current[0]) == seat and int(state.turn[0]) == turn:
        action = decide(policy, rules, state)
        moves.append(A.action_to_string(action))
        state = game.step(rules, state, [action])[0]
        assert len(moves) < 60, moves
    return state, moves


def play_deal(rules: RuleSet, policies: list[Policy], seed: int) -> tuple[State, list[int]]:
    """One whole deal (seat p played by ``policies[p]``), validated step by step."""
    state, actions = game.init(rules, [seed]), []
    rng = np.random.default_rng(seed)
    while not state.done[0]:
        mask = game.legal_action_mask(rules, state)
        obs = observe(rules, state, state.current)
        action = policies[int(state.current[0])].act(obs[0], mask[0], rng)
        assert mask[0, action], A.action_to_string(action)
        actions.append(action)
        state = game.step(rules, state, [action], validate=True)[0]
    return state, actions
