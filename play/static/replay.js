// The replay viewer: any recorded game, every seat's hand shown, stepped forward and back.
"use strict";
let game = null;  // {rules, players, agents, frames}
let at = 0;
const $ = (id) => document.getElementById(id);

function row(label, cards) {
  const div = document.createElement("div");
  div.className = "seat";
  div.appendChild(document.createTextNode(label + " "));
  cards.forEach((c) => div.appendChild(cardNode(c)));
  return div;
}

function render() {
  if (!game) return;
  const f = game.frames[at];
  $("where").textContent = `move ${at + 1} of ${game.frames.length}, deal ${f.deal}`;
  $("status").textContent = f.move
    ? `seat ${f.move.seat}${game.agents[f.move.seat] ? " (" + game.agents[f.move.seat] + ")" : ""} plays: ${f.move.text}`
    : `deal over: ${f.winner >= 0 ? "seat " + f.winner + " went out" : "no winner"}; scores ${f.scores.join(", ")}`;
  const piles = [document.createTextNode(`stock ${f.stock}  discard (newest right): `)];
  f.discard.slice(-8).forEach((c) => piles.push(cardNode(c)));
  if (f.bottom) { piles.push(document.createTextNode("  bottom card: ")); piles.push(cardNode(f.bottom)); }
  $("piles").replaceChildren(...piles);
  $("melds").replaceChildren(...f.melds.map((m) => row(`meld ${m.slot}:`, m.cards)));
  $("hands").replaceChildren(...f.hands.map((hand, s) => {
    const who = game.agents[s] ? ` ${game.agents[s]}` : "";
    return row(`seat ${s}${who} (${f.seats[s].opened ? "opened" : "not opened"}):`, hand);
  }));
}

function go(to) {
  if (!game) return;
  at = Math.max(0, Math.min(game.frames.length - 1, to));
  render();
}

// a recorded game's text -> the viewer's frames (the server replays it on the core)
async function load(text) {
  $("error").textContent = "";
  const response = await fetch("/api/replays", {
    method: "POST", headers: {"Content-Type": "application/x-ndjson"}, body: text});
  const data = await response.json();
  if (!response.ok) { $("error").textContent = data.error; return; }
  game = data;
  go(0);
}

// a game of the table, with its seat's token: its replay once it is over
async function open(saved) {
  $("error").textContent = "";
  const response = await fetch(`/api/games/${saved.id}/replay`, {headers: {"X-Seat-Token": saved.token}});
  const text = await response.text();
  if (response.status === 403) { $("error").textContent = "that game is still being played: its replay comes once it is over"; return; }
  if (!response.ok) { $("error").textContent = "that game is no longer on this server"; return; }
  await load(text);
}

function listSaved() {
  const games = JSON.parse(localStorage.getItem("zolik-games") || "[]");
  $("saved").replaceChildren(...games.map((g) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.className = "open-game";
    button.textContent = `${g.at}: ${g.rules || "?"}, ${g.players || "?"} players`;
    button.onclick = () => open(g);
    li.appendChild(button);
    return li;
  }));
  if (!games.length) $("saved").textContent = "none yet: games you play at the table are listed here";
  const wanted = new URLSearchParams(location.hash.slice(1)).get("game");
  const found = games.find((g) => g.id === wanted);
  if (found) open(found);
}

$("file").addEventListener("change", async () => load(await $("file").files[0].text()));
listSaved();
$("first").onclick = () => go(0);
$("prev").onclick = () => go(at - 1);
$("next").onclick = () => go(at + 1);
$("last").onclick = () => go(Infinity);
document.addEventListener("keydown", (event) => {
  if (event.key === "ArrowRight") go(at + 1);
  else if (event.key === "ArrowLeft") go(at - 1);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(Infinity);
});
