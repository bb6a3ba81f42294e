"""Strict checks of what users pass to the envs: action ids are integers in range.

``step("0")``, ``step(0.7)`` or ``step(True)`` would otherwise play action 0 through
``int(...)``; a float array given to a VecEnv would be truncated. Each is a
``ValueError`` naming the value instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def action_id(action: Any, num_actions: int, who: str = "") -> int:
    """``action`` as an int in ``[0, num_actions)``: a Python or numpy integer (or an
    array holding exactly one); anything else is a ``ValueError`` naming it."""
    if type(action) is int and 0 <= action < num_actions:  # the common case, at once
        return action
    prefix = f"{who}: " if who else ""
    value = np.asarray(action) if not isinstance(action, bool) else None
    if (value is None or value.size != 1 or not np.issubdtype(value.dtype, np.integer)
            or value.dtype == np.bool_):
        raise ValueError(f"{prefix}expected an integer action id, got {action!r}")
    a = int(value.reshape(()))
    if not 0 <= a < num_actions:
        raise ValueError(f"{prefix}action {a} out of range [0, {num_actions})")
    return a


def action_ids(batch: Any, num_envs: int, num_actions: int) -> np.ndarray:
    """int64 (num_envs,): one integer action id per env, each in range; a batch of floats,
    of the wrong length or out of range is a ``ValueError`` naming the first bad env."""
    value = np.asarray(batch)
    if not np.issubdtype(value.dtype, np.integer) or value.dtype == np.bool_:
        first = value.reshape(-1)[:1].tolist()
        raise ValueError(f"expected integer action ids, got dtype {value.dtype} "
                         f"(first: {first[0] if first else 'none'!r})")
    if value.size != num_envs:
        raise ValueError(f"expected {num_envs} actions (one per env), got {value.size}")
    ids = value.reshape(num_envs).astype(np.int64)
    bad = np.flatnonzero((ids < 0) | (ids >= num_actions))
    if bad.size:
        raise ValueError(f"env {int(bad[0])}: action {int(ids[bad[0]])} out of range "
                         f"[0, {num_actions})")
    return ids
