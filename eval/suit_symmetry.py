"""How far an agent's moves follow the suits' names.

    zolik strength suits --agent pretrained:cz_2p:argmax --decisions 3000

The rules treat the four suits alike (``zolik_env.rummy.symmetry``), so a player whose
moves depend on the suits' names plays, in those positions, as it would by chance. The
agent plays fresh deals at every seat (its own moves; seeds from ``SUITS_SEED_START``);
at each decision with more than one legal move its move there is compared with its move
in the same position with the suits renamed (each of ``RENAMINGS``), mapped back. The
table gives, per kind of move (``agents.kind_swap.KINDS``, by the agent's own move), the
share of positions where the two agree. A discard of one of two cards that the position
cannot tell apart but by suit (two sevens, both loose) may differ without loss; a draw
(the stock or the discards) has no such twin.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.kind_swap import KINDS, kind_of
from agents.registry import make_agent
from zolik_env.rummy import game
from zolik_env.rummy.options import RuleSet
from zolik_env.rummy.symmetry import action_map, permute_masks, permute_observations
from zolik_env.seeds import EVAL_SEED_START

SUITS_SEED_START = EVAL_SEED_START + 5_500_000  # deals of their own
RENAMINGS = ((0, 1, 3, 2), (1, 0, 3, 2), (2, 1, 0, 3), (3, 2, 1, 0))  # S H D C -> ...


def positions(rules: RuleSet, agent: Any, decisions: int, seed_start: int = SUITS_SEED_START,
              deals_at_once: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """(obs, mask) of the first ``decisions`` decisions with a choice in ``agent``'s own
    deals (it plays every seat), in order."""
    rng = np.random.default_rng(seed_start)
    ids = np.arange(deals_at_once)
    state = game.init(rules, seed_start + ids, ids)
    started, obs_rows, mask_rows, found = deals_at_once, [], [], 0
    while found < decisions:
        obs = game.observe(rules, state, state.current)
        mask = game.legal_action_mask(rules, state)
        choice = ~state.done & (mask.sum(1) > 1)
        obs_rows.append(obs[choice])
        mask_rows.append(mask[choice])
        found += int(choice.sum())
        state = game.step(rules, state, np.asarray(agent.act_batch(obs, mask, rng), np.int64))[0]
        ended = np.flatnonzero(state.done)
        if ended.size:
            new = np.arange(started, started + ended.size)
            state = game.reset_where(rules, state, ended, seed_start + new, new)
            started += ended.size
    return np.concatenate(obs_rows)[:decisions], np.concatenate(mask_rows)[:decisions]


def agreement(rules: RuleSet, spec: str, decisions: int,
              seed_start: int = SUITS_SEED_START) -> list[dict[str, Any]]:
    """Per renaming and kind of move: positions and the share where the moves agree."""
    agent = make_agent(spec, rules)
    obs, mask = positions(rules, agent, decisions, seed_start)
    rng = np.random.default_rng(0)  # a sampling agent: its draws differ anyway
    own = np.asarray(agent.act_batch(obs, mask, rng), np.int64)
    kinds = np.array(list(KINDS))[kind_of(own)]
    rows = []
    for perm in RENAMINGS:
        renamed = np.asarray(agent.act_batch(permute_observations(rules, obs, perm),
                                             permute_masks(mask, perm), rng), np.int64)
        same = renamed == action_map(perm)[own]
        for kind in ("all", *KINDS):
            mine = np.ones_like(same) if kind == "all" else kinds == kind
            if mine.any():
                rows.append({"renaming": "".join("SHDC"[s] for s in perm), "kind": kind,
                             "positions": int(mine.sum()), "agree": float(same[mine].mean())})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown: a row per kind, a column per renaming (S H D C -> the suits named)."""
    names = list(dict.fromkeys(row["renaming"] for row in rows))
    kinds = list(dict.fromkeys(row["kind"] for row in rows))
    lines = ["| kind | positions | " + " | ".join(f"SHDC -> {n}" for n in names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    for kind in kinds:
        mine = {row["renaming"]: row for row in rows if row["kind"] == kind}
        count = next(iter(mine.values()))["positions"]
        lines.append(f"| {kind} | {count:,} | " + " | ".join(
            f"{mine[n]['agree']:.1%}" if n in mine else "-" for n in names) + " |")
    return "\n".join(lines)
