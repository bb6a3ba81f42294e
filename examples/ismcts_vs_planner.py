"""OpenSpiel's ISMCTS bot against the kit's planner, through the OpenSpiel adapter.

    python examples/ismcts_vs_planner.py --preset cz --deals 4 --simulations 32

Seat 0 is OpenSpiel's ``ISMCTSBot`` on the game ``python_zolik`` (``zolik_env.openspiel``),
with the adapter's ``HandPointsEvaluator`` at its leaves; the other seats are the kit's
planner (``agents.registry.make_agent("planner", rules)``), which acts on the kit's own
observation and mask of the same deal. Chance (the deal, every draw from the stock) is
sampled from the game's chance outcomes. The table prints each deal's returns (the envs'
``score`` reward: zero-sum, points / 100, higher is better) and the mean for seat 0.
Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

import zolik_env.openspiel as zo
from agents.registry import make_agent
from zolik_env.rummy import game as core


def play_deal(game, planner, simulations: int, seed: int) -> list[float]:
    """One deal: ISMCTS at seat 0, the planner elsewhere; returns the deal's returns."""
    rs = np.random.RandomState(seed)
    rng = np.random.default_rng(seed)
    bot = ismcts.ISMCTSBot(game, zo.HandPointsEvaluator(), 2.0, simulations, random_state=rs)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(outcomes, p=probs)))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            seat = state.current_player()
            obs = core.observe(game.rules, state.core, seat)[0]
            mask = core.legal_action_mask(game.rules, state.core)[0]
            state.apply_action(int(planner.act(obs, mask, rng)))
    return list(state.returns())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="cz", choices=["cz", "sk", "jolly"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(zo.SHORT_NAME, {"preset": args.preset, "players": args.players})
    planner = make_agent("planner", game.rules)
    seat0 = []
    for deal in range(args.deals):
        returns = play_deal(game, planner, args.simulations, args.seed + deal)
        seat0.append(returns[0])
        print(f"deal {deal}: returns " + " ".join(f"{r:+.2f}" for r in returns))
    print(f"ISMCTS (seat 0) against the planner: mean return {np.mean(seat0):+.3f} "
          f"over {args.deals} deals")


if __name__ == "__main__":
    main()
