// The web table's page: talks to the JSON API of play/server.py; every move it
// offers comes from the view's "moves" (the core's legal-action mask).
"use strict";
const SUITS = "SHDC";
const RANKS = "A23456789TJQK";
let game = JSON.parse(localStorage.getItem("zolik-game") || "null");  // {id, token}
let view = null;
let sortBy = "suit";
let selected = [];  // indices into view.hand
let queue = [];     // bot moves still to show
let skipping = false;
// milliseconds each bot move is shown for (?delay=0 in the address: no animation)
const DELAY = Number(new URLSearchParams(location.search).get("delay") ?? 450);

const $ = (id) => document.getElementById(id);

function api(method, path, body) {
  return request(method, path, body, game?.token);
}

function cardKey(text) {
  if (text.startsWith("JK")) return [9, 99];
  const face = text.slice(0, -1);  // "10" is written with two characters
  const suit = SUITS.indexOf(text.slice(-1)), rank = RANKS.indexOf(face === "10" ? "T" : face);
  return sortBy === "suit" ? [suit, rank] : [rank, suit];
}

function sortedHand() {
  return view.hand.map((c, i) => [c, i]).sort((a, b) => {
    const ka = cardKey(a[0]), kb = cardKey(b[0]);
    return ka[0] - kb[0] || ka[1] - kb[1];
  });
}

function moveUsesSelection(move) {
  const words = move.text.split(" ");
  return selected.every((i) => words.includes(view.hand[i]));
}

function render() {
  if (!view) return;
  const status = view.done
    ? `deal over: ${view.winner >= 0 ? "seat " + view.winner + " went out" : "no winner"}; scores ${view.scores.join(", ")}`
    : (view.current === view.seat ? `your turn: ${view.phase}` : `seat ${view.current} is playing`);
  $("status").textContent = `${view.rules}, you are seat ${view.seat}. ${status}`;
  $("seats").replaceChildren(...view.seats.map((s) => {
    const div = document.createElement("div");
    div.className = "seat" + (s.seat === view.current && !view.done ? " to-act" : "");
    const who = s.seat === view.seat ? "you" : (view.bots[s.seat] || "human");
    div.textContent = `seat ${s.seat} (${who}): ${s.cards} cards, ${s.opened ? "opened" : "not opened"}` +
      (s.known.length ? `; took ${s.known.join(" ")}` : "");
    return div;
  }));
  const piles = [document.createTextNode(`stock ${view.stock}  discard (newest right): `)];
  view.discard.slice(-5).forEach((c) => piles.push(cardNode(c)));
  if (view.bottom) { piles.push(document.createTextNode("  bottom card: ")); piles.push(cardNode(view.bottom)); }
  $("piles").replaceChildren(...piles);
  // the melds the selected cards fit: slots of the lay-offs that use them ("layoff 6H on 3")
  const fitting = new Set(view.moves.filter((m) => m.group === "lay" && selected.length && moveUsesSelection(m))
    .map((m) => Number(m.text.split(" ")[3])));
  $("melds").replaceChildren(...view.melds.map((m) => {
    const div = document.createElement("div");
    div.className = "meld";
    div.dataset.slot = m.slot;
    if (fitting.has(m.slot)) div.classList.add("fits");
    m.cards.forEach((c) => div.appendChild(cardNode(c)));
    return div;
  }));
  $("hand").replaceChildren(...sortedHand().map(([c, i]) => {
    const node = cardNode(c, "button");
    node.draggable = true;  // onto a meld: lay it off there; onto the piles: discard it
    node.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", c));
    if (selected.includes(i)) node.classList.add("selected");
    node.onclick = () => { selected = selected.includes(i) ? selected.filter((j) => j !== i) : [...selected, i]; render(); };
    return node;
  }));
  $("moves").replaceChildren(...view.moves.map((m) => {
    const button = document.createElement("button");
    button.className = "move";
    button.textContent = m.text;
    button.dataset.id = m.id;
    if (selected.length && !moveUsesSelection(m)) button.classList.add("dim");
    button.onclick = () => play(m.id);
    return button;
  }));
  $("melds").querySelectorAll(".meld").forEach((div) => dropTarget(div, (card) =>
    view.moves.find((m) => m.group === "lay" && m.text.split(" ")[1] === card &&
                           m.text.split(" ")[3] === div.dataset.slot)));
  $("log-list").replaceChildren(...view.log.map((e) => {
    const li = document.createElement("li");
    li.textContent = `seat ${e.seat}: ${e.move}`;
    return li;
  }));
  $("sort").textContent = `sort: ${sortBy}`;
  document.body.dataset.moves = String(view.moves_so_far);  // settled: moves so far
  const match = view.match;
  $("match").textContent = match
    ? `match after ${match.deals} deal(s): ${match.totals.map((t, s) => `seat ${s} ${t}`).join(", ")}` +
      (match.over ? `; over, won by seat ${match.winners.join(" and ")}` : "")
    : "";
  $("next-deal").hidden = !(match && view.done && !match.over);
  $("room").textContent = view.room
    ? `room ${view.room}: friends join with this code; seats taken ${view.humans.join(", ")}` : "";
  $("log").scrollTop = $("log").scrollHeight;
}

