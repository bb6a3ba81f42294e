"""The table's page in a real browser (Debian's chromium through Playwright): a whole deal
played by direct play only (select cards and Meld, click a meld to lay off, click the
stock or the pile), the opening meter and the reason a discard is blocked, a bot's move
animated, the deal's end with every hand, a phone's viewport, the replay list; and the
explanations the page gets (``play.explain``) held to the readable rules API."""

import json
import pathlib
import re
import shlex

import numpy as np
import pytest

from play.explain import deal_end, opening_meter
from play.server import create_app
from play.session import TableGame
from tests.play.test_web_table import _browser, local_client, start
from zolik_env.rummy import actions, game, rules, scenario, scoring
from zolik_env.rummy.render import meld_text

AT_MOVE_1 = "document.getElementById('where').textContent.startsWith('move 1 ')"
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def _token(page):
    return json.loads(page.evaluate("localStorage.getItem('zolik-game')"))


def _view(client, page):
    g = _token(page)
    return client.get(f"/api/games/{g['id']}", headers={"X-Seat-Token": g["token"]}).json()


def _select(page, cards):
    """Click the cards of ``cards`` in the hand (copies counted), none selected before."""
    page.evaluate("selected = []; render()")
    for card in cards:
        page.locator(f"#hand .card[data-card='{card}']:not(.selected)").first.click()


def _direct(page, move):
    """Play ``move`` ({id, text}) by direct play only: no move button."""
    w = move["text"].split(" ")
    if w[0] == "draw":
        page.click("#stock")
    elif w[0] == "take":
        page.click(f"#discard .card[data-depth='{w[2]}']")
    elif w[0] == "meld":
        _select(page, w[1:])
        page.click("#meld")
    elif w[0] == "layoff":
        _select(page, [w[1]])
        page.click(f".meld[data-slot='{w[3]}']")
    elif w[0] == "discard":
        _select(page, [w[1]])
        page.click("#discard")
    elif w[0] == "undo":
        page.click("#undo")
    if page.locator("#choice:not([hidden])").count():  # a joker's place, an ace's end
        page.click(f"#choice .option[data-id='{move['id']}']")


def _opening_text(opening):
    clean = f", clean run: {'yes' if opening['clean_run'] else 'no'}"
    return f"opening {opening['points']} / {opening['needed']} points" + clean


def test_browser__a_whole_cz_deal_by_direct_play(tmp_path):
    app = create_app(tmp_path / "games", {"opponents": ["greedy"], "seed": 2_000_000_402})
    client = local_client(app)
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/?delay=0")
        page.wait_for_selector("#hand .card")  # dealt on load, as the command said
        played, melds, meters = set(), 0, 0
        for _ in range(400):
            view = _view(client, page)
            if view["done"]:
                break
            g = _token(page)
            hint = client.get(f"/api/games/{g['id']}/hint?agent=planner",
                              headers={"X-Seat-Token": g["token"]}).json()
            settled = page.get_attribute("body", "data-moves")
            _direct(page, {"id": hint["id"], "text": hint["text"]})
            page.wait_for_function(f"document.body.dataset.moves !== '{settled}'")
            played.add(hint["text"].split(" ")[0])
            after = _view(client, page)
            opening = (after.get("now") or {}).get("opening")
            if hint["text"].startswith("meld") and opening and not after["done"]:
                assert page.inner_text("#meter") == _opening_text(opening)
                meters += 1
            melds += hint["text"].startswith("meld")
        assert "deal over" in page.inner_text("#status")
        assert {"draw", "take", "meld", "layoff", "discard"} <= played and meters >= 1
        assert page.locator("#all-moves[open]").count() == 0  # no move button was used
        assert page.locator("#end tr.end-seat").count() == 2  # every hand, scored
        scores = [int(t) for t in page.locator("#end td.score").all_inner_texts()]
        assert scores == _view(client, page)["scores"]


def _laid_this_turn(state):
    """The meld texts laid this turn, jokers written plain (for ``rules.check_opening``)."""
    first, stop = int(state.snap_num_melds[0]), int(state.num_melds[0])
    return [re.sub(r"JK\(\w+\)", "JK", meld_text(state, 0, m)) for m in range(first, stop)]


