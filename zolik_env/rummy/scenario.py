"""Scripted positions: a batch-of-one State built from card strings, and moves by their text.

    state = make_state(rules, hands=["7H 8H 9H JK", "2S 3S"], stock="KD QS",
                       discard="4C", melds=[("5H 6H 7H", 1)], phase="play")
    state = play(rules, state, "meld 7H 8H 9H", "discard JK")
    table_str(state)                 # ["5H 6H 7H"]

Rule tests build their positions with it; search and belief sampling use it to put a
chosen (or sampled) deal into the core. It reads and writes nothing but the State.

Conventions (the core's, see ``state.py``): ``stock`` is written bottom first, so its
**last** card is the top, the next one drawn; ``discard`` is written oldest first, so its
last card is the top discard. Melds are written in table order (``5H JK 7H``: the joker is
the 6H) and go into slots 0, 1, ... in the order given.

Imports only numpy and its siblings in ``zolik_env.rummy``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from zolik_env.rummy import actions as A
from zolik_env.rummy import game
from zolik_env.rummy.actions import JOKER_CELL, NATURAL, RUN, SET, SET_JOKER_CELL
from zolik_env.rummy.cards import (
    JOKER,
    NUM_KINDS,
    cards_of,
    counts_of,
    deck_counts,
    format_cards,
    kind_of,
    parse_cards,
    rank_of,
    suit_of,
)
from zolik_env.rummy.dealing import _empty_state
from zolik_env.rummy.melds import (
    NUM_POSITIONS,
    check_meld,
    position_rank,
    position_value,
    set_card_value,
)
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.piles import count_pile
from zolik_env.rummy.scoring import score_deal
from zolik_env.rummy.shuffle import deal_keys
from zolik_env.rummy.state import PHASE_DRAW, PHASE_PLAY, State
from zolik_env.rummy.table import count_table
from zolik_env.rummy.turns import begin_turns

PHASES = {"draw": PHASE_DRAW, "play": PHASE_PLAY}


def _run_cells(cards: list[int]) -> tuple[int, np.ndarray]:
    """(suit, cells) of a run in table order; an ace is low where it can be (as check_meld)."""
    suit = suit_of(next(c for c in cards if c != JOKER))
    for start in range(1, NUM_POSITIONS - len(cards) + 2):
        positions = range(start, start + len(cards))
        if all(c == JOKER or rank_of(c) == position_rank(p) for c, p in zip(cards, positions,
                                                                           strict=True)):
            cells = np.zeros(A.MELD_CELLS, np.int8)
            for c, p in zip(cards, positions, strict=True):
                cells[p - 1] = JOKER_CELL if c == JOKER else NATURAL
            return suit, cells
    raise ValueError(f"{format_cards(cards)} fits no run positions")


def _meld_cells(text: str, rules: RuleSet) -> tuple[int, int, np.ndarray, list[int]]:
    """(kind, key, cells, table-order cards) of a meld written in table order."""
    cards = parse_cards(text)
    check = check_meld(cards, rules)
    if not check.valid:
        raise ValueError(f"scenario meld {text!r} is invalid: {check.reason}")
    if check.kind == "run":
        suit, cells = _run_cells(cards)
        return RUN, suit, cells, cards
    cells = np.zeros(A.MELD_CELLS, np.int8)
    for c in cards:
        cells[SET_JOKER_CELL if c == JOKER else suit_of(c)] = JOKER_CELL if c == JOKER else NATURAL
    return SET, rank_of(next(c for c in cards if c != JOKER)), cells, cards


def make_state(rules: RuleSet, hands: Sequence[str], stock: str | None = None,
               discard: str = "", melds: Sequence[tuple[str, int | Sequence[int]]] = (),
               current: int = 0, turn: int | None = None, phase: str = "draw",
               opened: Sequence[bool] | None = None, bottom: str | None = None,
               starter: int = 0, rebuilds: int = 0, seed: int = 0) -> State:
    """A batch-of-one State at the start of seat ``current``'s turn.

    Args:
        hands: one card string per seat.
        stock: bottom first, **top last**. None: the rest of the pack (so cards are
            conserved), in kind order, the highest kind (a joker if any is left) on top.
        discard: oldest first, top last.
        melds: (table-order cards, owner) per slot; owner is a seat or one seat per card.
        turn: turns played before this one; default the first turn of round 4 for
            ``current`` (past cz/sk's no-meld rounds and sk's bottom-card round).
        phase: ``"draw"`` (the turn begins with a draw) or ``"play"`` (already drawn).
        opened: per seat; default nobody has opened.
        bottom: sk's face-up bottom card, or None.
    """
    p = rules.num_players
    if len(hands) != p:
        raise ValueError(f"expected {p} hands, got {len(hands)}")
    used = sum((counts_of(parse_cards(h)) for h in hands), np.zeros(NUM_KINDS, np.int16))
    used += counts_of(parse_cards(discard))
    used += counts_of(parse_cards(bottom or ""))
    used += sum((counts_of(parse_cards(m)) for m, _ in melds), np.zeros(NUM_KINDS, np.int16))
    rest = deck_counts(rules.num_jokers) - used
    if stock is None:
        stock_cards = cards_of(rest)
    else:
        stock_cards = parse_cards(stock)
        rest -= counts_of(stock_cards)
    if (rest < 0).any():
        raise ValueError(f"the scenario uses more cards than the pack holds: "
                         f"{format_cards(cards_of(np.maximum(-rest, 0)))}")
    size = int(deck_counts(rules.num_jokers).sum())
    d = _empty_state(rules, 1, size)
    for seat, hand in enumerate(hands):
        d["hands"][0, seat] = counts_of(parse_cards(hand))
    d["stock"][0, :] = -1
    d["stock"][0, : len(stock_cards)] = stock_cards
    d["stock_len"][0] = len(stock_cards)
    pile = parse_cards(discard)
    d["discard"][0, : len(pile)] = pile
    d["discard_len"][0] = len(pile)
    d["bottom"][0] = parse_cards(bottom)[0] if bottom else -1
    for slot, (text, owner) in enumerate(melds):
        kind, key, cells, cards = _meld_cells(text, rules)
        owners = [owner] * len(cards) if isinstance(owner, int) else list(owner)
        d["meld_kind"][0, slot], d["meld_key"][0, slot] = kind, key
        d["cells"][0, slot] = cells
        occupied = np.flatnonzero(cells) if kind == RUN else [
            SET_JOKER_CELL if c == JOKER else suit_of(c) for c in cards]
        d["cell_owner"][0, slot, occupied] = owners
    d["num_melds"][0] = len(melds)
    d["current"][0] = current
    d["starter"][0] = starter
    d["turn"][0] = 3 * p + (current - starter) % p if turn is None else turn
    d["phase"][0] = PHASES[phase]
    d["opened"][0] = list(opened) if opened is not None else [False] * p
    d["rebuilds"][0] = rebuilds
    d["rng_key"] = deal_keys([seed])
    d["table_counts"] = count_table(d["meld_kind"], d["meld_key"], d["cells"])
    d["discard_counts"] = count_pile(d["discard"], d["discard_len"])
    state = State(**d)
    begin_turns(rules, state, np.arange(1))
    return state


def action(text: str) -> int:
    """The action id of a move written as ``actions.action_to_string`` writes it."""
    return A.string_to_action(text)


def step(rules: RuleSet, state: State, move: str) -> tuple[State, np.ndarray, bool, bool]:
    """One move by its text: (state, rewards int (P,), terminated, truncated) of game 0."""
    state, out = game.step(rules, state, [action(move)])
    return state, out.rewards[0], bool(out.terminated[0]), bool(out.truncated[0])


def play(rules: RuleSet, state: State, *moves: str) -> State:
    """Step the moves in order (validated: an illegal one raises ValueError)."""
    for move in moves:
        state = step(rules, state, move)[0]
    return state


def is_legal(rules: RuleSet, state: State, move: str) -> bool:
    """Whether the move is in game 0's legal-action mask."""
    return bool(game.legal_action_mask(rules, state)[0, action(move)])


