// The web table's page: talks to the JSON API of play/server.py; every move it plays
// comes from the view's "moves" (the core's legal-action mask). Cards are played
// directly: select cards and press Meld, click the pile or an outlined meld, or drag.
"use strict";
let game = JSON.parse(localStorage.getItem("zolik-game") || "null");  // {id, token}
let view = null;
let sortBy = "suit";
let selected = [];  // indices into view.hand
let focusAt = null; // the hand card with the keyboard's focus (index into view.hand)
let skipping = false;
let busy = false;   // a move is on its way: clicks wait
let hinted = null;  // the hint's move id
// milliseconds each bot move is shown for (?delay=0 in the address: no animation)
const DELAY = Number(new URLSearchParams(location.search).get("delay") ?? 450);

const $ = (id) => document.getElementById(id);

function api(method, path, body) {
  return request(method, path, body, game?.token);
}

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

// suit order, then rank (or rank, then suit); the jokers always at the end
function cardKey(text) {
  if (text.startsWith("JK")) return [99, 99];
  const suit = "SHDC".indexOf(text.slice(-1)), rank = RANKS.indexOf(text.slice(0, -1));
  return sortBy === "suit" ? [suit, rank] : [rank, suit];
}

function sortedHand() {
  return view.hand.map((c, i) => [c, i]).sort((a, b) => {
    const ka = cardKey(a[0]), kb = cardKey(b[0]);
    return ka[0] - kb[0] || ka[1] - kb[1];
  });
}

const selectedCards = () => selected.map((i) => view.hand[i]);
const myTurn = () => view && !view.done && view.current === view.seat;

