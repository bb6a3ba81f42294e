"""``zolik eval --resume`` reads back only the chunks of its own evaluation, whole: each
chunk file carries its chunk id and a checksum of its arrays, and a swapped, cut,
altered or unreadable chunk is refused in one line naming the file (nothing is silently
mixed into games.csv)."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from eval.config import load_config
from eval.tournament import run

ARGS = {"agents": ("random", "greedy"), "deals": 8, "chunk_deals": 4, "progress": False,
        "plots": False, "workers": 1}


def _chunks(out: Path) -> list[Path]:
    return sorted((out / "chunks").glob("*.npz"))


def _swap(first: Path, second: Path) -> None:
    shutil.copy(first, second)


def _cut(first: Path, second: Path) -> None:
    second.write_bytes(second.read_bytes()[:200])


def _alter(first: Path, second: Path) -> None:
    with np.load(second) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["scores"] = arrays["scores"] + 1
    np.savez(second.with_suffix(""), **arrays)  # np.savez adds the .npz


def _not_a_zip(first: Path, second: Path) -> None:
    second.write_text("not a chunk")


def _no_id(first: Path, second: Path) -> None:
    with np.load(second) as z:
        arrays = {k: z[k] for k in z.files if k != "chunk_id"}
    np.savez(second.with_suffix(""), **arrays)


def _a_folder(first: Path, second: Path) -> None:
    second.unlink()
    second.mkdir()


def _empty(first: Path, second: Path) -> None:
    second.write_bytes(b"")


def _zip_of_nothing(first: Path, second: Path) -> None:
    with zipfile.ZipFile(second, "w"):
        pass


@pytest.mark.parametrize(("damage", "said"), [
    (_swap, "holds chunk"), (_cut, "damaged"), (_alter, "checksum"), (_not_a_zip, "damaged"),
    (_no_id, "damaged"), (_a_folder, "damaged"), (_empty, "damaged"),
    (_zip_of_nothing, "damaged"),
])
def test_resume__a_chunk_not_of_its_place_is_refused_naming_it(tmp_path, damage, said):
    out = tmp_path / "ev"
    first = run(load_config(None, **ARGS, out=str(out)))
    chunks = _chunks(out)
    assert len(chunks) == 2
    damage(chunks[0], chunks[1])
    with pytest.raises(ValueError, match=said) as caught:
        run(load_config(None, **ARGS, out=str(out), resume=True))
    assert chunks[1].name in str(caught.value)
    chunks[1].unlink() if chunks[1].is_file() else chunks[1].rmdir()
    again = run(load_config(None, **ARGS, out=str(out), resume=True))  # played again
    pair = next(iter(first.matches))
    np.testing.assert_array_equal(first.matches[pair].scores, again.matches[pair].scores)


def test_resume__a_damaged_marker_is_one_line(tmp_path):
    out = tmp_path / "ev"
    run(load_config(None, **ARGS, out=str(out)))
    (out / "chunks" / "evaluation.json").write_text("{cut")
    with pytest.raises(ValueError, match=r"evaluation\.json is damaged"):
        run(load_config(None, **ARGS, out=str(out), resume=True))