def assert_legal(rules: RuleSet, state: State, *moves: str) -> None:
    """Raise ``AssertionError`` naming the first move that is not legal in game 0."""
    for move in moves:
        if not is_legal(rules, state, move):
            raise AssertionError(f"{move!r} should be legal")


def assert_illegal(rules: RuleSet, state: State, *moves: str) -> None:
    """Raise ``AssertionError`` unless each move is masked out in game 0 and ``step``
    rejects it with a ``ValueError`` naming it."""
    for move in moves:
        if is_legal(rules, state, move):
            raise AssertionError(f"{move!r} should be illegal")
        try:
            game.step(rules, state, [action(move)])
        except ValueError as error:
            if "game 0: illegal move" not in str(error):
                raise AssertionError(f"{move!r} was rejected for another reason: "
                                     f"{error}") from error
        else:
            raise AssertionError(f"step accepted the illegal move {move!r}")


def legal_moves(rules: RuleSet, state: State) -> list[str]:
    """Game 0's legal moves as text, in action order."""
    return [A.action_to_string(int(a)) for a in np.flatnonzero(game.legal_action_mask(rules,
                                                                                  state)[0])]


def hand_str(state: State, seat: int, b: int = 0) -> str:
    """The hand of ``seat`` in game ``b``, sorted by suit then rank, jokers last."""
    return format_cards(cards_of(state.hands[b, seat]))


