"""What the page says about the rules: the turn's state as a person reads it (the opening
meter, the card a taken discard obliges, why a move is not offered now), and, once a
deal is over, every hand with its scoring card by card.

Everything here is public to every seat: the melds laid this turn lie on the table, the
taken discard was seen, the round and the flags follow from the moves. The hands of
``deal_end`` are sent only once the deal is over (``seat_view`` adds them then); a
counterfactual test in ``tests/play`` changes the hidden cards of live deals and compares
the page's answers byte for byte.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zolik_env.rummy.actions import JOKER_CELL, RUN
from zolik_env.rummy.cards import card_to_str, cards_of
from zolik_env.rummy.melds import hand_card_value
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.state import PHASE_DRAW, State
from zolik_env.rummy.table import melds_value, new_melds
from zolik_env.rummy.values import cell_value_table


def opening_meter(rules: RuleSet, state: State) -> dict[str, Any] | None:
    """The seat to act's provisional opening: the meld value it laid this turn, the
    points needed, whether a joker-free run is among its new melds (and whether the
    rules ask for one). None once that seat opened in an earlier turn."""
    b = 0
    if state.opened_before[b] or state.done[b]:
        return None
    first, stop = int(state.snap_num_melds[b]), int(state.num_melds[b])
    laid = new_melds(first, stop)
    points = int(melds_value(cell_value_table(rules), state.meld_kind[b], state.meld_key[b],
                             state.cells[b], laid)) if stop > first else 0
    clean = any(state.meld_kind[b, m] == RUN and not (state.cells[b, m] == JOKER_CELL).any()
                for m in range(first, stop))
    met = points >= rules.opening_points and (clean or not rules.opening_needs_clean_run)
    return {"points": points, "needed": rules.opening_points, "clean_run": clean,
            "needs_clean_run": rules.opening_needs_clean_run, "melds": stop - first,
            "met": bool(met)}


def turn_rules(rules: RuleSet, state: State) -> dict[str, Any]:
    """The turn of the seat to act as the rules see it, for the page's explanations:
    the round, whether melding is allowed yet (and from which round), the opening
    meter, the taken discard that must be laid, the jokers freed from the table, the
    cards taken this turn (never discarded again the same turn), UNDO used."""
    b = 0
    players = rules.num_players
    turn = int(state.turn[b])
    meld_from_turn = rules.no_meld_rounds * players
    starter_first = rules.starter_discards_first and turn == 0
    must = int(state.must_use[b])
    return {
        "round": turn // players + 1,
        "may_meld": turn >= meld_from_turn and not starter_first,
        "meld_from_round": rules.no_meld_rounds + 1,
        "starter_first_turn": bool(starter_first),
        "opening": opening_meter(rules, state),
        "must_use": card_to_str(must) if must >= 0 else None,
        "freed_jokers": int(state.freed_jokers[b]),
        "taken": [card_to_str(k) for k in cards_of(state.taken_unlaid[b])],
        "undone": bool(state.undone[b]),
        "laid": bool(state.laid[b]),
        "took_pile": bool(state.took_pile[b]),
        "pickup_needs_opened": rules.pickup_needs_opened,
        "max_hand_cards": rules.max_hand_cards,
        "phase": "draw" if state.phase[b] == PHASE_DRAW else "play",
    }


def deal_end(rules: RuleSet, state: State) -> list[dict[str, Any]]:
    """Each seat's hand at the end of a finished deal with each card's penalty, the flat
    penalty of a seat that never opened, the winner's bonus (sk, jolly), the multiplier
    of a close from hand, and the deal score the core wrote (jolly's also counts the
    points laid). Only for a deal that is over."""
    b = 0
    if not state.done[b]:
        raise ValueError("the hands are shown once the deal is over")
    winner = int(state.winner[b])
    double = (rules.closed_from_hand_multiplier
              if state.closed_from_hand[b] and winner >= 0 else 1)
    out = []
    for seat in range(rules.num_players):
        kinds = cards_of(state.hands[b, seat])
        opened = bool(state.opened[b, seat])
        flat = rules.never_opened_penalty if rules.never_opened_penalty and not opened else 0
        out.append({
            "seat": seat, "cards": [card_to_str(k) for k in kinds],
            "values": [hand_card_value(int(k), rules) for k in kinds],
            "opened": opened, "never_opened_penalty": flat,
            "multiplier": int(double), "winner": seat == winner,
            "bonus": rules.winner_bonus if seat == winner else 0,
            "score": int(np.asarray(state.scores[b, seat])),
        })
    return out
