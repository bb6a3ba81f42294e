// The table's actions: a move sent to the server (then the others' moves shown), direct
// play by clicks, taps, drags and keys, new games, rooms, hints, and the page's start.
"use strict";

// play one legal move; resolves to the new view (null when refused)
async function play(action) {
  if (busy) return null;
  say("");
  $("hint-text").textContent = "";
  const text = view.moves.find((m) => m.id === action)?.text;
  busy = true;
  try {
    const before = view;
    const next = await api("POST", `/api/games/${game.id}/move`, {action});
    hinted = null;
    await animate(before, next, text ? {seat: before.seat, move: text} : null);
    view = next;
    selected = [];
    focusAt = null;
    render();
    return next;
  } catch (err) { say(err.message); return null; }
  finally { busy = false; render(); }
}

// play `move`, then lay off `rest` (cards) on meld `slot` (null: the meld just laid)
async function playThenLay(move, rest, slot) {
  const next = await play(move.id);
  if (!next || !rest.length) return;
  const target = slot ?? next.melds.length - 1;
  const card = rest[0], options = layoffOptions(next, card, target);
  const keep = () => { selected = [next.hand.indexOf(card)].filter((i) => i >= 0); render(); };
  if (!options.length) { keep(); say(`${cardLabel(card)} does not fit meld ${target + 1}`); return; }
  if (options.length === 1) return playThenLay(options[0], rest.slice(1), target);
  keep();
  choose(`Where does ${cardLabel(card)} go on meld ${target + 1}?`, options, (m) => playThenLay(m, rest.slice(1), target));
}

function meldSelected() {
  const cards = selectedCards();
  const {exact, starts} = meldOptions(view, cards);
  if (exact.length === 1) return playThenLay(exact[0], [], null);
  if (exact.length > 1) return choose("Which meld? (where the joker stands)", exact, (m) => playThenLay(m, [], null));
  // more than three cards: three of them first (without a joker where it can), the rest
  // laid off on the new meld; a card that does not fit stays selected, saying so
  const first = starts.find((m) => !m.text.includes("JK")) || starts[0];
  if (first) return playThenLay(first, without(cards, words(first).slice(1)), null);
  say(meldReason(view, cards));
}

function clickMeld(slot) {
  if (!myTurn()) return say("it is not your turn");
  const cards = selectedCards();
  if (!cards.length) return say("select a card of your hand first, then click the meld to lay it off there");
  const options = layoffOptions(view, cards[0], slot);
  if (!options.length) {
    const opened = view.seats[view.seat].opened;
    return say(`${cardLabel(cards[0])} does not fit meld ${slot + 1}` +
               (opened ? "" : ": before your opening you may lay off only on the melds you laid this turn"));
  }
  if (options.length === 1) return playThenLay(options[0], cards.slice(1), slot);
  choose(`Where does ${cardLabel(cards[0])} go?`, options, (m) => playThenLay(m, cards.slice(1), slot));
}

function clickDiscard(depth = 1) {
  if (!myTurn()) return say("it is not your turn");
  if (view.phase === "draw") {
    const take = view.moves.find((m) => m.text === `take discard ${depth}`);
    return take ? play(take.id) : say(reasons(view).slice(1).join(" ") || "the discard pile cannot be taken now");
  }
  const cards = selectedCards();
  if (cards.length !== 1) return say("select the one card to discard, then click the pile");
  const move = discardMove(view, cards[0]);
  return move ? play(move.id) : say(discardReason(view, cards[0]));
}

function clickStock() {
  if (!myTurn()) return say("it is not your turn");
  const draw = view.moves.find((m) => m.text === "draw stock");
  return draw ? play(draw.id) : say(view.phase === "play" ? "you have drawn this turn: now meld, lay off or discard" : "the stock cannot be drawn");
}

function clickBottom() {
  const take = view.moves.find((m) => m.text === "take bottom");
  return take ? play(take.id) : say("the bottom card cannot be taken now");
}

