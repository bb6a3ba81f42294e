"""Golden games of Pět kostek: one JSONL record per step, replayed by ``test_golden``.

Regenerate for review after an intended rules or RNG change::

    python -m tests.dice.golden
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from zolik_env.dice import DiceRules, action_to_string, init, legal_action_mask, step, totals
from zolik_env.dice.render import render_text

GOLDEN_DIR = pathlib.Path(__file__).parent / "golden"
VARIANTS = {
    "classic_none": (DiceRules(), 101),
    "classic_forced": (DiceRules(joker="forced"), 102),
    "classic_free_fixed_order": (DiceRules(joker="free", fixed_order=True), 103),
    "triple_forced_2p": (DiceRules(num_players=2, table="triple", joker="forced"), 104),
}


def play(rules: DiceRules, seed: int) -> list[dict]:
    """A scripted game: at step t take legal action number ``(7 t + 3) mod #legal``."""
    state = init(rules, [seed])
    records = []
    for t in range(rules.num_rolls * rules.num_boxes * rules.num_players):
        legal = np.flatnonzero(legal_action_mask(rules, state)[0])
        action = int(legal[(7 * t + 3) % legal.size])
        text = render_text(rules, state)
        state, out = step(rules, state, [action])
        records.append({
            "state_text": text,
            "legal_actions": legal.tolist(),
            "action": action_to_string(rules, action),
            "rewards": out.rewards[0].tolist(),
        })  # fmt: skip
        if state.done[0]:
            break
    records.append({"final_totals": totals(rules, state)[0].tolist()})
    return records


def main() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, (rules, seed) in VARIANTS.items():
        lines = [json.dumps(r, ensure_ascii=False) for r in play(rules, seed)]
        (GOLDEN_DIR / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        print(f"wrote {name}.jsonl ({len(lines)} records)")


if __name__ == "__main__":
    main()