@pytest.mark.parametrize("preset_name", ["cz", "sk"])
def test_opening_meter__agrees_with_the_readable_rules(tmp_path, preset_name):
    rng, compared, short = np.random.default_rng(3), 0, 0
    for deal in range(12):
        table = TableGame.new(tmp_path, preset_name, 2, ["greedy"], seed=2_000_000_600 + deal)
        for _ in range(300):
            if table.state.done[0]:
                break
            meter = opening_meter(table.rules, table.state)
            laid = _laid_this_turn(table.state)
            if meter and laid:
                check = rules.check_opening(laid, table.rules)
                assert (meter["points"], meter["met"]) == (check.points, check.valid)
                compared, short = compared + 1, short + (not check.valid)
            moves = np.flatnonzero(game.legal_action_mask(table.rules, table.state)[0])
            melds = [int(a) for a in moves
                     if actions.action_to_string(int(a)).startswith(("meld", "layoff"))]
            table.move(melds[0] if melds and rng.random() < 0.7 else int(rng.choice(moves)))
    assert compared >= 10 and short >= 3


def test_deal_end__each_card_priced_and_the_scores_the_cores(tmp_path):
    for preset_name, seed in (("cz", 2_000_000_610), ("sk", 2_000_000_611)):
        table = TableGame.new(tmp_path, preset_name, 3, ["greedy"], seed=seed)
        with pytest.raises(ValueError, match="once the deal is over"):
            deal_end(table.rules, table.state)
        while not table.state.done[0]:
            assert "end" not in table.view()  # the hands only once the deal is over
            table.move(table.hint("greedy")["id"])
        end = table.view()["end"]
        hands = [e["cards"] for e in end]
        winner = next((e["seat"] for e in end if e["winner"]), None)
        expected = scoring.score_deal(table.rules, hands=hands, winner=winner,
                                      opened=[e["opened"] for e in end],
                                      closed_from_hand=end[0]["multiplier"] > 1)
        assert [e["score"] for e in end] == expected == table.view()["scores"]
        for e in end:
            held = e["never_opened_penalty"] or sum(e["values"])
            assert abs(e["score"]) == (e["bonus"] if e["winner"] else held) * e["multiplier"]


def test_hint_menu__only_agents_that_play_the_games_rules(tmp_path):
    app = create_app(tmp_path / "games")
    client = local_client(app)
    for preset, players, bot in (("cz", 2, "pretrained:cz_2p"), ("cz", 4, "pretrained:cz_4p"),
                                 ("sk", 2, "pretrained:sk_2p"),
                                 ("jolly", 2, "pretrained:jolly_2p")):
        game_id, headers, _ = start(client, preset=preset, players=players)
        agents = client.get(f"/api/games/{game_id}/agents", headers=headers).json()["agents"]
        assert agents[0] == "planner" and {"greedy", "random"} <= set(agents)
        assert [a for a in agents if a.startswith("pretrained:")] == [bot]
    game_id, headers, _ = start(client, options={"opening_points": 51})  # other rules
    agents = client.get(f"/api/games/{game_id}/agents", headers=headers).json()["agents"]
    assert not [a for a in agents if a.startswith("pretrained:")]
    assert client.get(f"/api/games/{game_id}/agents").status_code == 404  # no token


def test_rule_options__opening_points_and_a_cz_match_of_two_deals(tmp_path):
    client = local_client(create_app(tmp_path / "games"))
    game_id, headers, data = start(client, match=True,
                                   options={"opening_points": 51, "match_deals": 2})
    assert data["options"]["opening_points"] == 51 and data["now"]["opening"]["needed"] == 51
    table = client.app.state.games[game_id]
    table.state = table.state.replace(truncated=np.array([True]))  # as if the deal ran out
    table.deal_scores.append([0, 0])
    assert not table.match_over()  # one deal of two
    nxt = client.post(f"/api/games/{game_id}/next", json={}, headers=headers).json()
    assert nxt["deal"] == 1 and nxt["options"]["match_deals"] == 2


