"""Recorded Žolík games as JSONL, replayed exactly; ``zolik replay FILE`` prints one.

One JSON object a line, in order:

    {"kind": "game", "version": 1, "rules": "cz", "rule_options": {...}, "num_players": 2,
     "agents": ["greedy", "mine"]}
    {"kind": "deal", "deal": 0, "seed": 123, "deal_index": 0}
    (or, for a deal shuffled by the web table's secret generator, no seed but the pack
    itself: {"kind": "deal", "deal": 0, "stock": "AS 7H ...", "key": 9, "deal_index": 0})
    {"kind": "move", "deal": 0, "turn": 0, "seat": 0, "move": "discard 6H"}
    ...
    {"kind": "result", "deal": 0, "scores": [0, -57], "winner": 0, "truncated": false}

Moves are in card notation (``actions.action_to_string``); a deal is rebuilt from its
seed and deal index (``game.init``), so replaying the moves reproduces it exactly and
the recorded scores are checked; a deal recorded with its ``stock`` (the shuffled pack,
dealt from its end) and ``key`` is rebuilt from those (``dealing.deal_stock``).
``agents`` (optional) names the player in each seat. ``zolik_v0`` records every episode
(``env.unwrapped.recorder``); ``zolik replay FILE`` prints one (``cli.replay``).

Imports only the core: no gymnasium or pettingzoo.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zolik_env.rummy import actions, dealing, game, options
from zolik_env.rummy.cards import card_to_str, parse_card
from zolik_env.rummy.render import render
from zolik_env.rummy.state import State

VERSION = 1


class Recorder:
    """Collects one game's records: ``start_deal``, ``move`` per action, ``end_deal``.

    A move is kept as ``(deal, turn, seat, action)`` and written out as its record the
    first time ``records`` is read after it, so that recording costs an AEC step next to
    nothing and a caller that saves after every move (the web table) writes out only the
    new moves, not the whole game again. ``truncate`` takes back the entries after the
    first ``n`` (``count``), for a change that failed."""

    def __init__(self, rules: options.RuleSet, agents: list[str] | None = None) -> None:
        self._entries: list[dict[str, Any] | tuple[int, int, int, int]] = [{
            "kind": "game", "version": VERSION, "rules": rules.name,
            "rule_options": options.rule_options_of(rules), "num_players": rules.num_players}]
        if agents is not None:
            self._entries[0]["agents"] = list(agents)  # type: ignore[index]
        self._written: list[dict[str, Any]] = []  # the records of the first entries
        self.deal = -1

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every record so far, in order (a new list; moves not written out before, now)."""
        self._written.extend(entry if isinstance(entry, dict) else _move_record(*entry)
                             for entry in self._entries[len(self._written):])
        return list(self._written)

    def count(self) -> int:
        """How many records there are (moves included, written out or not)."""
        return len(self._entries)

    def truncate(self, n: int) -> None:
        """Keep only the first ``n`` records."""
        del self._entries[n:], self._written[n:]

    def start_deal(self, seed: int | None, deal_index: int,
                   stock: Sequence[int] | None = None, key: int | None = None) -> None:
        """A deal of ``seed``, or (``seed`` None) the deal of the shuffled pack ``stock``
        and ``key`` (``dealing.deal_stock``), recorded instead of a seed."""
        self.deal += 1
        record: dict[str, Any] = {"kind": "deal", "deal": self.deal}
        if seed is None:
            if stock is None or key is None:
                raise ValueError("a deal without a seed is recorded by its stock and key")
            record.update(stock=" ".join(card_to_str(int(k)) for k in stock), key=int(key))
        else:
            record["seed"] = int(seed)
        record["deal_index"] = int(deal_index)
        self._entries.append(record)

    def move(self, state: State, action: int) -> None:
        """Record ``action`` played in deal 0 of ``state`` (the state before it)."""
        self.record_move(int(state.turn[0]), int(state.current[0]), action)

    def record_move(self, turn: int, seat: int, action: int) -> None:
        """Record ``action`` played by ``seat`` at ``turn`` of the current deal."""
        self._entries.append((self.deal, int(turn), int(seat), int(action)))

    def end_deal(self, state: State) -> None:
        self._entries.append({"kind": "result", "deal": self.deal,
                             "scores": state.scores[0].tolist(),
                             "winner": int(state.winner[0]),
                             "truncated": bool(state.truncated[0])})

    def dumps(self) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps(), encoding="utf-8")


def _move_record(deal: int, turn: int, seat: int, action: int) -> dict[str, Any]:
    return {"kind": "move", "deal": deal, "turn": turn, "seat": seat,
            "move": actions.action_to_string(action)}


