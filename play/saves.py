"""The web table's save files as validated models, written atomically, read back strictly.

``TableSave`` is a Žolík game's sidecar (``GAME.json``: seats, tokens, room code, the
bots' generator, the deal key, the replay's records); ``DiceSave`` a Pět kostek game
(``dice_GAME.json``). ``read_save`` turns any damage (a file that is not UTF-8 or not
JSON, a directory under the name, a field of the wrong type, a file far too large) into a
``DamagedSave`` naming the file and what is wrong; the server reports it for that game
only, so a damaged file never blocks another game or a room's join. Rooms are found
through an index (``rooms/CODE``, a file holding the game id), never by scanning saves.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_SAVE_BYTES = 50_000_000
GAME_ID = re.compile(r"^[0-9a-f]{16}$")
ROOM_CODE = re.compile(r"^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$")

Model = TypeVar("Model", bound="SaveModel")
Token = Annotated[str, Field(min_length=16, max_length=100)]


class DamagedSave(ValueError):
    """A save that cannot be read back; the message names the file and the damage."""


class SaveError(OSError):
    """The game could not be written; the game in memory is as before the request."""


class SaveModel(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class TableSave(SaveModel):
    game: Annotated[str, Field(pattern=GAME_ID.pattern)]
    tokens: dict[Annotated[str, Field(pattern=r"^[0-9]$")], Token] = Field(min_length=1)
    joined: list[Annotated[int, Field(ge=0, le=9)]] = Field(min_length=1)
    code: Annotated[str, Field(pattern=ROOM_CODE.pattern)] | None
    bots: list[str | None] = Field(min_length=2, max_length=6)
    seed: Annotated[int, Field(ge=0, lt=2**128)]
    rules: str
    rule_options: dict[str, Any]
    rng: dict[str, Any]
    match: bool = False
    deal_key: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    records: list[dict[str, Any]] = Field(min_length=2)


class DiceSave(SaveModel):
    game: Annotated[str, Field(pattern=GAME_ID.pattern)]
    token: Token
    joker: str
    seed: Annotated[int, Field(ge=0, lt=2**63)]
    secret: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    moves: list[Annotated[int, Field(ge=0, lt=10_000)]] = Field(max_length=200)


def read_save(path: pathlib.Path, model: type[Model]) -> Model:
    """The save in ``path``; ``KeyError`` when there is none, ``DamagedSave`` naming the
    file for anything else that keeps it from being read."""
    if not path.exists():
        raise KeyError(path.name)
    try:
        if not path.is_file():
            raise DamagedSave(f"{path.name} is not a file")
        if path.stat().st_size > MAX_SAVE_BYTES:
            raise DamagedSave(f"{path.name} is over {MAX_SAVE_BYTES} bytes")
        data = json.loads(path.read_bytes().decode("utf-8"))
        return model.model_validate(data)
    except DamagedSave:
        raise
    except UnicodeDecodeError as err:
        raise DamagedSave(f"{path.name} is not UTF-8 text (byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise DamagedSave(f"{path.name} is not JSON ({err.msg}, line {err.lineno})") from None
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(map(str, first["loc"])) or "the file"
        raise DamagedSave(f"{path.name}: {where}: {first['msg']} ({err.error_count()} "
                          f"problem(s))") from None
    except (OSError, RecursionError, ValueError) as err:
        raise DamagedSave(f"{path.name} cannot be read: {type(err).__name__}: "
                          f"{str(err)[:200]}") from None


def write_atomic(path: pathlib.Path, text: str) -> None:
    """``text`` into ``path`` through a temporary file and a rename: a kill or a full disk
    leaves the old file whole. ``SaveError`` naming the path when it cannot be written."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise SaveError(f"cannot save the game to {path}: {err.strerror or err}") from None


def room_index(folder: pathlib.Path, code: str) -> pathlib.Path:
    return folder / "rooms" / code


def find_room(folder: pathlib.Path, code: str) -> str | None:
    """The game id of room ``code`` from the index (None: no such room)."""
    if not ROOM_CODE.match(code):
        return None
    try:
        game_id = room_index(folder, code).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return game_id if GAME_ID.match(game_id) else None
