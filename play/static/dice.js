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

// where the pips of each face sit on a 3 x 3 grid ("row / column")
const PIPS = {1: ["2/2"], 2: ["1/1", "3/3"], 3: ["1/1", "2/2", "3/3"], 4: ["1/1", "1/3", "3/1", "3/3"],
              5: ["1/1", "1/3", "2/2", "3/1", "3/3"], 6: ["1/1", "2/1", "3/1", "1/3", "2/3", "3/3"]};

// a move as the page numbers the dice, 1 to 5 as the keys: "reroll 0,2" -> "reroll dice 1, 3"
function spoken(text) {
  const reroll = text.match(/^reroll (.+)$/);
  if (!reroll) return text.replace("_", " ");
  return "reroll dice " + reroll[1].split(",").map((i) => Number(i) + 1).join(", ");
}

function render() {
  if (!view) return;
  $("status").textContent = view.done
    ? `game over: ${view.total} points; the optimal agent scores ${view.optimal_same_seed} on this seed, ${view.optimal_expected} on average`
    : `total ${view.total}, rerolls left ${view.rolls_left}`;
  $("dice").replaceChildren(...view.dice.map((face, i) => {
    const die = document.createElement("button");
    die.className = "die" + (kept.has(i) ? " selected" : "");
    die.dataset.face = face;
    die.setAttribute("aria-label", `die ${i + 1}: ${face}${kept.has(i) ? ", kept" : ""}`);
    const pips = document.createElement("span");
    pips.className = "pips";
    PIPS[face].forEach((cell) => { const pip = document.createElement("i"); pip.style.gridArea = cell; pips.appendChild(pip); });
    const key = document.createElement("span");
    key.className = "key";
    key.textContent = String(i + 1) + (kept.has(i) ? " kept" : "");  // the key that keeps it
    die.append(pips, key);
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
  $("advice").textContent = a ? (a.yours === a.optimal ? `the optimal agent agrees: ${spoken(a.optimal)}`
    : `you played ${spoken(a.yours)}; the optimal agent would have played ${spoken(a.optimal)}`) : "";
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