def _game_at_an_early_meld(client):
    """A cz game whose human seat may meld before opening: draws and discards until then."""
    for seed in range(2_000_000_700, 2_000_000_760):
        game_id, headers, view = start(client, seed=seed)
        url = f"/api/games/{game_id}"
        for _ in range(60):
            if view["done"]:
                break
            melds = [m for m in view["moves"] if m["group"] == "meld"]
            if view["phase"] == "play" and melds and not view["seats"][0]["opened"]:
                return game_id, headers, view, melds[0]
            move = next(m for m in view["moves"] if m["group"] in ("draw", "discard"))
            view = client.post(f"{url}/move", json={"action": move["id"]}, headers=headers).json()
    raise AssertionError("no early meld found")


def test_browser__the_opening_meter_and_a_blocked_discards_reason(tmp_path):
    app = create_app(tmp_path / "games")
    client = local_client(app)
    game_id, headers, _, meld = _game_at_an_early_meld(client)
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.add_init_script(f"localStorage.setItem('zolik-game', JSON.stringify("
                             f"{{id: '{game_id}', token: '{headers['X-Seat-Token']}'}}))")
        page.goto(f"http://127.0.0.1:{port}/?delay=0")
        page.wait_for_selector("#hand .card")
        _direct(page, meld)  # select the meld's cards, press Meld
        page.wait_for_selector(".meld[data-slot]")
        opening = _view(client, page)["now"]["opening"]
        assert not opening["met"] and opening["points"] > 0
        assert page.inner_text("#meter") == _opening_text(opening)
        assert f"{opening['points']} / 42 points" in page.inner_text("#why")
        assert "complete the opening or UNDO" in page.inner_text("#why")
        page.locator("#hand .card").first.click()
        assert page.is_disabled("#discard-selected")
        page.click("#discard")  # the pile says why
        assert "complete the opening or UNDO" in page.inner_text("#error")
        page.click("#undo")
        page.wait_for_function("document.querySelectorAll('.meld').length === 0")


def test_browser__a_bots_move_travels_across_the_table(tmp_path):
    app = create_app(tmp_path / "games", {"opponents": ["greedy"], "seed": 2_000_000_403})
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")  # the default pace: 450 ms a move
        page.wait_for_selector("#hand .card")
        page.click("#hand .card >> nth=0")
        page.click("#discard")
        page.wait_for_selector(".flying", state="attached")  # a card on its way
        assert page.inner_text("#banner").startswith("seat 1 (greedy):")
        page.wait_for_function("document.body.dataset.animated >= '2'")  # one by one
        page.wait_for_function("document.body.dataset.animating === undefined")
        assert page.locator(".flying").count() == 0


def test_browser__a_phone_plays_a_move_by_touch(tmp_path):
    app = create_app(tmp_path / "games", {"opponents": ["greedy"], "seed": 2_000_000_404})
    with _browser(app) as (browser, port):
        page = browser.new_context(**PHONE).new_page()
        page.goto(f"http://127.0.0.1:{port}/?delay=0")
        page.wait_for_selector("#hand .card")
        assert page.evaluate("window.innerWidth") == 390  # the viewport tag: not 980 px
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways
        card = page.locator("#hand .card").first.get_attribute("data-card")
        page.tap("#hand .card >> nth=0")
        page.tap("#discard")
        page.wait_for_function("document.querySelectorAll('#log-list li').length >= 2")
        assert page.locator("#log-list li").first.inner_text() == f"seat 0: discard {card}"
        box = page.locator("#hand .card").first.bounding_box()
        assert box["width"] >= 40 and box["x"] >= 0  # a card a finger can hit


def test_browser__the_replay_viewer_lists_the_games_and_opens_a_finished_one(tmp_path):
    app = create_app(tmp_path / "games")
    client = local_client(app)
    done_id, done_headers, view = start(client, opponents=["random"])
    while not view["done"]:
        hint = client.get(f"/api/games/{done_id}/hint", headers=done_headers).json()
        view = client.post(f"/api/games/{done_id}/move", json={"action": hint["id"]},
                           headers=done_headers).json()
    live_id, live_headers, _ = start(client)
    saved = [{"id": live_id, "token": live_headers["X-Seat-Token"], "rules": "cz",
              "players": 2, "at": "live"},
             {"id": done_id, "token": done_headers["X-Seat-Token"], "rules": "cz",
              "players": 2, "at": "done"}]
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.add_init_script(f"localStorage.setItem('zolik-games', '{json.dumps(saved)}')")
        page.goto(f"http://127.0.0.1:{port}/replay")
        assert page.locator("#saved .open-game").count() == 2
        page.click("#saved .open-game >> nth=0")  # still being played: not yet
        page.wait_for_function("document.getElementById('error').textContent.includes('still')")
        page.click("#saved .open-game >> nth=1")
        page.wait_for_function(AT_MOVE_1)
        assert page.locator("#hands .seat").count() == 2
        page.click("#last")
        assert "deal over" in page.inner_text("#status")
        other = browser.new_page()  # the deal's end at the table links here
        other.add_init_script(f"localStorage.setItem('zolik-games', '{json.dumps(saved)}')")
        other.goto(f"http://127.0.0.1:{port}/replay#game={done_id}")
        other.wait_for_function(AT_MOVE_1)


