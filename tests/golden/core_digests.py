"""Digests of the core's behaviour over many states, to hold a rewrite of the core to the
behaviour of the version that wrote them.

For every preset, 2-4 players and batches of 1, 7 and 64 deals, deals are played by a
scripted player (half of the time a random lay move when there is one, else a random legal
move; finished deals are replaced by fresh ones) and a SHA-256 is kept of everything the
core returns on the way: every State field, the legal-action mask, every seat's
observation (plain and privileged), the critic view, the rewards and end flags of each
step. Two cores agree on a configuration exactly when their digests do.

    python -m tests.golden.core_digests --states 1000000 --write tests/golden/core_digests.json
    python -m tests.golden.core_digests --states 20000 --check tests/golden/core_digests.json

``tests/rummy/test_core_digests.py`` checks the short digests in every test run; the long
ones (a million states) are checked with ``--check`` by hand. The player uses only numpy
and the core's public functions, so any version of the core can run it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator

import numpy as np

from zolik_env.rummy import game, options
from zolik_env.rummy.actions import MELD_BASE, UNDO
from zolik_env.rummy.observe import critic_view, observe
from zolik_env.rummy.state import FIELD_NAMES

PRESETS = ("cz", "sk", "jolly")
PLAYERS = (2, 3, 4)
BATCHES = (1, 7, 64)


def configurations() -> Iterator[tuple[str, int, int]]:
    for preset in PRESETS:
        for players in PLAYERS:
            for batch in BATCHES:
                yield preset, players, batch


def scripted_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row: a random lay move (meld or lay-off) half of the time when
    there is one, else a random legal move (0 for rows with none)."""
    out = np.zeros(len(mask), np.int64)
    lay = np.zeros(mask.shape[1], bool)
    lay[MELD_BASE:UNDO] = True
    for b, row in enumerate(mask):
        legal = np.flatnonzero(row)
        lays = np.flatnonzero(row & lay)
        coin, pick = rng.random(), rng.random()
        choices = lays if lays.size and coin < 0.5 else legal
        if choices.size:
            out[b] = choices[int(pick * choices.size)]
    return out


def digest(preset: str, players: int, batch: int, states: int) -> str:
    """SHA-256 of ``states`` decisions (counted over the deals of the batch) of play."""
    rules = options.preset(preset, num_players=players)
    seed = 1000 * players + batch
    state = game.init(rules, np.arange(batch) + seed, deal_index=np.arange(batch))
    rng = np.random.default_rng(seed)
    sha = hashlib.sha256()
    next_seed, seen = 10**6 + seed * 1000, 0
    while seen < states:
        for name in sorted(FIELD_NAMES):
            sha.update(np.ascontiguousarray(getattr(state, name)).tobytes())
        mask = game.legal_action_mask(rules, state)
        sha.update(mask.tobytes())
        for seat in range(players):
            sha.update(observe(rules, state, seat).tobytes())
            sha.update(observe(rules, state, seat, privileged=True).tobytes())
        sha.update(critic_view(rules, state, state.current).tobytes())
        state, out = game.step(rules, state, scripted_actions(mask, rng))
        for array in (out.rewards, out.terminated, out.truncated):
            sha.update(array.tobytes())
        seen += batch
        finished = np.flatnonzero(out.terminated | out.truncated)
        if finished.size:
            seeds = np.arange(next_seed, next_seed + finished.size)
            state = game.reset_where(rules, state, finished, seeds, deal_index=seeds)
            next_seed += finished.size
    return sha.hexdigest()


def key(preset: str, players: int, batch: int, states: int) -> str:
    return f"{preset}/{players}p/batch{batch}/{states}"


def all_digests(states: int) -> dict[str, str]:
    """Digests of every configuration, ``states`` decisions in all (split evenly)."""
    each = max(states // (len(PRESETS) * len(PLAYERS) * len(BATCHES)), 1)
    out = {}
    for preset, players, batch in configurations():
        start = time.perf_counter()
        out[key(preset, players, batch, each)] = digest(preset, players, batch, each)
        print(f"{preset} {players}p batch {batch}: {each} states in "
              f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=20_000, help="decisions in all")
    parser.add_argument("--write", help="add the digests to this JSON file")
    parser.add_argument("--check", help="compare with the digests in this JSON file")
    args = parser.parse_args(argv)
    got = all_digests(args.states)
    if args.write:
        try:
            with open(args.write) as f:
                known = json.load(f)
        except FileNotFoundError:
            known = {}
        with open(args.write, "w") as f:
            json.dump({**known, **got}, f, indent=1, sort_keys=True)
            f.write("\n")
    if args.check:
        with open(args.check) as f:
            known = json.load(f)
        wrong = [k for k, v in got.items() if known.get(k) != v]
        for k in wrong:
            print(f"differs: {k}", file=sys.stderr)
        print(f"{len(got) - len(wrong)} of {len(got)} configurations agree")
        return 1 if wrong else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