def meld_kinds(state: State, slot: int, b: int = 0) -> list[int]:
    """The table-order cards of meld ``slot`` (jokers as JOKER), decoded from its cells."""
    cells = state.cells[b, slot]
    key = int(state.meld_key[b, slot])
    if state.meld_kind[b, slot] == RUN:
        return [JOKER if cell == JOKER_CELL else kind_of(key, position_rank(c + 1))
                for c, cell in enumerate(cells) if cell]
    if state.meld_kind[b, slot] == SET:
        naturals = [kind_of(s, key) for s in range(4) if cells[s] == NATURAL]
        return naturals + [JOKER] * int(cells[SET_JOKER_CELL] == JOKER_CELL)
    raise ValueError(f"slot {slot} is empty")


def meld_str(state: State, slot: int, b: int = 0) -> str:
    """Meld ``slot`` of game ``b`` in table order, e.g. ``"5H JK 7H"``."""
    return format_cards(meld_kinds(state, slot, b))


def table_str(state: State, b: int = 0) -> list[str]:
    """Every meld on game ``b``'s table, slot by slot (see ``meld_str``)."""
    return [meld_str(state, m, b) for m in range(int(state.num_melds[b]))]


def discard_str(state: State, b: int = 0) -> str:
    """Game ``b``'s discard pile, oldest first, top last."""
    return format_cards(state.discard[b, : state.discard_len[b]])


def stock_str(state: State, b: int = 0) -> str:
    """Bottom first, top last."""
    return format_cards(state.stock[b, : state.stock_len[b]])


def cell_points(rules: RuleSet, state: State, b: int = 0) -> list[int]:
    """Meld value each seat put on the table (jolly scoring), card by card through the
    readable rules API: a run cell scores its position's value, a set card its rank's."""
    laid = [0] * rules.num_players
    for slot in range(int(state.num_melds[b])):
        for c in np.flatnonzero(state.cells[b, slot]):
            owner = int(state.cell_owner[b, slot, c])
            if state.meld_kind[b, slot] == RUN:
                laid[owner] += position_value(int(c) + 1, rules)
            else:
                laid[owner] += set_card_value(int(state.meld_key[b, slot]), rules)
    return laid


def expected_scores(rules: RuleSet, state: State, b: int = 0) -> list[int]:
    """``rules.score_deal`` of game ``b``'s final position."""
    winner = int(state.winner[b])
    return score_deal(
        rules, hands=[hand_str(state, p, b) for p in range(rules.num_players)],
        opened=[bool(o) for o in state.opened[b]], winner=winner if winner >= 0 else None,
        closed_from_hand=bool(state.closed_from_hand[b]),
        laid=cell_points(rules, state, b) if rules.scoring == "laid" else None)

