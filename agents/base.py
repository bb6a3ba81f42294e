"""The one small interface every Žolík player implements.

An agent acts on what its seat may know: the flat observation of
``zolik_env.rummy.observe`` and the legal-action mask. It draws any randomness from
the ``np.random.Generator`` it is given (never the global ``np.random``), so the same
seed gives the same play.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """``act`` for one game; ``act_batch`` for B games at once (rows of obs and mask)."""

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        """One legal action id for one observation int16 (OBS,) and mask bool (A,)."""
        ...

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        """int64 (B,) legal action ids for observations (B, OBS) and masks (B, A)."""
        ...


@runtime_checkable
class SearchPolicy(Protocol):
    """A Policy that searches: it acts on the seat's information state rather than the
    observation alone.

    ``act_info`` gets a ``zolik_env.rummy.belief.InfoState`` of its seat (the observation,
    the legal moves, the information-set key and worlds sampled from the seat's belief;
    never the deal itself). The evaluation harness calls it in place of ``act_batch``;
    places that have only observations (the training pool) call ``act_batch``, which
    refuses with a message.
    """

    name: str

    def act_info(self, info: Any, rng: np.random.Generator) -> int:
        """One legal action id for the seat of ``info``, which is to act."""
        ...


def is_search_policy(policy: object) -> bool:
    """True when ``policy`` acts on information states (``SearchPolicy``)."""
    return callable(getattr(policy, "act_info", None))


@runtime_checkable
class OraclePolicy(Protocol):
    """A privileged player: it acts on the true deal, every hand and the stock included.

    It is a yardstick (what hidden information is worth at this table), not a player: the
    evaluation harness calls ``act_state`` with a batch-of-one ``zolik_env.rummy.state.State``
    whose seat ``state.current[0]`` is to act, and marks the agent as privileged in every
    report. Everything that gives a player its seat's view only (the training pool, the
    environments' opponents, the web table, a search's rollouts) calls ``act``,
    ``act_batch`` or ``act_info``, and an oracle refuses those with a message.
    """

    name: str

    def act_state(self, rules: Any, state: Any, rng: np.random.Generator) -> int:
        """One legal action id for the seat to act in deal 0 of ``state``."""
        ...


def is_oracle_policy(policy: object) -> bool:
    """True when ``policy`` acts on the true deal (``OraclePolicy``): privileged."""
    return callable(getattr(policy, "act_state", None))


class BatchedFromSingle:
    """Mixin: ``act_batch`` by calling ``act`` row by row (for agents that think per game)."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        raise NotImplementedError

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        return np.array([self.act(o, m, rng) for o, m in zip(obs, mask, strict=True)],
                        dtype=np.int64)


class SingleFromBatched:
    """Mixin: ``act`` through ``act_batch`` on a batch of one."""

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(self.act_batch(obs[None], mask[None], rng)[0])