def load(path: str | Path) -> list[dict[str, Any]]:
    """The records of a replay file; ``ValueError`` naming the line that is not JSON."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path} is not UTF-8 text (byte {err.start})") from None
    return loads(text)


def loads(text: str) -> list[dict[str, Any]]:
    """The records of a replay's text; ``ValueError`` naming the line that is not JSON."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"line {number} is not JSON ({err.msg})") from None
        except (ValueError, RecursionError) as err:  # a huge integer, nesting too deep
            raise ValueError(f"line {number} is not JSON ({str(err)[:80]})") from None
        if not isinstance(record, dict) or "kind" not in record:
            raise ValueError(f"line {number} is not a replay record (no 'kind')")
        records.append(record)
    if not records:
        raise ValueError("empty replay file")
    return records


def rules_of(header: dict[str, Any]) -> options.RuleSet:
    if header.get("kind") != "game" or header.get("version") != VERSION:
        raise ValueError(f"not a zolik replay (version {VERSION}) header: {header!r}")
    return options.preset(header["rules"], num_players=header["num_players"],
                          **header["rule_options"])


@dataclass(frozen=True)
class ReplayStep:
    """One replayed move: the deal's state before it, the move and its action id."""

    deal: int
    state: State
    seat: int
    move: str
    action: int


def replay(records: list[dict[str, Any]]) -> Iterator[ReplayStep]:
    """Replay every move, yielding each before it is played.

    Raises:
        ValueError: naming the line, on an illegal move, a move whose seat or turn is not
            the game's, a move after its deal's result, a result before the deal ended or
            differing from the replay (scores, winner, cut off), or a deal without its
            result line (a file cut short).
    """
    rules = rules_of(records[0])
    state: State | None = None
    deal, ended = -1, True
    for line, rec in enumerate(records[1:], start=2):
        kind = rec["kind"]
        _check_fields(rec, line)
        if kind == "deal":
            if not ended:
                raise ValueError(f"line {line}: deal {deal} has no result line")
            state = _deal_of(rules, rec, line)
            deal, ended = rec["deal"], False
        elif kind == "move":
            state = _live(state, ended, line)
            _check_mover(rec, state, line)
            action = actions.string_to_action(rec["move"])
            yield ReplayStep(rec["deal"], state, int(state.current[0]), rec["move"], action)
            try:
                state, _ = game.step(rules, state, [action])
            except ValueError as err:
                raise ValueError(f"line {line}: {err}") from err
        elif kind == "result":
            _check_result(rec, _live(state, ended, line), line)
            ended = True
        else:
            raise ValueError(f"line {line}: unknown record kind {kind!r}")
    if not ended:
        raise ValueError(f"deal {deal} has no result line: the file is cut short")


_INT_FIELDS = {"deal": ("deal", "deal_index"), "move": ("deal", "turn", "seat")}


def _check_fields(rec: dict[str, Any], line: int) -> None:
    """The types of a record's fields (a move in card notation, integer counters, a
    non-negative seed); ``ValueError`` naming the line, the field and the value."""
    fields = _INT_FIELDS.get(rec["kind"], ())
    if rec["kind"] == "deal" and "stock" not in rec:
        fields = (*fields, "seed")
    for name in fields:
        value = rec.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
            raise ValueError(f"line {line}: {name} must be a non-negative integer, got "
                             f"{str(value)[:40]!r}")
    if rec["kind"] == "move" and not isinstance(rec.get("move"), str):
        raise ValueError(f"line {line}: a move is written in card notation, got "
                         f"{str(rec.get('move'))[:40]!r}")


def _deal_of(rules: options.RuleSet, rec: dict[str, Any], line: int) -> State:
    """The fresh deal of a deal record: from its seed, or from its recorded pack."""
    if "stock" not in rec:
        return game.init(rules, [rec["seed"]], rec["deal_index"])
    stock, key = rec["stock"], rec.get("key")
    if not isinstance(stock, str) or isinstance(key, bool) or not isinstance(key, int) \
            or not 0 <= key < 2**64:
        raise ValueError(f"line {line}: a deal's stock is a string of cards and its key an "
                         f"integer in [0, 2^64), got {str(stock)[:40]!r} and {key!r}")
    try:
        cards = [parse_card(text) for text in stock.split()]
        return dealing.deal_stock(rules, np.array([cards]), np.array([key], np.uint64),
                                  rec["deal_index"])
    except ValueError as err:
        raise ValueError(f"line {line}: {err}") from None


