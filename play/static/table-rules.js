// The table's rules feedback and direct play: which legal move a selection of cards
// makes, and why a move is not offered. Every move comes from view.moves (the core's
// legal-action mask); view.now (play/explain.py) only explains.
"use strict";

const words = (move) => move.text.split(" ");

function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

// whether every card of `small` is in `big`, copies counted
function within(small, big) {
  const left = [...big];
  return small.every((c) => { const i = left.indexOf(c); if (i < 0) return false; left.splice(i, 1); return true; });
}

function without(big, small) {
  const left = [...big];
  small.forEach((c) => left.splice(left.indexOf(c), 1));
  return left;
}

// the meld moves the selected cards make: exact (all of them), or a 3-card start whose
// remaining cards are then laid off on the new meld one by one
function meldOptions(view, cards) {
  const melds = view.moves.filter((m) => m.group === "meld");
  const exact = melds.filter((m) => sameCards(words(m).slice(1), cards));
  if (exact.length || cards.length <= 3) return {exact, starts: []};
  return {exact, starts: melds.filter((m) => within(words(m).slice(1), cards))};
}

// the lay-offs of `card` onto meld `slot` (a joker at either end, an ace low or high)
function layoffOptions(view, card, slot) {
  return view.moves.filter((m) => m.group === "lay" && words(m)[1] === card && words(m)[3] === String(slot));
}

function discardMove(view, card) {
  return view.moves.find((m) => m.text === `discard ${card}`);
}

// "29 / 42 points, clean run: yes"
function openingText(opening) {
  const clean = opening.needs_clean_run ? `, clean run: ${opening.clean_run ? "yes" : "no"}` : "";
  return `opening ${opening.points} / ${opening.needed} points${clean}`;
}

// why the seat to act cannot discard now: the rule and its numbers (null: it can)
function discardBlocked(view) {
  const now = view.now;
  if (!now || now.phase !== "play" || view.moves.some((m) => m.group === "discard")) return null;
  if (now.must_use) return `you took ${cardLabel(now.must_use)} from the discard pile: lay it in a meld this turn before you discard (or UNDO)`;
  if (now.freed_jokers) return "lay the joker you swapped off the table before you discard (or UNDO)";
  const opening = now.opening;
  if (opening && opening.melds) {
    const short = [];
    if (opening.points < opening.needed) short.push(`${opening.points} / ${opening.needed} points`);
    if (opening.needs_clean_run && !opening.clean_run) short.push("no run without a joker yet");
    return `your melds are not an opening yet (${short.join(", ") || "incomplete"}): complete the opening or UNDO to take them back, then discard`;
  }
  return "no card of your hand may be discarded now";
}

// what the page tells the seat to act: the phase, melding's first round, the opening
// meter, what blocks a discard, the taken cards it may not discard
function reasons(view) {
  const now = view.now, out = [];
  if (!now || view.current !== view.seat) return out;
  if (now.phase === "draw") {
    const take = view.moves.some((m) => m.text.startsWith("take discard"));
    out.push("Draw: click the stock" + (take ? ", or the discard pile to take its top card." : "."));
    if (!take && view.discard.length) {
      const mustLay = view.options.scoring !== "laid";  // cz and sk: a taken discard is laid at once
      out.push(now.pickup_needs_opened && !view.seats[view.seat].opened
        ? "The discard pile is for opened players only (you have not opened)."
        : mustLay && !now.may_meld ? `A taken discard must be laid the same turn, and melding starts in round ${now.meld_from_round}: draw from the stock.`
          : mustLay ? "The top discard may be taken only when you can lay it in a meld this turn."
            : "The discard pile cannot be taken now.");
    }
    return out;
  }
  if (now.undone) out.push("After UNDO only a discard may follow this turn.");
  else if (now.starter_first_turn) out.push("The starter's first turn is a discard only.");
  else if (!now.may_meld) out.push(`Melding starts in round ${now.meld_from_round} (this is round ${now.round}): discard a card to end your turn.`);
  const blocked = discardBlocked(view);
  if (blocked) out.push(blocked.charAt(0).toUpperCase() + blocked.slice(1) + ".");
  else if (!out.length) out.push("Meld or lay off if you like, then discard: select a card and click the pile.");
  if (now.taken.length && !blocked) out.push(`Taken this turn, not to be discarded again: ${now.taken.map(cardLabel).join(" ")}.`);
  return out;
}

// why the selected card cannot go on the pile
function discardReason(view, card) {
  if (view.now?.phase === "draw") return "draw first: click the stock or the discard pile";
  const blocked = discardBlocked(view);
  if (blocked) return blocked;
  if (view.now?.taken.includes(card)) return `${cardLabel(card)} was taken this turn: it cannot be discarded in the same turn`;
  return `${cardLabel(card)} cannot be discarded now`;
}

// why the selected cards make no meld now
function meldReason(view, cards) {
  const now = view.now;
  if (!now || view.current !== view.seat) return "it is not your turn";
  if (now.phase === "draw") return "draw first: click the stock or the discard pile";
  if (now.undone) return "after UNDO only a discard may follow this turn";
  if (now.starter_first_turn) return "the starter's first turn is a discard only";
  if (!now.may_meld) return `melding starts in round ${now.meld_from_round}; this is round ${now.round}`;
  if (cards.length < 3) return "a meld needs at least 3 cards: a run in one suit or a set of one rank";
  return `${cards.map(cardLabel).join(" ")} is not a meld the rules allow (a run of one suit in sequence, or a set of one rank in different suits; fewer jokers than natural cards)`;
}