// Enter: meld the selection, or discard the one selected card, or draw
function primary() {
  if (!myTurn()) return;
  if (view.phase === "draw" && !selected.length) return clickStock();
  if (selected.length === 1 && discardMove(view, selectedCards()[0])) return clickDiscard();
  return meldSelected();
}

// a drop zone: the card dropped on it plays the move ``pick(card)`` finds, if legal
function dropTarget(node, pick) {
  node.addEventListener("dragover", (event) => event.preventDefault());
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    event.stopPropagation();
    const move = pick(event.dataTransfer.getData("text/plain"));
    if (move) play(move.id);
    else say("that card cannot go there now");
  });
}

async function start(data) {
  game = {id: data.game, token: data.token};
  localStorage.setItem("zolik-game", JSON.stringify(game));
  rememberGame({id: data.game, token: data.token, rules: data.rules, players: data.players});
  view = data; selected = []; focusAt = null; hinted = null;
  render();
  try {
    const {agents} = await api("GET", `/api/games/${game.id}/agents`);
    const chosen = $("hint-agent").value;  // kept where this game's rules allow it
    $("hint-agent").replaceChildren(...agents.map((spec) => el("option", "", spec)));
    if (agents.includes(chosen)) $("hint-agent").value = chosen;
  } catch { /* the menu keeps its agents */ }
}

function settingsBody() {
  const form = new FormData($("settings"));
  const body = {preset: form.get("preset"), players: Number(form.get("players")),
                opponents: form.get("opponents").split(/[ ,]+/).filter(Boolean),
                match: form.get("match") === "on", humans: Number(form.get("humans")), options: {}};
  if (form.get("seed")) body.seed = Number(form.get("seed"));
  if (form.get("opening_points")) body.options.opening_points = Number(form.get("opening_points"));
  if (body.match && form.get("match_length")) {
    body.options[body.preset === "cz" ? "match_deals" : "match_target"] = Number(form.get("match_length"));
  }
  return body;
}

async function newGame(event) {
  event?.preventDefault();
  const body = settingsBody();
  game = null;
  try { await start(await api("POST", "/api/games", body)); } catch (err) { say(err.message); }
}

async function join(event) {
  event.preventDefault();
  const code = new FormData($("join")).get("code").trim().toUpperCase();
  game = null;
  try { await start(await api("POST", `/api/rooms/${encodeURIComponent(code)}/join`)); }
  catch (err) { say(err.message); }
}

// while another person is to act, ask for the table every 1.5 s
// (and, in a match, while the deal is over: another person may start the next one)
setInterval(async () => {
  if (!game || !view || busy) return;
  const waiting = view.done ? view.match && !view.match.over
    : view.current !== view.seat && view.bots[view.current] === null;
  if (!waiting) return;
  try {
    const next = await api("GET", `/api/games/${game.id}`);
    if (next.deal !== view.deal) { view = next; render(); return; }
    const fresh = next.moves_so_far - view.moves_so_far;  // the other seats' moves since
    if (fresh <= 0 || busy) return;
    busy = true;
    try { await animate(view, {...next, played: next.log.slice(-Math.min(fresh, next.log.length))}, null); }
    finally { busy = false; }
    view = next;
    render();
  } catch { /* the next tick asks again */ }
}, 1500);

async function hint() {
  if (!game || !myTurn()) return;  // no game while a new one is on its way
  try {
    const agent = encodeURIComponent($("hint-agent").value);
    const h = await api("GET", `/api/games/${game.id}/hint?agent=${agent}`);
    $("hint-text").textContent = `${h.agent} would play: ${h.text}`;
    hinted = h.id;
    render();
  } catch (err) { say(err.message); }
}