def _live(state: State | None, ended: bool, line: int) -> State:
    """The state of the deal in play; ``ValueError`` when there is none."""
    if state is None:
        raise ValueError(f"line {line}: a move or result before any deal line")
    if ended:
        raise ValueError(f"line {line}: a record after its deal's result line")
    return state


def _check_mover(rec: dict[str, Any], state: State, line: int) -> None:
    seat, turn = int(state.current[0]), int(state.turn[0])
    if rec.get("seat") != seat or rec.get("turn") != turn:
        raise ValueError(f"line {line}: the move is recorded for seat {rec.get('seat')} at turn "
                         f"{rec.get('turn')}; the game has seat {seat} to act at turn {turn}")


def _check_result(rec: dict[str, Any], state: State, line: int) -> None:
    if not state.done[0]:
        raise ValueError(f"line {line}: result recorded before deal {rec['deal']} ended")
    got = {"scores": state.scores[0].tolist(), "winner": int(state.winner[0]),
           "truncated": bool(state.truncated[0])}
    wrong = {k: (rec.get(k), v) for k, v in got.items() if rec.get(k) != v}
    if wrong:
        detail = ", ".join(f"{k} recorded {a!r}, replayed {b!r}" for k, (a, b) in wrong.items())
        raise ValueError(f"line {line}: replay diverged in deal {rec['deal']}: {detail}")


def record_random(rules: options.RuleSet, seed: int) -> Recorder:
    """One deal of uniformly random legal moves (for demos and tests)."""
    recorder, rng = Recorder(rules), np.random.default_rng(seed)
    state = game.init(rules, [seed])
    recorder.start_deal(seed, 0)
    while not state.done[0]:
        action = int(game.sample_legal(game.legal_action_mask(rules, state), rng)[0])
        recorder.move(state, action)
        state, _ = game.step(rules, state, [action])
    recorder.end_deal(state)
    return recorder


def seat_text(rules: options.RuleSet, state: State, seat: int, move: str) -> str:
    """One replayed move as ``seat`` saw it: the table before the move from that seat (its
    own hand, the others' card counts) and the move, which every seat sees. The replay
    view of ``zolik replay FILE --seat N`` is made of these; the no-peek test compares them
    under counterfactual hidden cards (``tests/envs/test_no_peek.py``)."""
    return f"{render(rules, state, 0, seat)}\n> seat {int(state.current[0])}: {move}"


def print_game(records: list[dict[str, Any]], table: bool = False,
               seat: int | None = None) -> int:
    """Print the game turn by turn; returns the number of moves replayed. With ``seat``,
    the game as that seat saw it: the table before each move from its seat (``seat_text``,
    the only hand shown is its own); deal seeds are never printed."""
    rules = rules_of(records[0])
    if seat is not None and not 0 <= seat < rules.num_players:
        raise ValueError(f"seat {seat} is not a seat of this {rules.num_players}-player game")
    print(f"{rules.name}, {rules.num_players} players, options {records[0]['rule_options']}")
    names = records[0].get("agents") or []
    if names:
        print("seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(names)))
    if seat is not None:
        return _print_seat_view(rules, records, seat)
    key: tuple[int, int, int] | None = None
    words: list[str] = []
    last: State | None = None
    count = 0

    def flush() -> None:
        if key is not None:
            who = f" ({names[key[2]]})" if key[2] < len(names) else ""
            print(f"deal {key[0]} turn {key[1]} seat {key[2]}{who}: {', '.join(words)}")
            if table and last is not None:
                print(render(rules, last, 0), "\n", sep="")

    for step in replay(records):
        turn = (step.deal, int(step.state.turn[0]), step.seat)
        if turn != key:
            flush()
            key, words = turn, []
        words.append(step.move)
        count += 1
        if table:
            last = game.step(rules, step.state, [step.action])[0]
    flush()
    return _print_results(records, count)


def _print_seat_view(rules: options.RuleSet, records: list[dict[str, Any]], seat: int) -> int:
    count = 0
    for step in replay(records):
        print(f"deal {step.deal}\n{seat_text(rules, step.state, seat, step.move)}\n")
        count += 1
    return _print_results(records, count)


def _print_results(records: list[dict[str, Any]], count: int) -> int:
    for rec in records:
        if rec["kind"] == "result":
            winner = f"seat {rec['winner']} went out" if rec["winner"] >= 0 else "no winner"
            cut = " (cut off)" if rec["truncated"] else ""
            print(f"deal {rec['deal']}: {winner}{cut}; scores {rec['scores']}")
    print(f"replayed {count} moves exactly")
    return count
