"""What the page of one seat may know, as JSON-able data: built from a state and a seat,
never from anything that seat cannot see.

``seat_view`` holds the seat's own hand, the table (melds with the card each joker stands
for, who laid it), the discard pile, the stock's size, sk's bottom card, each seat's card
count, opened flag and the discards it took and has not laid (public knowledge), whose
turn and which phase it is, and, for the seat to act, its legal moves from the core's
mask. For a live deal it adds the turn as the rules see it (``explain.turn_rules``: the
opening meter, the taken discard to lay, the round melding starts); once the deal is
over, every hand with its scoring card by card (``explain.deal_end``). Deal seeds, the
stock's order and the other hands of a live deal are never in it; the tests change every
hidden card and compare the page's responses byte for byte.
"""

from __future__ import annotations

import functools
import json
from types import SimpleNamespace
from typing import Any

import numpy as np

from play.explain import deal_end, turn_rules
from zolik_env.envs import replay
from zolik_env.rummy import actions, game
from zolik_env.rummy.cards import NUM_KINDS, card_to_str, cards_of
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.render import meld_text
from zolik_env.rummy.state import PHASE_DRAW, State

# the page's button group of each move word of the card notation
MOVE_GROUPS = {"draw": "draw", "take": "draw", "meld": "meld", "layoff": "lay",
               "discard": "discard", "undo": "undo"}


CARD_TEXT = tuple(card_to_str(k) for k in range(NUM_KINDS))


def card_names(counts: np.ndarray) -> list[str]:
    """The cards of a count vector in notation, sorted as ``cards.cards_of`` sorts them."""
    return [CARD_TEXT[k] for k in cards_of(counts)]


@functools.lru_cache(maxsize=4096)
def _meld_words(kind: int, key: int, cells: bytes, dtype: str) -> list[str]:
    """A meld's cards in table order (``render.meld_text``) by its kind, key and cells:
    melds change seldom, so the frames of a replay and the views of a game share them."""
    one = SimpleNamespace(meld_kind=np.array([[kind]]), meld_key=np.array([[key]]),
                          cells=np.frombuffer(cells, dtype)[None, None])
    return meld_text(one, 0, 0).split(" ")  # type: ignore[arg-type]


def meld_words(state: State, b: int, slot: int) -> list[str]:
    cells = state.cells[b, slot]
    return list(_meld_words(int(state.meld_kind[b, slot]), int(state.meld_key[b, slot]),
                            cells.tobytes(), cells.dtype.str))


def move_group(text: str) -> str:
    """The button group of a move by its notation (``draw stock``, ``meld 4H 5H 6H``, ...)."""
    return MOVE_GROUPS[text.split(" ", 1)[0]]


def legal_moves(rules: RuleSet, state: State) -> list[dict[str, Any]]:
    """The moves the core allows the seat to act, each ``{id, text, group}``."""
    ids = np.flatnonzero(game.legal_action_mask(rules, state)[0])
    moves = []
    for action in ids:
        text = actions.action_to_string(int(action))
        moves.append({"id": int(action), "text": text, "group": move_group(text)})
    return moves


def seat_view(rules: RuleSet, state: State, seat: int | None) -> dict[str, Any]:
    """Deal 0 of ``state`` as ``seat`` may see it (see the module docstring); ``None``:
    no seat's hand nor moves (the spectator's frame adds every hand)."""
    b = 0
    done = bool(state.done[b])
    current = int(state.current[b])
    hands, owners, known = state.hands[b], state.cell_owner[b], state.known_taken[b]
    seats = [{"seat": p, "cards": int(hands[p].sum()), "opened": bool(state.opened[b, p]),
              "known": card_names(known[p])} for p in range(rules.num_players)]
    view: dict[str, Any] = {
        "rules": rules.name, "players": rules.num_players, "seat": seat,
        "hand": [] if seat is None else card_names(hands[seat]),
        "melds": [{"slot": m, "cards": meld_words(state, b, m),
                   "by": sorted(set(owners[m][owners[m] >= 0].tolist()))}
                  for m in range(int(state.num_melds[b]))],
        "discard": [CARD_TEXT[k] for k in state.discard[b, : state.discard_len[b]].tolist()],
        "stock": int(state.stock_len[b]),
        "bottom": CARD_TEXT[int(state.bottom[b])] if state.bottom[b] >= 0 else None,
        "seats": seats, "turn": int(state.turn[b]), "current": current,
        "phase": "over" if done else ("draw" if state.phase[b] == PHASE_DRAW else "play"),
        "done": done,
        "moves": legal_moves(rules, state) if current == seat and not done else [],
        "options": {"opening_points": rules.opening_points,
                    "opening_needs_clean_run": rules.opening_needs_clean_run,
                    "no_meld_rounds": rules.no_meld_rounds, "scoring": rules.scoring,
                    "match_deals": rules.match_deals, "match_target": rules.match_target},
    }
    if done:
        view["scores"] = state.scores[b].tolist()
        view["winner"] = int(state.winner[b])
        view["end"] = deal_end(rules, state)  # every hand: only once the deal is over
    else:
        view["now"] = turn_rules(rules, state)
    return view


def spectator_view(rules: RuleSet, state: State) -> dict[str, Any]:
    """Deal 0 of ``state`` with every hand shown: the replay viewer's frame (for recorded
    games and finished ones, never for a live deal)."""
    view = seat_view(rules, state, None)
    view["hands"] = [card_names(state.hands[0, p]) for p in range(rules.num_players)]
    del view["hand"]
    return view


def replay_frames(records: list[dict[str, Any]], limit: int = 20_000) -> dict[str, Any]:
    """A recorded game as frames for the viewer: the table before every move (every hand
    shown) with the move, and each deal's end with its scores. ``ValueError`` (from the
    replay's checks, naming the line) for a file that does not replay."""
    rules = replay.rules_of(records[0])
    frames: list[dict[str, Any]] = []
    last: replay.ReplayStep | None = None  # the previous move: a deal's last one ends it
    for step in replay.replay(records):
        if last is not None and last.deal != step.deal:
            frames.append(_end_frame(rules, last))
        frames.append({**spectator_view(rules, step.state), "deal": step.deal,
                       "move": {"seat": step.seat, "text": step.move}})
        last = step
        if len(frames) > limit:
            raise ValueError(f"the replay has more than {limit} moves")
    if last is not None:
        frames.append(_end_frame(rules, last))
    return {"rules": rules.name, "players": rules.num_players,
            "agents": records[0].get("agents") or [], "frames": frames}


def replay_json(text: str, limit: int = 20_000) -> bytes:
    """A recorded game's text as the viewer's frames, encoded as the answer's JSON (run
    in a process of its own: ``play.house``). ``ValueError`` naming what is wrong for a
    text that is not a replay or does not replay."""
    try:
        frames = replay_frames(replay.loads(text), limit)
    except Exception as err:  # anything a file that is not a replay raises
        raise ValueError(f"not a replay that replays: {type(err).__name__}: {err}") from None
    return encode(frames)


def encode(value: Any) -> bytes:
    """``value`` as the API's JSON (as Starlette's ``JSONResponse`` writes it)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":")).encode("utf-8")


def _end_frame(rules: RuleSet, last: replay.ReplayStep) -> dict[str, Any]:
    """The table after a deal's ``last`` move, with the scores."""
    ended = game.step(rules, last.state, [last.action])[0]
    return {**spectator_view(rules, ended), "deal": last.deal, "move": None}
