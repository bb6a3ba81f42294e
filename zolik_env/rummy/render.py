"""Text rendering of one deal in card notation: melds with joker identities, piles, hands."""

from __future__ import annotations

import numpy as np

from zolik_env.rummy.actions import JOKER_CELL, RUN, SET_JOKER_CELL
from zolik_env.rummy.cards import NUM_SUITS, card_to_str, cards_of, kind_of
from zolik_env.rummy.melds import position_rank
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import PHASE_DRAW, PHASE_PLAY, State

_PHASES = {PHASE_DRAW: "draw", PHASE_PLAY: "play"}


def meld_text(state: State, b: int, slot: int) -> str:
    """A meld in table order; a joker is written ``JK(6H)`` with the card it stands for."""
    kind, key, cells = state.meld_kind[b, slot], int(state.meld_key[b, slot]), state.cells[b, slot]
    words = []
    if kind == RUN:
        for c in np.flatnonzero(cells):
            card = kind_of(key, position_rank(int(c) + 1))
            text = card_to_str(card)
            words.append(f"JK({text})" if cells[c] == JOKER_CELL else text)
        return " ".join(words)
    suits = [s for s in range(NUM_SUITS) if cells[s]]
    words = [card_to_str(kind_of(s, key)) for s in suits]
    if cells[SET_JOKER_CELL]:
        missing = next(s for s in range(NUM_SUITS) if not cells[s])
        words.append(f"JK({card_to_str(kind_of(missing, key))})")
    return " ".join(words)


def render(rules: RuleSet, state: State, b: int = 0, seat: int | None = None) -> str:
    """Deal ``b`` as text. With ``seat``, only that seat's hand is shown (a player's view);
    with ``None``, every hand (a spectator's or a log's view)."""
    lines = [f"{rules.name} deal, turn {int(state.turn[b])} (round "
             f"{int(state.turn[b]) // rules.num_players + 1}), stock {int(state.stock_len[b])}"]
    if state.done[b]:
        end = "truncated" if state.truncated[b] else "over"
        winner = int(state.winner[b])
        lines.append(f"deal {end}: " + (f"seat {winner} went out" + (
            " (closed from hand)" if state.closed_from_hand[b] else "") if winner >= 0
            else "no winner") + f"; scores {state.scores[b].tolist()}")
    else:
        lines.append(f"seat {int(state.current[b])} to {_PHASES[int(state.phase[b])]}")
    top = state.discard[b, : state.discard_len[b]][::-1][:8]
    lines.append("discard (newest first): " + (" ".join(card_to_str(int(k)) for k in top)
                                                or "-"))
    if state.bottom[b] >= 0:
        lines.append(f"bottom card: {card_to_str(int(state.bottom[b]))}")
    for slot in range(int(state.num_melds[b])):
        lines.append(f"  meld {slot}: {meld_text(state, b, slot)}")
    for p in range(rules.num_players):
        opened = "opened" if state.opened[b, p] else "not opened"
        if seat is None or p == seat:
            cards = " ".join(card_to_str(k) for k in cards_of(state.hands[b, p]))
        else:
            cards = f"{int(state.hands[b, p].sum())} cards"
        lines.append(f"seat {p} ({opened}): {cards}")
    return "\n".join(lines)
