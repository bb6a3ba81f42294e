// The table's flow: the other seats' moves shown one by one (a card travels from the
// seat to the pile or the melds, the table updated after each), the choice between
// several legal moves of one selection, and the deal's end with every hand scored.
"use strict";

// the table after one public move, for showing only (the server's next view replaces it)
function applyShown(shown, entry) {
  const w = entry.move.split(" "), seat = shown.seats[entry.seat];
  if (w[0] === "draw") { shown.stock = Math.max(0, shown.stock - 1); seat.cards += 1; }
  else if (w[0] === "take") {
    const n = w[1] === "bottom" ? 0 : Number(w[2]);
    shown.discard = shown.discard.slice(0, shown.discard.length - n);
    seat.cards += Math.max(n, 1);
    if (w[1] === "bottom") shown.bottom = null;
  } else if (w[0] === "meld") {
    shown.melds = [...shown.melds, {slot: shown.melds.length, cards: w.slice(1), by: [entry.seat]}];
    seat.cards -= w.length - 1;
  } else if (w[0] === "layoff") {
    const slot = Number(w[3]);
    shown.melds = shown.melds.map((m) => m.slot === slot ? {...m, cards: [...m.cards, w[1]]} : m);
    seat.cards -= 1;
  } else if (w[0] === "discard") { shown.discard = [...shown.discard, w[1]]; seat.cards -= 1; }
  if (entry.seat === shown.seat && w[0] === "discard") {
    const at = shown.hand.indexOf(w[1]);
    if (at >= 0) shown.hand = shown.hand.filter((_, i) => i !== at);
  }
  shown.log = [...shown.log, entry];
  shown.current = entry.seat;
  shown.moves = [];
}

// where a move's card starts and lands on the page
function flightOf(entry) {
  const w = entry.move.split(" ");
  const seatBox = document.querySelector(`.seat[data-seat="${entry.seat}"]`) || $("hand");
  if (w[0] === "draw") return [$("stock"), seatBox, null];
  if (w[0] === "take") return [$(w[1] === "bottom" ? "bottom" : "discard"), seatBox, null];
  if (w[0] === "discard") return [seatBox, $("discard"), w[1]];
  if (w[0] === "meld") return [seatBox, $("melds"), w[1]];
  if (w[0] === "layoff") return [seatBox, document.querySelector(`.meld[data-slot="${w[3]}"]`) || $("melds"), w[1]];
  return [null, null, null];
}

// a card travels from one box to another in `ms` milliseconds
async function fly(entry, ms) {
  const [from, to, card] = flightOf(entry);
  if (!from || !to || ms <= 0) return;
  const a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
  const node = card ? cardNode(card) : backNode();
  node.classList.add("flying");
  node.style.left = `${a.left + a.width / 2 - 20}px`;
  node.style.top = `${a.top + a.height / 2 - 28}px`;
  document.body.appendChild(node);
  const dx = b.left + b.width / 2 - (a.left + a.width / 2), dy = b.top + b.height / 2 - (a.top + a.height / 2);
  const motion = node.animate([{transform: "translate(0, 0) scale(1)"}, {transform: `translate(${dx}px, ${dy}px) scale(0.9)`}],
                              {duration: ms, easing: "ease-in-out"});
  try { await motion.finished; } catch { /* cancelled */ }
  node.remove();
}

function wait(ms) { return new Promise((done) => setTimeout(done, ms)); }

// the seat's own move and then the others' moves, one by one, unless skipped
async function animate(before, next, own) {
  const played = next.played || [];
  if (!before || !played.length || DELAY <= 0) return;
  const shown = structuredClone(before);
  if (own) applyShown(shown, own);
  skipping = false;
  document.body.dataset.animating = "1";
  for (let k = 0; k < played.length && !skipping; k++) {
    const entry = played[k];
    $("banner").textContent = `${seatName(shown, entry.seat)}: ${describe(entry.move)}`;
    await fly(entry, DELAY * 0.7);
    applyShown(shown, entry);
    view = shown;
    render();
    document.body.dataset.animated = String(Number(document.body.dataset.animated || 0) + 1);
    if (!skipping) await wait(DELAY * 0.3);
  }
  delete document.body.dataset.animating;
  $("banner").textContent = "";
}

// a move as a sentence: "discards 6♥", "lays 5♥ 6♥ 7♥", "lays off 8♥ on meld 2"
function describe(move) {
  const w = move.split(" ");
  if (w[0] === "draw") return "draws from the stock";
  if (w[0] === "take") return w[1] === "bottom" ? "takes the bottom card" : `takes ${w[2] === "1" ? "the top discard" : w[2] + " discards"}`;
  if (w[0] === "meld") return "lays " + w.slice(1).map(cardLabel).join(" ");
  if (w[0] === "layoff") return `lays off ${cardLabel(w[1])} on meld ${Number(w[3]) + 1}${w[4] ? " (" + w[4] + " end)" : ""}`;
  if (w[0] === "discard") return "discards " + cardLabel(w[1]);
  return move;
}

