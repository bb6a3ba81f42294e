"""The web table's request budget and damaged saves, as a corpus of bad requests.

Every case sends one bad request and checks the answer: the status it names, a JSON
``{"error": reason}`` with a one-line reason that names the bad value (never the body
echoed back), and the game as it was before (its view byte for byte). Damaged saves are
reported for their own game by name and never block another game or a room's join.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from play.budget import MAX_JSON_BYTES, host_allowed, parse_json
from play.house import House
from play.server import create_app

BOT = "random"  # the fastest bot: these tests are about the server, not the play


@dataclasses.dataclass(frozen=True)
class Bad:
    name: str
    method: str
    path: str  # {game}, {room}, {dice} are filled in
    body: bytes | None = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    status: tuple[int, ...] = (400,)
    named: str = ""  # a text the reason must contain
    token: bool = True  # send the seat's token


def js(value: Any) -> bytes:
    return json.dumps(value).encode()


JSON_POSTS = ["/api/games", "/api/games/{game}/move", "/api/dice", "/api/dice/{dice}/move",
              "/api/games/{game}/next", "/api/rooms/{room}/join"]
BODIES: list[tuple[str, bytes, tuple[int, ...], str]] = [
    ("deep list", b"[" * 5000 + b"]" * 5000, (400,), "nested"),
    ("deep object", b'{"a":' * 20 + b"1" + b"}" * 20, (400,), "nested"),
    ("deep past the parser", b"[" * 16_000, (400,), "nested"),
    ("5000-digit integer", b'{"action": ' + b"9" * 5000 + b"}", (400,), "digits"),
    ("negative huge integer", b'{"seed": -' + b"7" * 400 + b"}", (400,), "digits"),
    ("NaN", b'{"action": NaN}', (400,), "NaN"),
    ("Infinity", b'{"seed": Infinity}', (400,), "Infinity"),
    ("1e999", b'{"seed": 1e999}', (400,), "1e999"),
    ("not UTF-8", b'{"action": "\xff\xfe"}', (400,), "UTF-8"),
    ("malformed", b"{not json", (400,), "malformed JSON"),
    ("truncated", b'{"action": 1', (400,), "malformed JSON"),
    ("a list", b"[1, 2]", (400,), "JSON object"),
    ("a string", b'"move"', (400,), "JSON object"),
    ("null", b"null", (400,), "JSON object"),
    ("over the size", b'{"a": "' + b"x" * (MAX_JSON_BYTES + 10) + b'"}', (413,), "bytes"),
]
CASES: list[Bad] = []
for _path in JSON_POSTS:
    for _name, _body, _status, _named in BODIES:
        CASES.append(Bad(f"{_path} {_name}", "POST", _path, _body, status=_status, named=_named))
    for _type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                  "", "application/jsonx", "text/json"):
        CASES.append(Bad(f"{_path} as {_type or 'no type'}", "POST", _path, b'{"action": 1}',
                         {"Content-Type": _type}, (415,), "application/json"))
    CASES.append(Bad(f"{_path} 100 MB declared", "POST", _path, b"{}",
                     {"Content-Length": str(100_000_000)}, (413,), "100000000"))
for _path in ("/api/games/{game}", "/api/settings", "/api/games", "/api/replays", "/"):
    for _host in ("evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "x:1:2"):
        CASES.append(Bad(f"{_path} Host {_host}", "GET" if "{" in _path or _path in (
            "/", "/api/settings") else "POST", _path, b"{}",
            {"Host": _host, "Content-Type": "application/json"}, (421,), _host))

MOVE = "/api/games/{game}/move"
for _action, _named in ((1.5, "1.5"), ([1], "[1]"), ({"a": 1}, "{'a': 1}"), (None, "None"),
                        (True, "True"), (-1, "-1"), (10**20, str(10**20)), ("", "''"),
                        ("discard 99Z", "99Z"), ("x" * 5000, "xxxx"), ("draw stock", "draw"),
                        (" discard", "discard")):
    CASES.append(Bad(f"move {str(_action)[:20]!r}", "POST", MOVE, js({"action": _action}),
                     named=_named))
CASES.append(Bad("move without action", "POST", MOVE, js({"move": 1}), named="action"))
for _settings, _named in (({"preset": "hu"}, "hu"), ({"preset": 5}, "5"),
                          ({"players": 9}, "9"), ({"players": "2"}, "2"),
                          ({"players": 2.5}, "2.5"), ({"players": 10**25}, "1000"),
                          ({"humans": 0}, "0"), ({"humans": "two"}, "two"),
                          ({"opponents": "random"}, "random"),
                          ({"opponents": ["os:system"]}, "os:system"),
                          ({"opponents": ["ppo:/etc/passwd"]}, "/etc/passwd"),
                          ({"opponents": [5]}, "5"), ({"opponents": ["random"] * 50}, "random"),
                          ({"match": "yes"}, "yes"), ({"seed": -1}, "-1"),
                          ({"seed": "abc"}, "abc"), ({"seed": 2**70}, str(2**70)),
                          ({"seed": 1.5}, "1.5"), ({"seed": True}, "True"),
                          ({"wizard": 1}, "wizard"), ({"humans": 2, "seed": 5}, "seed"),
                          ({"options": {"wizard": 1}}, "wizard"),
                          ({"options": {"hand_size": 3}}, "hand_size"),
                          ({"options": {"opening_points": "42"}}, "42"),
                          ({"options": {"opening_points": True}}, "True"),
                          ({"options": {"opening_points": 999}}, "999"),
                          ({"options": {"match_deals": 0}}, "0"),
                          ({"options": [1]}, "[1]"),
                          ({"options": {"opening_needs_clean_run": 1}}, "1")):
    CASES.append(Bad(f"new game {_settings}", "POST", "/api/games",
                     js({"opponents": [BOT], **_settings}), named=_named))
for _settings, _named in (({"joker": "wild"}, "wild"), ({"joker": 5}, "5"),
                          ({"joker": None}, "None"), ({"seed": -5}, "-5"),
                          ({"seed": "x"}, "x"), ({"rolls": 3}, "rolls")):
    CASES.append(Bad(f"new dice {_settings}", "POST", "/api/dice", js(_settings),
                     named=_named))
for _action, _named in ((99, "99"), ("reroll 9", "reroll 9"), (1.5, "1.5"), (None, "None"),
                        ([0], "[0]"), (-3, "-3")):
    CASES.append(Bad(f"dice move {_action!r}", "POST", "/api/dice/{dice}/move",
                     js({"action": _action}), named=_named))
for _id, _named in (("nothex", "nothex"), ("0123456789abcdef0", "0123456789abcdef0"),
                   ("../../etc/passwd", "etc/passwd"), ("%2e%2e", ".."),
                   ("ffffffffffffffff", "ffffffffffffffff"),
                   ("FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF"), ("x" * 300, "xxxxxxxx")):
    CASES.append(Bad(f"game id {_id[:20]}", "GET", f"/api/games/{_id}", status=(404,),
                     named=_named))
    CASES.append(Bad(f"dice id {_id[:20]}", "GET", f"/api/dice/{_id}", status=(404,),
                     named=_named))
for _path in ("/api/nothing", "/api/games/{game}/wizard", "/api/games/{game}/move"):
    CASES.append(Bad(f"GET-less {_path}", "DELETE" if "move" not in _path else "GET", _path,
                     status=(404, 405), named=_path.split("/")[-1]))
for _path in ("/api/games/{game}", "/api/games/{game}/hint", "/api/dice/{dice}"):
    CASES.append(Bad(f"{_path} without token", "GET", _path, status=(404,), named="no game",
                     token=False))
for _code, _named in (("AAAAAA", "AAAAAA"), ("aaaaaa", "aaaaaa"), ("A" * 50, "AAAAAA"),
                      ("ABC", "ABC"), ("0O1I00", "0O1I00"), ("..%2F..", "../..")):
    CASES.append(Bad(f"room {_code}", "POST", f"/api/rooms/{_code}/join", b"{}",
                     status=(404,), named=_named))
for _agent in ("os:system", "ppo:/tmp/x.zip", "", "pretrained:nope", "wizard"):
    CASES.append(Bad(f"hint agent {_agent!r}", "GET", f"/api/games/{{game}}/hint?agent={_agent}",
                     named=repr(_agent)))
CASES.append(Bad("replay before the end", "GET", "/api/games/{game}/replay", status=(403,),
                 named="over"))

REPLAY_HEAD = js({"kind": "game", "version": 1, "rules": "cz", "rule_options": {},
                  "num_players": 2})
for _name, _lines, _named in (
        ("a move that is a number", [{"kind": "deal", "deal": 0, "seed": 1, "deal_index": 0},
                                     {"kind": "move", "deal": 0, "turn": 0, "seat": 0,
                                      "move": 7}], "7"),
        ("a deal without a seed", [{"kind": "deal", "deal": 0, "deal_index": 0}], "seed"),
        ("a seed that is text", [{"kind": "deal", "deal": 0, "seed": "abc",
                                  "deal_index": 0}], "abc"),
        ("a negative seed", [{"kind": "deal", "deal": 0, "seed": -4, "deal_index": 0}], "-4"),
        ("an unknown kind", [{"kind": "wizard"}], "wizard"),
        ("a list line", [[1, 2]], "line 2"),
        ("a stock of one card", [{"kind": "deal", "deal": 0, "stock": "AS", "key": 1,
                                  "deal_index": 0}], "stock"),
):
    CASES.append(Bad(f"replay: {_name}", "POST", "/api/replays",
                     REPLAY_HEAD + b"\n" + b"\n".join(js(line) for line in _lines),
                     {"Content-Type": "application/x-ndjson"}, named=_named))
for _name, _body, _named in (
        ("not UTF-8", b"\xff\xfe\n", "UTF-8"), ("empty", b"", "empty"),
        ("a deep line", b"[" * 50_000, "line 1"),
        ("a huge integer", b'{"kind": ' + b"9" * 5000 + b"}", "line 1"),
        ("another version", js({"kind": "game", "version": 9}), "version"),
        ("over the size", b"x" * 1_000_001, "bytes")):
    CASES.append(Bad(f"replay: {_name}", "POST", "/api/replays", _body,
                     {"Content-Type": "application/x-ndjson"},
                     (413,) if _name == "over the size" else (400,), _named))
CASES.append(Bad("replay as text/plain", "POST", "/api/replays", REPLAY_HEAD,
                 {"Content-Type": "text/plain"}, (415,), "x-ndjson"))


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("games")
    client = TestClient(create_app(folder, {"opponents": [BOT]}), base_url="http://localhost")
    game = client.post("/api/games", json={"opponents": [BOT], "seed": 2_000_000_123}).json()
    room = client.post("/api/games", json={"players": 3, "humans": 2,
                                           "opponents": [BOT]}).json()
    dice = client.post("/api/dice", json={"seed": 2_000_000_321}).json()
    return {"client": client, "game": game["game"], "room": room["room"],
            "dice": dice["game"], "tokens": {"game": game["token"], "dice": dice["token"]}}


def fill(path: str, table: dict[str, Any]) -> str:
    return path.format(game=table["game"], room=table["room"], dice=table["dice"])


def views(table: dict[str, Any]) -> tuple[bytes, bytes]:
    client, tokens = table["client"], table["tokens"]
    return (client.get(f"/api/games/{table['game']}",
                       headers={"X-Seat-Token": tokens["game"]}).content,
            client.get(f"/api/dice/{table['dice']}",
                       headers={"X-Seat-Token": tokens["dice"]}).content)


@pytest.mark.parametrize("bad", CASES, ids=[c.name for c in CASES])
def test_bad_request__a_4xx_naming_it_and_nothing_changed(bad: Bad, table: dict[str, Any]):
    before = views(table)
    token = table["tokens"]["dice" if "/dice/" in bad.path else "game"]
    headers = {"Content-Type": "application/json", **({"X-Seat-Token": token} if bad.token
                                                       else {}), **bad.headers}
    response = table["client"].request(bad.method, fill(bad.path, table), content=bad.body,
                                       headers=headers)
    assert response.status_code in bad.status, (response.status_code, response.text[:300])
    reason = response.json()["error"]
    assert "\n" not in reason and len(reason) <= 300, reason
    assert bad.named in reason, reason
    assert views(table) == before


def test_host_allowed__names_and_addresses():
    local = {"localhost", "127.0.0.1", "::1", "[::1]", "table.lan"}
    for host in ("localhost:8765", "127.0.0.1", "[::1]:8765", "192.168.1.5:8765",
                 "table.lan", "LOCALHOST"):
        assert host_allowed(host, local), host
    for host in ("", "evil.example", "localhost.evil.example:80", "table.lan.evil", ":80"):
        assert not host_allowed(host, local), host


def test_parse_json__within_the_budget():
    assert parse_json(b'{"action": 12, "x": [1, {"y": 2.5}]}') == {
        "action": 12, "x": [1, {"y": 2.5}]}
    assert parse_json(b"[" * 8 + b"]" * 8) == [[[[[[[[]]]]]]]]


def test_allow_host__a_name_given_at_start_is_served(tmp_path: Path):
    app = create_app(tmp_path, {"opponents": [BOT]}, hosts=["table.lan"])
    client = TestClient(app, base_url="http://table.lan:8765")
    assert client.get("/api/settings").status_code == 200
    assert TestClient(app, base_url="http://other.lan").get("/api/settings").status_code == 421


DAMAGE: dict[str, Any] = {
    "a list": [1, 2], "bots: 5": {"bots": 5}, "records: null": {"records": None},
    "tokens: []": {"tokens": []}, "seed: abc": {"seed": "abc"}, "seed: -1": {"seed": -1},
    "deal_key: short": {"deal_key": "ab"}, "an illegal move": "illegal",
    "a stock changed": "stock", "code: lower": {"code": "abcdef"},
    "joined: text": {"joined": "0"}, "an unknown field": {"wizard": 1},
}


def _damage(path: Path, how: Any) -> None:
    if isinstance(how, list):
        path.write_text(json.dumps(how))
        return
    saved = json.loads(path.read_text())
    if how == "illegal":
        move = next(r for r in saved["records"] if r["kind"] == "move")
        move["move"] = "meld AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    elif how == "stock":  # swap the top card with the first card unlike it (two decks:
        deal = saved["records"][1]  # the bottom card may be the top card's twin)
        cards = deal["stock"].split()
        other = next(i for i, card in enumerate(cards) if card != cards[0])
        cards[0], cards[other] = cards[other], cards[0]
        deal["stock"] = " ".join(cards)
    else:
        saved.update(how)
    path.write_text(json.dumps(saved))


RAW_DAMAGE = {"not UTF-8": b"\xff\xfe{}", "truncated": b'{"game": "', "empty": b"",
              "deep": b"[" * 100_000, "a directory": None}


@pytest.mark.parametrize("how", [*DAMAGE, *RAW_DAMAGE])
def test_damaged_save__named_for_its_game_and_no_other_game_blocked(how: str, tmp_path: Path):
    folder = tmp_path / "games"
    with TestClient(create_app(folder, {"opponents": [BOT]}),
                    base_url="http://localhost") as client:
        damaged = client.post("/api/games", json={"players": 3, "humans": 2}).json()
        other = client.post("/api/games", json={"players": 3, "humans": 2}).json()
        client.post(f"/api/games/{damaged['game']}/move",
                    json={"action": damaged["moves"][0]["id"]},
                    headers={"X-Seat-Token": damaged["token"]})
    path = folder / f"{damaged['game']}.json"
    if how in RAW_DAMAGE:
        path.unlink()
        if RAW_DAMAGE[how] is None:
            path.mkdir()
        else:
            path.write_bytes(RAW_DAMAGE[how])
    else:
        _damage(path, DAMAGE[how])
    (folder / "zz.json").mkdir()  # a stray directory with a save's name
    (folder / "yy.json").write_bytes(b"\xff")  # a stray non-UTF-8 file
    with TestClient(create_app(folder, {"opponents": [BOT]}),
                    base_url="http://localhost") as client:
        answer = client.get(f"/api/games/{damaged['game']}",
                            headers={"X-Seat-Token": damaged["token"]})
        assert answer.status_code == 409, answer.text
        assert f"{damaged['game']}.json" in answer.json()["error"]
        joined = client.post(f"/api/rooms/{other['room']}/join", json={})
        assert joined.status_code == 200, joined.text
        assert client.post(f"/api/rooms/{damaged['room']}/join", json={}).status_code == 409
        fresh = client.post("/api/games", json={"seed": 2_000_000_001})
        assert fresh.status_code == 200


def test_idle_games_leave_memory_and_come_back(tmp_path: Path):
    client = TestClient(create_app(tmp_path, {"opponents": [BOT]}), base_url="http://localhost")
    game = client.post("/api/games", json={"seed": 2_000_000_001}).json()
    tables: House = client.app.state.tables
    assert game["game"] in tables.games
    tables.sweep(now=tables.used[game["game"]] + 10_000)
    assert game["game"] not in tables.games and not tables.locks
    again = client.get(f"/api/games/{game['game']}", headers={"X-Seat-Token": game["token"]})
    assert again.status_code == 200 and again.json()["hand"] == game["hand"]


def test_a_failed_dice_save_leaves_the_move_unplayed(tmp_path: Path, monkeypatch):
    from play import saves

    client = TestClient(create_app(tmp_path, {}), base_url="http://localhost")
    dice = client.post("/api/dice", json={"seed": 2_000_000_321}).json()
    headers = {"X-Seat-Token": dice["token"]}
    before = client.get(f"/api/dice/{dice['game']}", headers=headers).content

    def full_disk(path, text):
        raise saves.SaveError(f"cannot save the game to {path}: No space left on device")

    monkeypatch.setattr("play.dice_session.write_atomic", full_disk)
    answer = client.post(f"/api/dice/{dice['game']}/move", headers=headers,
                         json={"action": dice["moves"][0]["id"]})
    assert answer.status_code == 500 and "No space left" in answer.json()["error"]
    assert client.get(f"/api/dice/{dice['game']}", headers=headers).content == before
    monkeypatch.undo()
    shutil.rmtree(tmp_path / "rooms", ignore_errors=True)