def test_browser__a_jokers_place_is_asked_and_four_cards_meld_at_once(tmp_path):
    app = create_app(tmp_path / "games")
    client = local_client(app)
    game_id, headers, _ = start(client)
    table = client.app.state.games[game_id]
    table.state = scenario.make_state(  # seat 0 opened, to meld after its draw
        table.rules, hands=["5H 6H 7H 8H JK JK 9C 10C 2D KS", "2S 3S 4C 5D 8D"],
        stock="KD QS 3H 4H", discard="4C", phase="play", opened=[True, True])
    with _browser(app) as (browser, port):
        page = browser.new_page()
        page.add_init_script(f"localStorage.setItem('zolik-game', JSON.stringify("
                             f"{{id: '{game_id}', token: '{headers['X-Seat-Token']}'}}))")
        page.goto(f"http://127.0.0.1:{port}/?delay=0")
        page.wait_for_selector("#hand .card")
        _select(page, ["JK", "9C", "10C"])
        page.click("#meld")  # the joker is the 8C or the JC: asked
        page.wait_for_selector("#choice:not([hidden]) .option")
        assert page.locator("#choice .option").count() == 2
        page.click("#choice .option:has([data-card='JK']:nth-child(3))")
        page.wait_for_selector(".meld[data-slot='0']")
        assert page.locator(".meld[data-slot='0'] .card").nth(2).get_attribute(
            "data-card") == "JK(JC)"
        _select(page, ["5H", "6H", "7H", "8H"])
        page.click("#meld")  # four cards: a meld and a lay-off, no question
        page.wait_for_function("document.querySelectorAll('.meld[data-slot=\"1\"] .card')"
                               ".length === 4")
        _select(page, ["JK"])
        page.click(".meld[data-slot='1']")  # either end: asked
        page.click("#choice .option >> text=high end")
        page.wait_for_function("document.querySelectorAll('.meld[data-slot=\"1\"] .card')"
                               ".length === 5")
        assert _view(client, page)["melds"][1]["cards"][-1] == "JK(9H)"


def _play_commands():
    """The ``zolik play`` lines of docs/play.md's bash blocks and of the command's help."""
    from cli import play

    docs = pathlib.Path(__file__).resolve().parents[2] / "docs" / "play.md"
    found = []
    for block in re.findall(r"```bash\n(.*?)```", docs.read_text(encoding="utf-8"), re.S):
        found += [line.split(" #")[0].strip() for line in block.splitlines()]
    found += [line.strip().split("   ")[0] for line in play.__doc__.splitlines()]
    return sorted({c for c in found if c.startswith("zolik play")})


@pytest.mark.parametrize("command", _play_commands())
def test_doc_command__zolik_play_deals_a_table_as_written(command, tmp_path, monkeypatch):
    """Each example starts (the server replaced by a test client) and its settings deal a
    table: the opponents play the rules, the page gets a view."""
    from cli import play

    served = {}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: served.update(app=app, **kw))
    argv = shlex.split(command)[2:]
    assert play.main([*argv, *([] if "--no-browser" in argv else ["--no-browser"])]) == 0
    client = local_client(served["app"])
    settings = client.get("/api/settings").json()
    body = {k: settings[k] for k in ("preset", "players", "opponents", "match", "humans",
                                     "options")}
    made = client.post("/api/games", json=body)
    assert made.status_code == 200, made.text
    assert made.json()["players"] == settings["players"] and made.json()["hand"]
