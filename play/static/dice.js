// Pět kostek at the web table: keep dice, roll the rest, fill a box; the optimal agent's
// advice after every move. Moves are the view's "moves" (the core's mask) only.
"use strict";
let game = JSON.parse(localStorage.getItem("zolik-dice") || "null");
let view = null;
let kept = new Set();  // positions of the sorted dice to keep
const $ = (id) => document.getElementById(id);

function api(method, path, body) {
  return request(method, path, body, game?.token);
}

function rerollText() {
  const positions = view.dice.map((_, i) => i).filter((i) => !kept.has(i));
  return positions.length ? "reroll " + positions.join(",") : null;
}

function render() {
  if (!view) return;
  $("status").textContent = view.done
    ? `game over: ${view.total} points; the optimal agent scores ${view.optimal_same_seed} on this seed, ${view.optimal_expected} on average`
    : `total ${view.total}, rerolls left ${view.rolls_left}`;
  $("dice").replaceChildren(...view.dice.map((face, i) => {
    const die = document.createElement("button");
    die.className = "card die" + (kept.has(i) ? " selected" : "");
    die.textContent = "⚀⚁⚂⚃⚄⚅"[face - 1] + " " + face;
    die.onclick = () => { kept.has(i) ? kept.delete(i) : kept.add(i); render(); };
    return die;
  }));
  const reroll = view.moves.find((m) => m.text === rerollText());
  $("roll").disabled = !reroll;
  $("card").replaceChildren(...view.boxes.map((box) => {
    const tr = document.createElement("tr");
    const name = document.createElement("td");
    name.textContent = box.name.replace("_", " ");
    const cell = document.createElement("td");
    const legal = view.moves.find((m) => m.id === box.action);
    if (box.score !== null) cell.textContent = String(box.score);
    else if (legal) {
      const button = document.createElement("button");
      button.className = "move";
      button.textContent = `score ${box.now}`;
      button.onclick = () => play(box.action);
      cell.appendChild(button);
    }
    tr.append(name, cell);
    return tr;
  }));
  const a = view.advice;
  $("advice").textContent = a ? (a.yours === a.optimal ? `the optimal agent agrees: ${a.optimal}`
    : `you played ${a.yours}; the optimal agent would have played ${a.optimal}`) : "";
}

async function play(action) {
  $("error").textContent = "";
  try { view = await api("POST", `/api/dice/${game.id}/move`, {action}); kept = new Set(); render(); }
  catch (err) { $("error").textContent = err.message; }
}

$("roll").onclick = () => { const text = rerollText(); if (text) play(text); };
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT") return;
  if (event.key === "r") $("roll").click();
  else if ("12345".includes(event.key) && view) {
    const i = Number(event.key) - 1;
    kept.has(i) ? kept.delete(i) : kept.add(i);
    render();
  }
});
$("settings").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData($("settings"));
  const body = {joker: form.get("joker")};
  if (form.get("seed")) body.seed = Number(form.get("seed"));
  game = null;
  try {
    const data = await api("POST", "/api/dice", body);
    game = {id: data.game, token: data.token};
    localStorage.setItem("zolik-dice", JSON.stringify(game));
    view = data; kept = new Set(); render();
  } catch (err) { $("error").textContent = err.message; }
});
(async () => {
  if (!game) return;
  try { view = await api("GET", `/api/dice/${game.id}`); render(); }
  catch { game = null; localStorage.removeItem("zolik-dice"); }
})();
