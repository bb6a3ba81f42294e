"""Plain-text view of a Pět kostek game (logs, golden files, ``render("ansi")``).

This module imports only numpy and stdlib.
"""

from __future__ import annotations

from zolik_env.dice.rules import BOX_NAMES, DiceRules
from zolik_env.dice.scorecard import totals
from zolik_env.dice.state import State


def render_text(rules: DiceRules, state: State, row: int = 0) -> str:
    """Plain-text view of one game: dice, rolls left and every seat's scorecard."""
    dice = " ".join(str(int(d)) for d in state.dice[row])
    seat = int(state.current[row])
    lines = [f"dice {dice}  rerolls left {int(state.rolls_left[row])}  seat {seat}"]
    scores = totals(rules, state)[row]
    for p in range(rules.num_players):
        boxes = state.boxes[row, p].reshape(rules.num_columns, -1)
        cells = [
            f"{BOX_NAMES[k]}=" + "/".join("-" if v < 0 else str(int(v)) for v in boxes[:, k])
            for k in range(boxes.shape[1])
        ]
        lines.append(f"seat {p} total {int(scores[p])}: " + " ".join(cells))
    return "\n".join(lines)