function moveUsesSelection(move) {
  return within(selectedCards(), words(move));
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderStatus() {
  const name = (s) => seatName(view, s);
  const status = view.done
    ? `deal over: ${view.winner >= 0 ? name(view.winner) + " went out" : "no winner"}; scores ${view.scores.join(", ")}`
    : (myTurn() ? `Your turn: ${view.phase === "draw" ? "draw a card" : "meld, lay off, then discard"}` : `${name(view.current)} is playing`);
  const me = view.seats[view.seat];
  $("status").textContent = `${view.rules}${view.now ? ", round " + view.now.round : ""}, you are seat ${view.seat}` +
    ` (${me.opened ? "opened" : "not opened"}). ${status}`;
}

function renderOpponents() {
  $("opponents").replaceChildren(...view.seats.filter((s) => s.seat !== view.seat).map((s) => {
    const box = el("div", "seat" + (s.seat === view.current && !view.done ? " to-act" : ""));
    box.dataset.seat = s.seat;
    box.append(el("span", "name", seatName(view, s.seat)), el("span", "badge", s.opened ? "opened" : "not opened"));
    if (s.known.length) box.append(el("span", "badge", "took " + s.known.map(cardLabel).join(" ")));
    const fan = el("div", "fan");
    for (let k = 0; k < Math.min(s.cards, 12); k++) fan.appendChild(backNode());
    fan.appendChild(el("span", "count", `${s.cards} card${s.cards === 1 ? "" : "s"}`));
    box.appendChild(fan);
    return box;
  }));
}

function renderPiles() {
  const stock = $("stock"), discard = $("discard");
  stock.querySelector(".stack").replaceChildren(...Array.from({length: Math.min(view.stock, 3) || 0}, backNode));
  stock.querySelector(".label").textContent = `stock ${view.stock}`;
  stock.classList.toggle("active", view.moves.some((m) => m.text === "draw stock"));
  const top = view.discard.slice(-5);
  discard.querySelector(".stack").replaceChildren(...top.map((c, i) => {
    const node = cardNode(c);
    node.dataset.depth = top.length - i;  // "take discard n" takes the newest n
    return node;
  }));
  discard.querySelector(".label").textContent = `discard ${view.discard.length}`;
  const one = selected.length === 1 && discardMove(view, view.hand[selected[0]]);
  discard.classList.toggle("active", Boolean(one) || view.moves.some((m) => m.text.startsWith("take discard")));
  $("bottom").hidden = !view.bottom;
  $("bottom").querySelector(".stack").replaceChildren(...(view.bottom ? [cardNode(view.bottom)] : []));
}

function renderMelds() {
  const card = selected.length === 1 ? view.hand[selected[0]] : null;
  const fits = new Set(view.moves.filter((m) => m.group === "lay" && card && words(m)[1] === card)
    .map((m) => Number(words(m)[3])));
  $("melds").replaceChildren(...view.melds.map((m) => {
    const box = el("div", "meld" + (fits.has(m.slot) ? " fits" : ""));
    box.dataset.slot = m.slot;
    const by = m.by.map((s) => s === view.seat ? "you" : `seat ${s}`).join(", ");
    box.appendChild(el("span", "by", `${m.slot + 1} · by ${by || "-"}`));
    const cards = el("div", "cards");
    m.cards.forEach((c) => cards.appendChild(cardNode(c)));
    box.appendChild(cards);
    box.onclick = () => clickMeld(m.slot);
    dropTarget(box, (c) => layoffOptions(view, c, m.slot)[0]);
    return box;
  }));
}

function renderHand() {
  const hintCards = hinted === null ? [] : words(view.moves.find((m) => m.id === hinted) || {text: ""}).slice(1);
  $("hand").replaceChildren(...sortedHand().map(([c, i]) => {
    const node = cardNode(c, "div");
    node.tabIndex = focusAt === i || (focusAt === null && i === sortedHand()[0][1]) ? 0 : -1;
    node.setAttribute("role", "option");
    node.setAttribute("aria-selected", String(selected.includes(i)));
    node.dataset.index = i;
    node.draggable = true;  // onto a meld: lay it off there; onto the piles: discard it
    node.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", c));
    if (selected.includes(i)) node.classList.add("selected");
    if (hintCards.includes(c)) node.classList.add("hinted");
    if (view.now?.must_use === c && view.current === view.seat) {  // the taken discard to lay
      node.classList.add("must");
      node.title = "taken from the pile: lay it this turn";
    }
    node.onclick = () => { focusAt = i; toggle(i); };
    return node;
  }));
}

function renderGuide() {
  const opening = view.now?.opening;
  const show = myTurn() && opening && view.now.may_meld && !view.now.undone;
  $("meter").hidden = !show;
  if (show) {
    $("meter").textContent = openingText(opening);
    $("meter").classList.toggle("met", opening.met);
  }
  $("why").replaceChildren(...reasons(view).map((r) => el("li", "", r)));
  const cards = selectedCards(), options = meldOptions(view, cards);
  const canMeld = options.exact.length + options.starts.length > 0;
  $("meld").disabled = !myTurn() || busy;
  $("meld").title = canMeld ? "lay the selected cards as a meld (Enter)" : meldReason(view, cards);
  $("meld").dataset.ready = String(canMeld);
  const single = cards.length === 1 && discardMove(view, cards[0]);
  $("discard-selected").disabled = !single;
  $("discard-selected").title = single ? `discard ${cardLabel(cards[0])}` : (cards.length === 1 ? discardReason(view, cards[0]) : "select one card");
  const undo = view.moves.find((m) => m.group === "undo");
  $("undo").disabled = !undo;
  $("undo").title = undo ? "take back this turn's melds and pick-up (u)" : "nothing to undo this turn (UNDO is once per turn)";
}

function renderMoves() {
  $("moves").replaceChildren(...view.moves.map((m) => {
    const button = el("button", "move", m.text);
    button.dataset.id = m.id;
    if (selected.length && !moveUsesSelection(m)) button.classList.add("dim");
    if (m.id === hinted) button.classList.add("hinted");
    button.onclick = () => play(m.id);
    return button;
  }));
}

function render() {
  if (!view) return;
  renderStatus();
  renderOpponents();
  renderPiles();
  renderMelds();
  renderHand();
  renderGuide();
  renderMoves();
  $("log-list").replaceChildren(...view.log.map((e) => el("li", "", `seat ${e.seat}: ${e.move}`)));
  $("sort").textContent = `sort: ${sortBy}`;
  document.body.dataset.moves = String(view.moves_so_far);  // settled: moves so far
  const match = view.match;
  $("match").textContent = match
    ? `match after ${match.deals} deal(s): ${match.totals.map((t, s) => `seat ${s} ${t}`).join(", ")}` +
      (match.over ? `; over, won by seat ${match.winners.join(" and ")}` : "") : "";
  $("next-deal").hidden = !(match && view.done && !match.over);
  $("room").textContent = view.room
    ? `room ${view.room}: friends join with this code; seats taken ${view.humans.join(", ")}` : "";
  renderEnd(view);
  $("me").classList.toggle("over", view.done);
  $("me").hidden = view.done && !view.hand.length;  // went out: the scores say the rest
  document.querySelector("#how .opening-need").textContent = String(view.options.opening_points);
  document.querySelector("#how .clean-need").hidden = !view.options.opening_needs_clean_run;
  $("log").scrollTop = $("log").scrollHeight;
  if (focusAt !== null && document.activeElement === document.body) {
    document.querySelector(`#hand .card[data-index="${focusAt}"]`)?.focus();
  }
}

function toggle(i) {
  selected = selected.includes(i) ? selected.filter((j) => j !== i) : [...selected, i];
  $("error").textContent = "";
  render();
}

function say(message) { $("error").textContent = message; }
