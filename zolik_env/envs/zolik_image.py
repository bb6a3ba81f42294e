"""``render_mode="rgb_array"`` of Žolík: the table as a ``uint8 (H, W, 3)`` image.

From the top: a status line, the melds (three columns of twelve slots, jokers on a lilac
face showing the card they stand for), the stock (face down, with its size), sk's bottom
card and the discard pile (newest first, up to 24), then one row per seat. Only the
viewing seat's hand is drawn face up; other hands are card backs and a count, so the
image holds no more than that seat may know. ``seat=None`` shows every hand (a
spectator's view). The size depends only on the player count.

Imports only numpy and the core.
"""

from __future__ import annotations

import numpy as np

from zolik_env.envs import raster
from zolik_env.envs.raster import CARD_H, CARD_W, LINE
from zolik_env.rummy.actions import JOKER_CELL, MAX_MELDS, RUN, SET_JOKER_CELL
from zolik_env.rummy.cards import JOKER, NUM_SUITS, RANKS, cards_of, kind_of, rank_of, suit_of
from zolik_env.rummy.melds import position_rank
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import PHASE_DRAW, State

SCALE = 2  # image pixels per base pixel
MELD_COLUMNS, MELD_PITCH, ROW_PITCH = 3, 124, CARD_H + 3
WIDTH = 8 + MELD_COLUMNS * MELD_PITCH
HAND_PER_LINE, HAND_LINES, HAND_PITCH = 31, 2, 12
SEAT_HEIGHT = LINE + HAND_LINES * (CARD_H + 2) + 3
DISCARDS_SHOWN = 24


def _meld_cards(state: State, b: int, slot: int) -> list[tuple[int, bool]]:
    """``(kind, is_joker)`` of a meld in table order; a joker as the card it stands for."""
    key, cells = int(state.meld_key[b, slot]), state.cells[b, slot]
    if state.meld_kind[b, slot] == RUN:
        return [(kind_of(key, position_rank(int(c) + 1)), bool(cells[c] == JOKER_CELL))
                for c in np.flatnonzero(cells)]
    out = [(kind_of(s, key), False) for s in range(NUM_SUITS) if cells[s]]
    if cells[SET_JOKER_CELL]:
        missing = next(s for s in range(NUM_SUITS) if not cells[s])
        out.append((kind_of(missing, key), True))
    return out


def _card(image: np.ndarray, y: int, x: int, kind: int, joker: bool = False) -> None:
    if kind == JOKER:
        raster.card(image, y, x, "", -1)
    else:
        raster.card(image, y, x, RANKS[rank_of(kind)], suit_of(kind), joker)


def _status(rules: RuleSet, state: State, b: int) -> str:
    turn = int(state.turn[b])
    head = f"{rules.name} turn {turn} round {turn // rules.num_players + 1}  "
    if not state.done[b]:
        doing = "draw" if state.phase[b] == PHASE_DRAW else "play"
        return head + f"seat {int(state.current[b])} to {doing}"
    winner = int(state.winner[b])
    ended = f"seat {winner} out" if winner >= 0 else "no winner"
    return head + ended + "  scores " + " ".join(str(int(s)) for s in state.scores[b])


def _seat_row(image: np.ndarray, y: int, state: State, b: int, p: int,
              face_up: bool, you: bool) -> None:
    hand = state.hands[b, p]
    acting = not state.done[b] and p == int(state.current[b])
    label = f"seat {p}{' (you)' if you else ''}  {'opened' if state.opened[b, p] else 'not opened'}"
    raster.text(image, y, 4, f"{label}  {int(hand.sum())} cards",
                raster.YELLOW if acting else raster.WHITE)
    y += LINE
    if face_up:
        for i, kind in enumerate(cards_of(hand)[:HAND_PER_LINE * HAND_LINES]):
            line, col = divmod(i, HAND_PER_LINE)
            _card(image, y + line * (CARD_H + 2), 4 + col * HAND_PITCH, kind)
        return
    for i in range(min(int(hand.sum()), (WIDTH - 8 - CARD_W) // 6 + 1)):
        raster.card_back(image, y, 4 + 6 * i)


def table_image(rules: RuleSet, state: State, seat: int | None, b: int = 0) -> np.ndarray:
    """``uint8 (H, W, 3)`` image of deal ``b`` as ``seat`` sees it (``None``: every hand)."""
    rows = MAX_MELDS // MELD_COLUMNS
    height = 3 + LINE + rows * ROW_PITCH + LINE + CARD_H + 4 + rules.num_players * SEAT_HEIGHT
    image = raster.canvas(height, WIDTH)
    raster.text(image, 3, 4, _status(rules, state, b))
    top = 3 + LINE
    for slot in range(int(state.num_melds[b])):
        column, row = divmod(slot, rows)
        x, y = 4 + column * MELD_PITCH, top + row * ROW_PITCH
        for i, (kind, joker) in enumerate(_meld_cards(state, b, slot)):
            _card(image, y, x + 8 * i, kind, joker)
    y = top + rows * ROW_PITCH
    discards = state.discard[b, : state.discard_len[b]][::-1][:DISCARDS_SHOWN]
    raster.text(image, y, 4, f"stock {int(state.stock_len[b])}")
    raster.text(image, y, 64, f"discard {int(state.discard_len[b])}")
    y += LINE
    if state.stock_len[b] > 0:
        raster.card_back(image, y, 4)
    if state.bottom[b] >= 0:
        _card(image, y, 4 + CARD_W + 6, int(state.bottom[b]))
    for i, kind in enumerate(discards):
        _card(image, y, 64 + 8 * i, int(kind))
    y += CARD_H + 4
    for p in range(rules.num_players):
        _seat_row(image, y, state, b, p, seat is None or p == seat, p == seat)
        y += SEAT_HEIGHT
    return raster.scale(image, SCALE)