// what the jokers of a run pattern stand for: "joker as 8♣" ("" for a set)
const RUN_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
function jokerMeaning(cards) {
  const at = cards.findIndex((c) => !c.startsWith("JK"));
  const natural = parseCard(cards[at]), suits = new Set(cards.filter((c) => !c.startsWith("JK")).map((c) => c.slice(-1)));
  if (suits.size !== 1 || at < 0) return "";
  let base = RUN_RANKS.indexOf(natural.rank);
  if (base === 0 && cards.slice(at + 1).some((c) => c.startsWith("K"))) base = 13;  // an ace high
  return cards.map((c, i) => c.startsWith("JK") ? `joker as ${RUN_RANKS[base + i - at] ?? "?"}${SUIT_SYMBOL[natural.suit]}` : "")
    .filter(Boolean).join(", ");
}

function seatName(v, seat) {
  if (seat === v.seat) return "you";
  return `seat ${seat} (${v.bots[seat] || "human"})`;
}

// several legal moves for one selection: ask which, each drawn as its cards
function choose(title, moves, onPick) {
  const box = $("choice");
  const options = moves.map((m) => {
    const button = document.createElement("button");
    button.className = "option";
    button.dataset.id = m.id;
    const w = words(m);
    if (w[0] === "meld") w.slice(1).forEach((c) => button.appendChild(cardNode(c)));
    button.appendChild(span("text", w[0] === "meld" ? jokerMeaning(w.slice(1)) : describe(m.text)));
    button.onclick = () => { box.hidden = true; onPick(m); };
    return button;
  });
  const cancel = document.createElement("button");
  cancel.textContent = "cancel";
  cancel.onclick = () => { box.hidden = true; };
  const list = document.createElement("div");
  list.className = "options";
  list.append(...options);
  const heading = document.createElement("h2");
  heading.textContent = title;
  box.replaceChildren(heading, list, cancel);
  box.hidden = false;
  options[0].focus();
}

// the deal's end: every hand with each card's penalty, the scores, the match totals
function renderEnd(v) {
  const box = $("end");
  box.hidden = !v.done;
  if (!v.done) return;
  const head = document.createElement("h2");
  head.textContent = v.winner >= 0 ? `Deal over: ${seatName(v, v.winner)} went out` : "Deal over: no winner (cut off)";
  const table = document.createElement("table");
  table.innerHTML = "<thead><tr><th>seat</th><th>cards left (penalty each)</th><th>rule</th><th>score</th>" +
    (v.match ? "<th>match total</th>" : "") + "</tr></thead>";
  const body = document.createElement("tbody");
  v.end.forEach((seat) => {
    const tr = document.createElement("tr");
    tr.className = "end-seat" + (seat.winner ? " winner" : "");
    const hand = document.createElement("div");
    hand.className = "hand";
    seat.cards.forEach((c, i) => {
      const cell = document.createElement("span");
      cell.className = "valued";
      cell.append(cardNode(c), span("value", String(seat.values[i])));
      hand.appendChild(cell);
    });
    if (!seat.cards.length) hand.textContent = "none: went out";
    const notes = [];
    if (seat.never_opened_penalty) notes.push(`never opened: ${seat.never_opened_penalty} flat`);
    if (seat.bonus) notes.push(`winner's bonus ${seat.bonus}`);
    if (seat.multiplier > 1) notes.push(`×${seat.multiplier}: closed from hand`);
    const base = {penalty: "sum of the cards", points: "minus the sum of the cards", laid: "points laid minus the cards"};
    const cells = [seatName(v, seat.seat), hand, notes.join("; ") || base[v.options.scoring], String(seat.score)];
    if (v.match) cells.push(String(v.match.totals[seat.seat]));
    cells.forEach((c, i) => {
      const td = document.createElement("td");
      if (i === 3) td.className = "score";
      td.append(c);
      tr.appendChild(td);
    });
    body.appendChild(tr);
  });
  table.appendChild(body);
  const foot = document.createElement("p");
  const over = !v.match || v.match.over;
  if (v.match) foot.textContent = over ? `Match over after ${v.match.deals} deal(s), won by ${v.match.winners.map((s) => seatName(v, s)).join(" and ")}.`
    : `Match after ${v.match.deals} deal(s): next deal below.`;
  if (over) {
    const link = document.createElement("a");
    link.href = `/replay#game=${encodeURIComponent(v.game)}`;
    link.className = "replay-link";
    link.textContent = " Watch it in the replay viewer";
    foot.appendChild(link);
  }
  if (over) {
    const again = document.createElement("button");
    again.className = "primary";
    again.id = "play-again";
    again.textContent = "New game";
    again.onclick = () => newGame();
    foot.append(" ", again);
  }
  box.replaceChildren(head, table, foot);
}
