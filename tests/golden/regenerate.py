"""Rewrite the golden games of the batched Žolík core (docs/style.md §5).

    python -m tests.golden.regenerate

One seeded random deal per variant, one JSON record per step: ``state_text`` (the position
before the step), ``legal_actions``, ``action`` and ``rewards`` (after the step). Actions come
from a seeded numpy Generator, UNDO only when nothing else is legal, at most ``MAX_STEPS``
steps. ``tests/rummy/test_golden.py`` replays them; review the diff before committing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy import game, rules
from zolik_env.rummy.actions import JOKER_CELL, RUN
from zolik_env.rummy.cards import JOKER, cards_of, format_cards, kind_of
from zolik_env.rummy.melds import position_rank
from zolik_env.rummy.state import State

GOLDEN_DIR = Path(__file__).parent
PLAYER_COUNTS = (2, 4)  # every preset has a golden game at each of these table sizes
VARIANTS = tuple((name, players) for name in rules.PRESETS for players in PLAYER_COUNTS)
SEED = 2024
MAX_STEPS = 400
PHASE_NAMES = ("draw", "play", "over")


def path_of(name: str, players: int) -> Path:
    return GOLDEN_DIR / f"{name}_{players}p.jsonl"


def _meld_text(state: State, slot: int) -> str:
    cells, key = state.cells[0, slot], int(state.meld_key[0, slot])
    if state.meld_kind[0, slot] == RUN:
        cards = [JOKER if cell == JOKER_CELL else kind_of(key, position_rank(c + 1))
                 for c, cell in enumerate(cells) if cell]
    else:
        cards = [kind_of(s, key) for s in range(4) if cells[s]] + [JOKER] * int(cells[4] > 0)
    owners = "".join(str(int(o)) for o in state.cell_owner[0, slot] if o >= 0)
    return f"{format_cards(cards)} by {owners}"


def state_text(state: State) -> str:
    """A compact, deterministic one-line text of game 0."""
    s = state
    top = format_cards(s.discard[0, max(0, s.discard_len[0] - 3): s.discard_len[0]])
    hands = " | ".join(f"{p}{'*' if s.opened[0, p] else ''}: {format_cards(cards_of(h))}"
                       for p, h in enumerate(s.hands[0]))
    melds = " | ".join(_meld_text(s, m) for m in range(int(s.num_melds[0])))
    bottom = format_cards([s.bottom[0]]) if s.bottom[0] >= 0 else "-"
    return (f"turn {s.turn[0]} seat {s.current[0]} {PHASE_NAMES[s.phase[0]]}; stock "
            f"{s.stock_len[0]} rebuilt {s.rebuilds[0]}; discard {s.discard_len[0]} top [{top}]; "
            f"bottom {bottom}; hands {hands}; melds [{melds}]")


def play_golden(name: str, players: int) -> list[dict[str, object]]:
    r = rules.preset(name, num_players=players)
    rng = np.random.default_rng(SEED)
    state = game.init(r, [SEED])
    records: list[dict[str, object]] = []
    while not state.done[0] and len(records) < MAX_STEPS:
        legal = np.flatnonzero(game.legal_action_mask(r, state)[0])
        choices = legal[legal != A.UNDO] if (legal != A.UNDO).any() else legal
        action = int(rng.choice(choices))
        text = state_text(state)
        state, out = game.step(r, state, [action])
        records.append({"state_text": text, "legal_actions": legal.tolist(), "action": action,
                        "rewards": out.rewards[0].tolist()})
    return records


def main() -> None:
    for name, players in VARIANTS:
        records = play_golden(name, players)
        path = path_of(name, players)
        path.write_text("".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records),
                        encoding="utf-8")
        print(f"{path}: {len(records)} steps, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
