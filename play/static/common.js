// What the web table's pages share: a JSON request to the server with the seat's token,
// and cards drawn in HTML and CSS (no images): a face with rank and suit, a joker, a back.
"use strict";

async function request(method, path, body, token) {
  const headers = {"Content-Type": "application/json"};
  if (token) headers["X-Seat-Token"] = token;
  const response = await fetch(path, {method, headers, body: body ? JSON.stringify(body) : undefined});
  const text = await response.text();
  let data = null;
  try { data = JSON.parse(text); } catch { /* an error page that is not JSON */ }
  if (!response.ok) throw new Error(data?.error || `${response.status} ${response.statusText}`);
  return data;
}

const SUIT_SYMBOL = {S: "♠", H: "♥", D: "♦", C: "♣"};
const SUIT_NAME = {S: "spades", H: "hearts", D: "diamonds", C: "clubs"};

// "10H" -> {rank: "10", suit: "H"}; "JK" -> {joker}; "JK(6H)" -> a joker standing for 6H
function parseCard(text) {
  const stands = text.match(/^JK\((.+)\)$/);
  if (text === "JK" || stands) return {joker: true, stands: stands ? stands[1] : null};
  return {rank: text.slice(0, -1), suit: text.slice(-1)};
}

// how a card is read out: "10♥", "joker", "joker as 6♥"
function cardLabel(text) {
  const c = parseCard(text);
  if (c.joker) return c.stands ? `joker as ${cardLabel(c.stands)}` : "joker";
  return c.rank + SUIT_SYMBOL[c.suit];
}

function span(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

// a card face: rank and suit in two corners and the suit large in the middle
function cardNode(text, tag = "span") {
  const node = document.createElement(tag);
  const c = parseCard(text);
  node.className = "card face";
  node.dataset.card = text;
  node.setAttribute("aria-label", cardLabel(text));
  if (c.joker && c.stands) {  // on the table: gold, with the card it stands for
    const meant = parseCard(c.stands), corner = meant.rank + "\n" + SUIT_SYMBOL[meant.suit];
    node.classList.add("joker", "stands-for", "HD".includes(meant.suit) ? "red" : "black");
    node.append(span("corner", corner), span("pip", "★"), span("corner low", corner));
    return node;
  }
  if (c.joker) {
    node.classList.add("joker");
    node.append(span("corner", "★"), span("pip", "JOKER"));
    return node;
  }
  node.classList.add(SUIT_NAME[c.suit], "HD".includes(c.suit) ? "red" : "black");
  const corner = c.rank + "\n" + SUIT_SYMBOL[c.suit];
  node.append(span("corner", corner), span("pip", SUIT_SYMBOL[c.suit]), span("corner low", corner));
  return node;
}

// the back of a card: the other hands and the stock
function backNode() {
  const node = document.createElement("span");
  node.className = "card back";
  node.setAttribute("aria-hidden", "true");
  return node;
}

// the games this browser made or joined, newest first (the replay viewer lists them)
function rememberGame(entry) {
  const games = JSON.parse(localStorage.getItem("zolik-games") || "[]").filter((g) => g.id !== entry.id);
  games.unshift({...entry, at: new Date().toISOString().slice(0, 16).replace("T", " ")});
  localStorage.setItem("zolik-games", JSON.stringify(games.slice(0, 50)));
}