function moveFocus(step) {
  const cards = [...document.querySelectorAll("#hand .card")];
  const at = cards.indexOf(document.activeElement);
  const next = cards[(at + step + cards.length) % cards.length];
  if (!next) return;
  cards.forEach((c) => { c.tabIndex = -1; });
  next.tabIndex = 0;
  next.focus();
  focusAt = Number(next.dataset.index);
}

function onKey(event) {
  if (["INPUT", "SELECT"].includes(event.target.tagName)) return;
  if (event.key === "Escape") { $("choice").hidden = true; return; }
  if (!$("choice").hidden) return;
  const inHand = event.target.closest?.("#hand");
  const moves = [...document.querySelectorAll(".move")];
  const at = moves.indexOf(document.activeElement);
  if (at >= 0 && event.key.startsWith("Arrow")) {
    const step = ["ArrowRight", "ArrowDown"].includes(event.key) ? 1 : -1;
    moves[(at + step + moves.length) % moves.length].focus();
  } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    if (inHand) moveFocus(event.key === "ArrowRight" ? 1 : -1); else document.querySelector("#hand .card")?.focus();
  } else if (event.key === " " && inHand && !document.body.dataset.animating) {
    toggle(Number(event.target.dataset.index));
  } else if (event.key === "Enter" && (inHand || event.target === document.body)) primary();
  else if (event.key === "h") hint();
  else if (event.key === "s") { sortBy = sortBy === "suit" ? "rank" : "suit"; render(); }
  else if (event.key === "u") { const undo = view?.moves.find((m) => m.group === "undo"); if (undo) play(undo.id); }
  else if (event.key === " ") skipping = true;
  else return;
  if (at < 0 || event.key !== "Enter") event.preventDefault();
}

document.addEventListener("keydown", onKey);
dropTarget($("piles"), (card) => view?.moves.find((m) => m.text === `discard ${card}`));
$("stock").onclick = clickStock;
$("discard").onclick = (event) => clickDiscard(Number(event.target.closest(".card")?.dataset.depth || 1));
$("bottom").onclick = clickBottom;
$("meld").onclick = meldSelected;
$("discard-selected").onclick = () => clickDiscard();
$("undo").onclick = () => { const undo = view?.moves.find((m) => m.group === "undo"); if (undo) play(undo.id); };
$("settings").addEventListener("submit", newGame);
$("join").addEventListener("submit", join);
$("sort").onclick = () => { sortBy = sortBy === "suit" ? "rank" : "suit"; render(); };
$("hint").onclick = hint;
$("next-deal").onclick = async () => {
  try { view = await api("POST", `/api/games/${game.id}/next`); selected = []; render(); }
  catch (err) { say(err.message); }
};
$("skip").onclick = () => { skipping = true; };

(async () => {  // the command's settings in the form; a game in progress survives a closed tab
  const defaults = await api("GET", "/api/settings");
  const form = $("settings");
  if (defaults.preset) form.preset.value = defaults.preset;
  if (defaults.players) form.players.value = String(defaults.players);
  if (defaults.opponents) form.opponents.value = defaults.opponents.join(" ");
  form.match.checked = Boolean(defaults.match);
  if (defaults.humans) form.humans.value = String(defaults.humans);
  const given = defaults.options || {};
  if (given.opening_points !== undefined) form.opening_points.value = String(given.opening_points);
  const length = given.match_deals ?? given.match_target;
  if (length !== undefined) form.match_length.value = String(length);
  $("offered").replaceChildren(...defaults.offered.map((spec) => { const o = el("option"); o.value = spec; return o; }));
  form.dataset.loaded = "settings";  // the form now holds the command's settings
  if (game) {
    try { await start({...await api("GET", `/api/games/${game.id}`), token: game.token}); return; }
    catch { game = null; localStorage.removeItem("zolik-game"); }
  }
  if ((defaults.humans || 1) === 1) await newGame();  // a dealt table, as the command said
  else say("New game makes a room with the settings; a friend joins with its code");
})();
