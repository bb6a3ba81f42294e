"""Rule presets and options of Žolík (docs/rules-spec.md §0.3, §2-4).

Every rule and every decision of docs/rules-spec.md is a named field of :class:`RuleSet`, with
its per-preset default. ``preset(name, **options)`` builds one and validates it:
unknown option names and out-of-range values raise ``ValueError`` naming them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PRESETS = ("cz", "sk", "jolly")


def _opt(default: Any, doc: str, allowed: tuple[Any, ...] | tuple[int, int] | None = None,
         kind: str = "choice") -> Any:
    """A RuleSet field with its documentation and its allowed values (a choice or a range)."""
    return field(default=default, metadata={"doc": doc, "allowed": allowed, "kind": kind})


@dataclass(frozen=True, slots=True)
class RuleSet:
    """All rule knobs of one Žolík variant. Build with :func:`preset`."""

    name: str = _opt("cz", "preset the defaults come from", PRESETS)
    num_players: int = _opt(2, "players at the table", (2, 4), "range")
    # --- cards and deal
    num_jokers: int = _opt(4, "jokers in the pack (cz/sk 4, jolly 6)", (0, 8), "range")
    hand_size: int = _opt(14, "cards dealt to each player", (3, 20), "range")
    starter_discards_first: bool = _opt(
        True, "the starting player gets one card more and opens the discard pile by "
        "discarding instead of drawing (cz/sk)", (True, False))
    starting_seat_rotates: bool = _opt(True, "the next deal is started by the next seat",
                                       (True, False))
    bottom_card: bool = _opt(False, "sk cutting: the cutter takes jokers among the 3 bottom "
                             "cards and the first non-joker stays face up as the bottom card",
                             (True, False))
    cut_cards: int = _opt(3, "bottom cards the sk cutter inspects", (1, 10), "range")
    bottom_card_from_round: int = _opt(4, "first round in which the sk bottom card may be "
                                       "taken", (1, 20), "range")
    bottom_card_must_lay: bool = _opt(False, "the sk bottom card, once taken, must be laid "
                                      "on the table in the same turn (as cz's top discard)",
                                      (True, False))
    # --- drawing
    no_meld_rounds: int = _opt(3, "first rounds that are draw + discard only (cz/sk 3; "
                               "0 = meld from round 1)", (0, 10), "range")
    discard_pickup: str = _opt("top_must_use", "top_must_use: the top discard, only if laid "
                               "the same turn (cz/sk); deep: any discard and all after it, "
                               "no obligation (jolly); none: no pick-up, a reading of the "
                               "sk text, which names only the stock and the bottom card",
                               ("top_must_use", "deep", "none"))
    pickup_needs_opened: bool = _opt(False, "only an opened player may take discards (jolly)",
                                     (True, False))
    max_hand_cards: int = _opt(0, "a player may never hold more cards (jolly 20; 0 = no "
                               "limit)", (0, 40), "range")
    # --- melds and jokers
    jokers_fewer_than_naturals: bool = _opt(True, "a meld holds fewer jokers than natural "
                                            "cards (cz/sk)", (True, False))
    jokers_adjacent_in_run: bool = _opt(False, "two jokers may stand side by side in a run",
                                        (True, False))
    max_jokers_in_set: int = _opt(1, "jokers a set may hold (the core keeps sets to at most "
                                  "one, which every preset implies)", (0, 1), "range")
    ace_low_run_value: int = _opt(1, "meld value of the ace in A 2 3 ...", (0, 30), "range")
    ace_high_value: int = _opt(10, "meld value of the ace in ... Q K A", (0, 30), "range")
    ace_set_value: int = _opt(10, "meld value of an ace in a set (jolly 25)", (0, 30), "range")
    # --- opening
    opening_points: int = _opt(42, "meld value the first melding must reach (cz 42 or 51, "
                               "sk 51, jolly 40)", (0, 200), "range")
    opening_needs_clean_run: bool = _opt(True, "the opening includes a joker-free run "
                                         "(cz/sk)", (True, False))
    # --- stock
    stock_rebuild: str = _opt("turn", "turn: the discards except the newest are turned over, "
                              "unshuffled (cz/sk); shuffle: shuffled (jolly)",
                              ("turn", "shuffle"))
    rebuild_keeps: int = _opt(1, "newest discards left on the pile at a rebuild (jolly 3)",
                              (1, 3), "range")
    max_stock_rebuilds: int = _opt(3, "the deal is cut off (truncated, no winner) when the "
                                   "stock would be rebuilt for this time", (1, 100), "range")
    max_turns: int = _opt(1000, "the deal is cut off (truncated, no winner) after this many "
                          "turns; guarantees an end where deep pick-ups avoid the stock "
                          "(0 = no limit)", (0, 30000), "range")
    # --- scoring
    scoring: str = _opt("penalty", "penalty: cz, lower is better; points: sk, negative with "
                        "a winner's bonus; laid: jolly, laid minus held plus bonus",
                        ("penalty", "points", "laid"))
    hand_ace_value: int = _opt(10, "a held ace's penalty (cz 10, sk 20, jolly 25)", (0, 100),
                               "range")
    hand_joker_value: int = _opt(50, "a held joker's penalty", (0, 200), "range")
    never_opened_penalty: int = _opt(100, "flat penalty of a player who never opened "
                                     "(0 = count the hand, as in jolly)", (0, 500), "range")
    winner_bonus: int = _opt(0, "points to the player who goes out (sk 10, jolly 30)",
                             (0, 200), "range")
    closed_from_hand_multiplier: int = _opt(2, "multiplier when the winner closed from hand",
                                            (1, 4), "range")
    # --- match
    match_deals: int = _opt(1, "deals per match when no target applies (cz)", (1, 1000),
                            "range")
    match_target: int = _opt(0, "sk: the match ends when a total falls to -target; jolly: "
                             "when a total reaches target (100, 250, 500); 0: fixed deals",
                             (0, 100000), "range")

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.integer):  # preset(num_players=np.int64(3))
                value = int(value)
                object.__setattr__(self, f.name, value)
            _check_option(f.name, value, f.metadata)
        if 0 < self.max_hand_cards <= self.hand_size:
            raise ValueError(f"max_hand_cards={self.max_hand_cards} leaves no room to draw: a "
                             f"player holds hand_size={self.hand_size} cards and draws one "
                             f"(use {self.hand_size + 1} or more, or 0 for no limit)")
        hand_needed = self.num_players * self.hand_size + 1 + self.cut_cards
        if hand_needed > 104 + self.num_jokers:
            raise ValueError(f"hand_size={self.hand_size} with num_players={self.num_players} "
                             f"needs more cards than the pack holds")

    @property
    def lower_is_better(self) -> bool:
        """Whether lower deal scores are better (cz penalties)."""
        return self.scoring == "penalty"


def _check_option(name: str, value: Any, meta: Any) -> None:
    allowed, kind = meta["allowed"], meta["kind"]
    if kind == "range":
        lo, hi = allowed
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"rule option {name}={value!r} out of range: expected an integer "
                             f"in [{lo}, {hi}]")
    elif value not in allowed or type(value) is not type(allowed[0]):
        raise ValueError(f"rule option {name}={value!r} not allowed: choose from "
                         f"{', '.join(repr(a) for a in allowed)}")


_PRESET_OVERRIDES: dict[str, dict[str, Any]] = {
    "cz": {},
    "sk": {"opening_points": 51, "bottom_card": True, "scoring": "points",
           "hand_ace_value": 20, "winner_bonus": 10, "match_target": 1000},
    "jolly": {"num_jokers": 6, "hand_size": 13, "starter_discards_first": False,
              "no_meld_rounds": 0, "discard_pickup": "deep", "pickup_needs_opened": True,
              "max_hand_cards": 20, "jokers_fewer_than_naturals": False,
              "ace_set_value": 25, "opening_points": 40, "opening_needs_clean_run": False,
              "stock_rebuild": "shuffle", "rebuild_keeps": 3, "scoring": "laid",
              "hand_ace_value": 25, "never_opened_penalty": 0, "winner_bonus": 30,
              "match_target": 250},
}


def preset(name: str = "cz", **options: Any) -> RuleSet:
    """The rules of preset ``name`` (``cz``, ``sk`` or ``jolly``) with ``options`` overridden.

    Raises:
        ValueError: naming an unknown preset, an unknown option or a bad value.
    """
    if name not in _PRESET_OVERRIDES:
        raise ValueError(f"unknown preset {name!r}: choose from {', '.join(PRESETS)}")
    known = {f.name for f in dataclasses.fields(RuleSet)} - {"name"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown rule option(s) {', '.join(map(repr, unknown))} for preset "
                         f"{name!r}; known options: {', '.join(sorted(known))}")
    return RuleSet(name=name, **{**_PRESET_OVERRIDES[name], **options})


def rule_options_of(rules: RuleSet) -> dict[str, Any]:
    """The options where ``rules`` differs from its preset (``num_players`` excluded), so
    that ``preset(rules.name, num_players=rules.num_players, **rule_options_of(rules))``
    rebuilds ``rules``."""
    base = preset(rules.name)
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)
            if f.name not in ("name", "num_players")
            and getattr(rules, f.name) != getattr(base, f.name)}


def option_table() -> list[tuple[str, str, str, str, str, str]]:
    """Rows (option, cz, sk, jolly, allowed, meaning) documenting every rule option."""
    defaults = {p: preset(p) for p in PRESETS}
    rows = []
    for f in dataclasses.fields(RuleSet):
        if f.name == "name":
            continue
        allowed, kind = f.metadata["allowed"], f.metadata["kind"]
        allowed_text = f"{allowed[0]}..{allowed[1]}" if kind == "range" else " / ".join(
            map(str, allowed))
        rows.append((f.name, *(str(getattr(defaults[p], f.name)) for p in PRESETS),
                     allowed_text, f.metadata["doc"]))
    return rows
