"""Array type aliases for annotations.

The cores pass batched numpy arrays everywhere; these names say the dtype an array has
where it matters to a reader or to the type checker. ``Array`` is any ndarray (the
same as a bare ``np.ndarray``). Shapes are not typed: docstrings give them, e.g.
"bool (B, A)".
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

Array: TypeAlias = npt.NDArray[Any]
BoolArray: TypeAlias = npt.NDArray[np.bool_]
Int8Array: TypeAlias = npt.NDArray[np.int8]
Int16Array: TypeAlias = npt.NDArray[np.int16]
Int32Array: TypeAlias = npt.NDArray[np.int32]
Int64Array: TypeAlias = npt.NDArray[np.int64]
UInt64Array: TypeAlias = npt.NDArray[np.uint64]
IntArray: TypeAlias = npt.NDArray[np.integer[Any]]
Float32Array: TypeAlias = npt.NDArray[np.float32]
Float64Array: TypeAlias = npt.NDArray[np.float64]

__all__ = [
    "Array",
    "BoolArray",
    "Float32Array",
    "Float64Array",
    "Int8Array",
    "Int16Array",
    "Int32Array",
    "Int64Array",
    "IntArray",
    "UInt64Array",
]