// a drop zone: the card dropped on it plays the move ``pick(card)`` finds, if legal
function dropTarget(node, pick) {
  node.addEventListener("dragover", (event) => event.preventDefault());
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    const move = pick(event.dataTransfer.getData("text/plain"));
    if (move) play(move.id);
    else $("error").textContent = "that card cannot go there now";
  });
}

function wait(ms) { return new Promise((done) => setTimeout(done, ms)); }

async function show(next) {
  // the bots' moves one by one at a readable pace, unless skipped
  const played = next.played || [];
  skipping = false;
  for (let k = 0; k < played.length && !skipping; k++) {
    $("status").textContent = `seat ${played[k].seat}: ${played[k].move}`;
    await wait(DELAY);
  }
  view = next;
  selected = [];
  render();
  const first = document.querySelector(".move:not(.dim)");
  if (first) first.focus();
}

async function play(action) {
  $("error").textContent = "";
  $("hint-text").textContent = "";
  try { await show(await api("POST", `/api/games/${game.id}/move`, {action})); }
  catch (err) { $("error").textContent = err.message; }
}

async function newGame(event) {
  event.preventDefault();
  const form = new FormData($("settings"));
  const body = {preset: form.get("preset"), players: Number(form.get("players")),
                opponents: form.get("opponents").split(/[ ,]+/).filter(Boolean)};
  if (form.get("seed")) body.seed = Number(form.get("seed"));
  body.match = form.get("match") === "on";
  body.humans = Number(form.get("humans"));
  game = null;
  try {
    const data = await api("POST", "/api/games", body);
    game = {id: data.game, token: data.token};
    localStorage.setItem("zolik-game", JSON.stringify(game));
    await show(data);
  } catch (err) { $("error").textContent = err.message; }
}

async function join(event) {
  event.preventDefault();
  const code = new FormData($("join")).get("code").trim().toUpperCase();
  game = null;
  try {
    const data = await api("POST", `/api/rooms/${encodeURIComponent(code)}/join`);
    game = {id: data.game, token: data.token};
    localStorage.setItem("zolik-game", JSON.stringify(game));
    await show(data);
  } catch (err) { $("error").textContent = err.message; }
}

// while another person is to act, ask for the table every 1.5 s
// (and, in a match, while the deal is over: another person may start the next one)
setInterval(async () => {
  if (!game || !view) return;
  const waiting = view.done ? view.match && !view.match.over
    : view.current !== view.seat && view.bots[view.current] === null;
  if (!waiting) return;
  try {
    const next = await api("GET", `/api/games/${game.id}`);
    if (next.moves_so_far !== view.moves_so_far || next.deal !== view.deal) { view = next; render(); }
  } catch { /* the next tick asks again */ }
}, 1500);

async function hint() {
  try {
    const agent = encodeURIComponent($("hint-agent").value);
    const h = await api("GET", `/api/games/${game.id}/hint?agent=${agent}`);
    $("hint-text").textContent = `${h.agent} would play: ${h.text}`;
    document.querySelectorAll(".move").forEach((b) => b.classList.toggle("hinted", Number(b.dataset.id) === h.id));
  } catch (err) { $("error").textContent = err.message; }
}

document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT") return;
  const buttons = [...document.querySelectorAll(".move")];
  const at = buttons.indexOf(document.activeElement);
  if (event.key === "ArrowRight" || event.key === "ArrowDown") { buttons[(at + 1) % buttons.length]?.focus(); event.preventDefault(); }
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") { buttons[(at - 1 + buttons.length) % buttons.length]?.focus(); event.preventDefault(); }
  else if (event.key === "h") hint();
  else if (event.key === "s") { sortBy = sortBy === "suit" ? "rank" : "suit"; render(); }
  else if (event.key === "u") { const undo = view?.moves.find((m) => m.group === "undo"); if (undo) play(undo.id); }
  else if (event.key === " ") { skipping = true; }
});
dropTarget($("piles"), (card) => view?.moves.find((m) => m.text === `discard ${card}`));
$("settings").addEventListener("submit", newGame);
$("join").addEventListener("submit", join);
$("sort").onclick = () => { sortBy = sortBy === "suit" ? "rank" : "suit"; render(); };
$("hint").onclick = hint;
$("next-deal").onclick = async () => {
  try { await show(await api("POST", `/api/games/${game.id}/next`)); }
  catch (err) { $("error").textContent = err.message; }
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
  $("hint-agent").replaceChildren(...defaults.offered.map((spec) => {
    const option = document.createElement("option");
    option.textContent = spec;
    option.selected = spec === "planner";
    return option;
  }));
  form.dataset.loaded = "settings";  // the form now holds the command's settings
  if (!game) return;
  try { view = await api("GET", `/api/games/${game.id}`); render(); }
  catch { game = null; localStorage.removeItem("zolik-game"); }
})();
