// Oraklos on the page: the board (public and host pages) and the host's controls.
//
// Everything is drawn from the snapshot (GET /api/state, then each SSE `state` event); the only
// thing kept here is what the host is picking right now (dice for a claim, an open die menu, a
// seat or card chosen in a form). The helpers $, t, el, post and render come from table.js,
// loaded after this file: they are only looked up when a function here runs.
"use strict";

const O_COLORS = ["red", "yellow", "blue", "black"];
const O_LETTERS = { R: "red", Y: "yellow", B: "blue", K: "black" };
const O_SVG = "http://www.w3.org/2000/svg";
const O_HAND = 3;    // wish cards in a hand; the engine's to_draw says how many are missing
const O_SHARED = 6;  // Antipodes: shared cards

// The host's current selection (never game state: that is always the snapshot's).
const pick = {
  key: "",          // which throw the choices below belong to: reset when it changes
  dice: [],         // dice chosen for a claim, in the order tapped
  correcting: false, // scoring: taps open the correction menu instead of choosing dice
  menu: null,       // {index} a die's menu, or {x, y} (table units) a missed die's
  markerSeat: null, marker: null, markerCard: null,
  nameSeat: null, nameCard: null,
  drawSeat: null,
  countsKey: "",
  hand: { open: false, offered: false, color: "red", dice: [] },  // a throw entered by hand
};
let oSnap = null;  // the snapshot last drawn, for the handlers

// -- small helpers --------------------------------------------------------------------------------

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(O_SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function seatName(snap, seat) {
  const names = snap.names || [];
  return names[seat] || t("seat_number", { number: seat + 1 });
}

function colorWord(color) {
  return t("color_" + color);
}

function cardColors(card) {
  return [...String(card)].map((letter) => O_LETTERS[letter]);
}

function cardText(card) {
  return t("card_text", { colors: cardColors(card).map(colorWord).join(", ") });
}

function signed(points) {
  return points > 0 ? "+" + points : points < 0 ? "−" + -points : "0";
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// A wish card: a small square with its four corners coloured clockwise from the top left.
function cardPicture(card) {
  const picture = svg("svg", { viewBox: "0 0 20 20", class: "card-art", "aria-hidden": "true" });
  const [tl, tr, br, bl] = cardColors(card);
  const corners = [
    [tl, "2,2 10,2 10,10 2,10"], [tr, "10,2 18,2 18,10 10,10"],
    [br, "10,10 18,10 18,18 10,18"], [bl, "2,10 10,10 10,18 2,18"],
  ];
  picture.append(svg("rect", { x: 0.5, y: 0.5, width: 19, height: 19, rx: 2, class: "card-edge" }));
  for (const [color, points] of corners) picture.append(svg("polygon", { points, class: "fill-" + color }));
  return picture;
}

function cardNode(card, tag = "li") {
  const node = el(tag, "wish-card");
  node.dataset.card = card;
  node.title = cardText(card);
  node.append(cardPicture(card), el("span", "sr-only", cardText(card)));
  return node;
}

function markerBadge(marker) {
  const badge = el("span", "marker", String(marker));
  badge.title = t("marker_n", { marker });
  return badge;
}

// -- the board -----------------------------------------------------------------------------------

function renderOraklos(snap) {
  oSnap = snap;
  const s = snap.state;
  resetPickIfNewThrow(snap, s);
  $("o-round").textContent = s.round;
  $("o-phase").textContent = t("phase_" + s.phase);
  $("o-turn-box").hidden = s.phase === "over";
  $("o-turn").textContent = s.turn === null || s.turn === undefined ? t("everyone") : seatName(snap, s.turn);
  $("o-deck").textContent = t("cards_left", { count: s.deck });
  renderOutcome(snap, s);
  renderCupLine(snap, s);
  renderOrderLine(snap, s);
  renderSeats(snap, s);
  renderShared(s);
  renderLastClaim(snap, s);
  renderMismatch(s);
  renderThrow(snap, s);
  if (HOST) renderControls(snap, s);
}

function resetPickIfNewThrow(snap, s) {
  const claimant = s.claimant ? s.claimant.marker : "";
  const key = [snap.game_id, s.round, s.phase, claimant, (s.table || []).length].join("/");
  if (key === pick.key) return;
  const sameThrow = pick.key.split("/").slice(0, 2).join("/") === key.split("/").slice(0, 2).join("/");
  pick.key = key;
  pick.dice = [];
  pick.correcting = false;
  if (!sameThrow) pick.menu = null;
  pick.markerCard = null;
  pick.nameCard = null;
}

function renderOutcome(snap, s) {
  const box = $("o-outcome");
  box.hidden = !s.outcome;
  if (!s.outcome) return;
  const winners = String(s.outcome.winner).split(",").filter((w) => w !== "").map(Number);
  const names = winners.map((seat) => seatName(snap, seat));
  const who = names.length > 1 ? names.slice(0, -1).join(", ") + " " + t("and") + " " + names.at(-1) : names[0];
  box.textContent = t(names.length > 1 ? "winners" : "winner", { seat: who }) +
    (s.outcome.reason ? " — " + t("end_" + s.outcome.reason) : "");
  box.className = "outcome won";
}

function renderCupLine(snap, s) {
  const cup = s.cup || {};
  const parts = [];
  if (s.phase === "fill" || s.phase === "throw") {
    if (cup.per_player) parts.push(t("cup_per_player", { count: cup.per_player }));
    if (s.phase === "fill" && s.turn !== null) parts.push(t("cup_filling", { seat: seatName(snap, s.turn) }));
    if (s.phase === "throw") {
      parts.push(cup.dice ? t("cup_throw", { seat: seatName(snap, s.first_player), dice: cup.dice })
        : t("cup_throw_unseen", { seat: seatName(snap, s.first_player) }));
    }
  } else if ((s.table || []).length) {
    const left = s.on_table ? O_COLORS.reduce((sum, c) => sum + (s.on_table[c] || 0), 0) : s.table.length;
    parts.push(t("dice_on_table", { dice: left }));
  }
  $("o-cup").textContent = parts.join(" ");
}

// Who takes dice back first (the engine's retrieval order, while it gives one) and who passes
// the cup to whom: the first player passes it to the left at the end of every round.
function renderOrderLine(snap, s) {
  const parts = [];
  const order = s.retrieval_order || [];
  if (order.length) parts.push(t("retrieval_first", { seat: seatName(snap, order[0]) }));
  if (["search", "score", "retrieve", "name"].includes(s.phase)) {
    const next = (s.first_player + 1) % s.players;
    parts.push(t("passes_cup", { seat: seatName(snap, s.first_player), next: seatName(snap, next) }));
  } else if (["draw", "fill", "throw"].includes(s.phase) && s.round > 1) {
    const before = (s.first_player + s.players - 1) % s.players;
    parts.push(t("passed_cup", { seat: seatName(snap, before), next: seatName(snap, s.first_player) }));
  }
  $("o-order").textContent = parts.join(" ");
}

function renderSeats(snap, s) {
  const markers = s.markers || [];
  const filled = (s.cup && s.cup.filled) || [];
  $("o-seats").replaceChildren(...Array.from({ length: s.players }, (_, seat) => {
    const li = el("li", "o-seat");
    li.id = "o-seat-" + seat;
    li.classList.toggle("turn", s.turn === seat);
    li.classList.toggle("first", s.first_player === seat);
    const head = el("div", "o-seat-head");
    head.append(el("strong", "o-name", seatName(snap, seat)));
    if (s.first_player === seat) head.append(el("span", "badge", t("first_player_badge")));
    if (s.phase === "fill" && filled.includes(seat)) head.append(el("span", "badge", t("filled")));
    const score = el("span", "o-score", String(s.scores[seat]));
    score.id = "o-score-" + seat;
    score.title = t("score");
    const round = el("span", "o-round-points", "(" + signed(s.round_points[seat]) + ")");
    round.title = t("this_round");
    head.append(score, round);
    li.append(head);
    const hand = (s.hands || [])[seat] || [];
    if (hand.length || s.mode !== "antipodes") {
      const cards = el("ul", "cards");
      for (const card of hand) {
        const node = cardNode(card);
        const on = markers.find((m) => m.card === card && m.seat === seat);
        if (on) node.append(markerBadge(on.marker));
        cards.append(node);
      }
      li.append(cards);
    }
    const supply = (s.supplies || [])[seat];
    if (supply) li.append(diceCounts(supply, "o-supply"));
    return li;
  }));
}

function diceCounts(pool, cls) {
  const box = el("span", "dice-counts " + cls);
  for (const color of O_COLORS) {
    const chip = el("span", "chip " + color, String(pool[color] || 0));
    chip.title = colorWord(color);
    box.append(chip);
  }
  return box;
}

function renderShared(s) {
  const shown = s.mode === "antipodes";
  $("o-shared-box").hidden = !shown;
  if (shown) $("o-shared").replaceChildren(...(s.shared || []).map((card) => cardNode(card)));
}

// How the reading differs from the cup: a colour's exact count, the number of dice thrown
// (colour null), or more dice of a colour than the game has (bound "at_most").
function mismatchText(m) {
  if (!m.color) return t("mismatch_total", { expected: m.expected, seen: m.seen });
  const key = m.bound === "at_most" ? "mismatch_at_most" : "mismatch_color";
  return t(key, { color: colorWord(m.color), expected: m.expected, seen: m.seen });
}

function renderMismatch(s) {
  const mismatch = s.mismatch || [];
  const box = $("o-mismatch");
  box.hidden = !mismatch.length;
  box.textContent = mismatch.length ? t("mismatch", { details: mismatch.map(mismatchText).join("; ") }) : "";
}

// -- the last claim -------------------------------------------------------------------------------

// The last claim (or Antipodes naming): the engine's `last_judgement` when it gives one (its dice
// and their places, its verdict), else the last such line of the ledger (who, card, points).
function lastClaim(s) {
  if (s.last_judgement) return s.last_judgement;
  const line = [...(s.ledger || [])].reverse().find((l) => ["claim", "hesitation", "naming"].includes(l.cause));
  if (!line) return null;
  return { ...line, valid: line.points > 0, hesitated: line.cause === "hesitation", dice: [] };
}

function renderLastClaim(snap, s) {
  const box = $("o-last-claim");
  const claim = lastClaim(s);
  box.hidden = !claim;
  if (!claim) return box.replaceChildren();
  if (claim.kind === "all_found") return renderAllFound(box, claim);
  const valid = !!claim.valid;
  box.className = "last-claim " + (valid ? "valid" : "invalid");
  const title = el("h2", "", t("last_claim"));
  const line = el("p", "claim-line");
  const who = seatName(snap, claim.seat);
  const what = claim.cause === "naming" ? t("claim_named", { seat: who })
    : claim.marker ? t("claim_marker", { seat: who, marker: claim.marker }) : who;
  line.append(el("span", "", what + " "), cardNode(claim.card, "span"));
  const verdict = claim.hesitated ? t("verdict_hesitated") : t(valid ? "verdict_right" : "verdict_wrong");
  const points = claim.points === undefined ? "" : " " + signed(claim.points);
  line.append(el("strong", "verdict " + (valid ? "approved" : "rejected"), " " + verdict + points));
  box.replaceChildren(title, line);
  const reason = claimReason(claim);
  if (reason) box.append(el("p", "reason", reason));
}

// Antipodes, everyone agreed each shared card had a prediction: the six cards, those with none
// marked.
function renderAllFound(box, judged) {
  box.className = "last-claim " + (judged.missed.length ? "invalid" : "valid");
  const line = el("p", "claim-line", t(judged.missed.length ? "all_found_missed" : "all_found_right") + " ");
  for (const card of judged.cards) {
    const node = cardNode(card, "span");
    if (judged.missed.includes(card)) node.classList.add("missed");
    line.append(node);
  }
  box.replaceChildren(el("h2", "", t("last_claim")), line);
}

// The verdict's reason, as the companion said it: the engine's sentence code rendered with the
// page's words when the page has them (labels `reason_<code>`), else the claim's own text.
function claimReason(claim) {
  if (claim.reason) return claim.reason;
  if (!claim.code || claim.hesitated) return "";
  if (claim.by_card) {
    const dice = (claim.prediction && claim.prediction.dice) || claim.dice || [];
    return claim.valid ? t("card_has_prediction", { dice: dice.join(", ") }) : t("card_has_none");
  }
  const key = "reason_" + claim.code;
  if (!LABELS[lang][key]) return "";
  const params = {};
  for (const [k, v] of Object.entries(claim.params || {})) {
    if (Array.isArray(v)) params[k] = v.map((c) => (O_COLORS.includes(c) ? colorWord(c) : c)).join(", ");
    else params[k] = k === "color" || k.endsWith("_color") ? colorWord(v) : v;
  }
  return t(key, params);
}

// The claim's dice in order round: the engine's order when given, else round their centre.
function claimOrder(claim, table) {
  const dice = (claim.order || (claim.prediction && claim.prediction.dice) || claim.dice || [])
    .filter((i) => i >= 0 && i < table.length);
  if (dice.length < 3 || claim.order || claim.prediction) return dice;
  const cx = dice.reduce((a, i) => a + table[i].x, 0) / dice.length;
  const cy = dice.reduce((a, i) => a + table[i].y, 0) / dice.length;
  return [...dice].sort((i, j) =>
    Math.atan2(table[i].y - cy, table[i].x - cx) - Math.atan2(table[j].y - cy, table[j].x - cx));
}

// -- the throw: the picture and its overlay --------------------------------------------------------

// Where the overlay's units come from: the camera's picture (pixels; table units times scale), or
// with no picture the dice's own extent on a plain table.
function frameOf(snap, table) {
  const pic = snap.picture;
  if (pic && pic.width && pic.height) {
    return { x: 0, y: 0, width: pic.width, height: pic.height, scale: pic.scale || 1, url: pic.url };
  }
  const size = median(table.map((d) => d.size)) || 1;
  const xs = table.map((d) => d.x), ys = table.map((d) => d.y);
  const x = Math.min(...xs) - 2 * size, y = Math.min(...ys) - 2 * size;
  return { x, y, width: Math.max(...xs) + 2 * size - x, height: Math.max(...ys) + 2 * size - y, scale: 1, url: null };
}

// The judged dice where they lay, indexed like the throw they were read from.
function judgedPlaces(claim) {
  const places = [];
  for (const die of (claim && claim.corners) || []) places[die.index] = die;
  return places;
}

function renderThrow(snap, s) {
  const claim = lastClaim(s);
  // Once a round's last claim is judged the next round begins: until the next throw is read,
  // the last picture stays up with the judged dice, so the verdict can be seen.
  const afterwards = !(s.table || []).length && !!snap.picture && !!(claim && (claim.corners || []).length);
  const table = afterwards ? judgedPlaces(claim) : s.table || [];
  const figure = $("o-throw");
  figure.hidden = !table.length;
  if (!table.length) {
    pick.menu = null;
    if (HOST) $("o-menu").hidden = true;
    return;
  }
  const frame = frameOf(snap, table.filter(Boolean));
  const img = $("o-picture");
  img.hidden = !frame.url;
  if (frame.url && img.getAttribute("src") !== frame.url) img.src = frame.url;
  img.alt = t("picture_alt", { dice: table.length });
  $("o-frame").style.aspectRatio = `${frame.width} / ${frame.height}`;
  frame.pxPerUnit = $("o-frame").clientWidth / frame.width || 1;
  $("o-frame").classList.toggle("plain-table", !frame.url);
  const overlay = $("o-overlay");
  overlay.setAttribute("viewBox", `${frame.x} ${frame.y} ${frame.width} ${frame.height}`);
  overlay.dataset.scale = frame.scale;
  overlay.classList.toggle("picking", HOST && claimPicking(s));
  const layers = [];
  const onThisThrow = claim && (afterwards || (claim.round ?? s.round) === s.round) &&
    ((claim.dice || []).length > 0 || (claim.corners || []).length > 0);
  if (onThisThrow) layers.push(claimShape(claim, table, frame));
  const culprit = onThisThrow && !claim.valid && claim.params ? claim.params.die : undefined;
  table.forEach((die, i) => layers.push(dieShape(die, i, frame, s, i === culprit)));
  if (HOST && pick.menu && pick.menu.index === undefined) layers.push(spotShape(pick.menu, table, frame));
  overlay.replaceChildren(...layers);
  $("o-caption").textContent = captionText(s, table);
  if (HOST) renderMenu(s, frame);
}

function captionText(s, table) {
  const flagged = table.filter((d) => d.flagged).map((d) => d.index ?? table.indexOf(d));
  const parts = [t("dice_read", { dice: table.length })];
  if (flagged.length) parts.push(t("dice_flagged", { dice: flagged.join(", ") }));
  if (HOST && claimPicking(s)) parts.push(t("tap_to_claim"));
  else if (HOST && correctable(s)) parts.push(t("tap_to_correct"));
  return parts.join(" ");
}

// A die outlined in its read colour (dashed when the camera is unsure), a ring for a hole, its
// number beside it; `culprit`: the die the last claim's verdict names (inside, crossed...).
function dieShape(die, i, frame, s, culprit = false) {
  const side = die.size * frame.scale;
  const picked = pick.dice.indexOf(i);
  const g = svg("g", {
    class: ["die", die.color, die.hole ? "hole" : "", die.flagged ? "flagged" : "", picked >= 0 ? "picked" : "",
      HOST && pick.menu && pick.menu.index === i ? "chosen" : "", culprit ? "culprit" : ""].join(" ").replace(/\s+/g, " ").trim(),
    transform: `translate(${die.x * frame.scale} ${die.y * frame.scale})`,
    "data-index": i,
    "data-color": die.color,
    "data-hole": die.hole ? "yes" : "no",
  });
  const label = t("die_label", { number: i, color: colorWord(die.color) }) +
    (die.hole ? ", " + t("hole_shown") : "") + (die.flagged ? ", " + t("unsure") : "");
  g.append(svg("title", {}, label));
  if (HOST) {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", label);
    if (claimPicking(s)) g.setAttribute("aria-pressed", picked >= 0 ? "true" : "false");
  }
  // The outline is drawn a little outside the die, so that the real die stays visible inside it.
  const square = svg("g", { transform: `rotate(${die.angle || 0})` });
  const half = side / 2, ring = side * 0.62;
  square.append(
    svg("rect", { class: "hit", x: -half * 1.35, y: -half * 1.35, width: side * 1.35, height: side * 1.35 }),
    svg("rect", { class: "halo", x: -ring, y: -ring, width: 2 * ring, height: 2 * ring }),
    svg("rect", { class: "outline", x: -ring, y: -ring, width: 2 * ring, height: 2 * ring }),
  );
  g.append(square);
  if (die.hole) {
    g.append(svg("circle", { class: "ring halo", r: side * 0.2 }), svg("circle", { class: "ring", r: side * 0.2 }));
  }
  // Its number (and "?" when the camera is unsure) beside it, clear of the die.
  const font = Math.max(side * 0.45, 12 / frame.pxPerUnit);  // at least 12 px on screen
  const corner = ring * Math.SQRT2;
  g.append(svg("text", { class: "number", "font-size": font, x: -corner * 0.8, y: -corner * 0.8 }, String(i)));
  if (die.flagged) {
    g.append(svg("text", { class: "unsure", "font-size": font * 1.2, x: corner * 0.8, y: -corner * 0.8 }, "?"));
  }
  if (picked >= 0) {
    g.append(svg("text", { class: "pick", "font-size": font, x: corner * 0.8, y: corner * 0.8 + font * 0.7 }, String(picked + 1)));
  }
  return g;
}

// Where a missed die will be added: a dashed square of the usual size.
function spotShape(spot, table, frame) {
  const side = median(table.map((d) => d.size)) * frame.scale;
  return svg("rect", {
    class: "spot", x: spot.x * frame.scale - side / 2, y: spot.y * frame.scale - side / 2, width: side, height: side,
  });
}

function claimShape(claim, table, frame) {
  const order = claimOrder(claim, table);
  const points = order.map((i) => `${table[i].x * frame.scale},${table[i].y * frame.scale}`).join(" ");
  return svg("polygon", { id: "o-claim-shape", class: "claim " + (claim.valid ? "valid" : "invalid"), points });
}

// The labels keep a readable size on screen: drawn again when the picture changes size.
let resizing = false;
window.addEventListener("resize", () => {
  if (resizing) return;
  resizing = true;
  requestAnimationFrame(() => {
    resizing = false;
    if (oSnap && !document.getElementById("oraklos").hidden) renderOraklos(oSnap);
  });
});

// -- host: tapping the picture -----------------------------------------------------------------------

function claimPicking(s) {
  return s.phase === "score" && !!s.claimant && (s.options || {}).claims !== "card" &&
    !(pick.correcting && correctable(s));
}

// Whether the reading may still be corrected (from the throw until the first claim is judged).
function correctable(s) {
  if (s.correctable !== undefined) return s.correctable;
  return ["search", "name"].includes(s.phase) || (s.phase === "score" && !(s.ledger || []).some((l) => l.round === s.round));
}

function onOverlayTap(event) {
  if (!oSnap || !oSnap.state) return;
  const s = oSnap.state;
  const g = event.target.closest(".die");
  if (g) return onDieTap(Number(g.dataset.index));
  if (claimPicking(s) || !correctable(s)) return;
  const overlay = $("o-overlay");
  const box = overlay.getBoundingClientRect();
  const view = overlay.viewBox.baseVal;
  const scale = Number(overlay.dataset.scale) || 1;
  const px = view.x + (event.clientX - box.left) / box.width * view.width;
  const py = view.y + (event.clientY - box.top) / box.height * view.height;
  openMenu({ x: px / scale, y: py / scale });
}

function onDieTap(index) {
  const s = oSnap.state;
  if (claimPicking(s)) {
    const at = pick.dice.indexOf(index);
    if (at >= 0) pick.dice.splice(at, 1);
    else if (pick.dice.length < 4) pick.dice.push(index);
    $("o-claim-error").textContent = "";
    return renderOraklos(oSnap);
  }
  if (correctable(s)) openMenu({ index });
}

function openMenu(menu) {
  pick.menu = menu;
  $("o-menu-error").textContent = "";
  renderOraklos(oSnap);
}

function closeMenu() {
  pick.menu = null;
  $("o-menu").hidden = true;
}

function renderMenu(s, frame) {
  const menu = $("o-menu");
  const table = s.table || [];
  const open = pick.menu && correctable(s) && (pick.menu.index === undefined || pick.menu.index < table.length);
  menu.hidden = !open;
  if (!open) return;
  const die = pick.menu.index === undefined ? null : table[pick.menu.index];
  $("o-menu-title").textContent = die
    ? t("die_label", { number: pick.menu.index, color: colorWord(die.color) }) + (die.flagged ? " — " + t("unsure") : "")
    : t("missed_die");
  $("o-menu-colors").replaceChildren(...O_COLORS.map((color) => {
    const button = el("button", "color " + color, colorWord(color));
    button.type = "button";
    button.dataset.color = color;
    if (die) button.setAttribute("aria-pressed", die.color === color ? "true" : "false");
    button.addEventListener("click", () => (die ? correctDie(pick.menu.index, color, die.hole) : addDie(color)));
    return button;
  }));
  $("o-menu-hole").hidden = !die;
  $("o-menu-remove").hidden = !die;
  if (die) {
    $("o-menu-hole").textContent = t(die.hole ? "hole_on" : "hole_off");
    $("o-menu-hole").setAttribute("aria-pressed", die.hole ? "true" : "false");
  }
  placeMenu(menu, die ? [die.x, die.y] : [pick.menu.x, pick.menu.y], frame);
}

// Puts the menu below the tapped spot (above it in the lower half), inside the picture.
function placeMenu(menu, [x, y], frame) {
  const box = $("o-frame");
  const fx = (x * frame.scale - frame.x) / frame.width * box.clientWidth;
  const fy = (y * frame.scale - frame.y) / frame.height * box.clientHeight;
  const width = menu.offsetWidth, height = menu.offsetHeight;
  const left = Math.min(Math.max(fx - width / 2, 0), Math.max(box.clientWidth - width, 0));
  const below = fy + 24 + height <= box.clientHeight || fy < box.clientHeight / 2;
  menu.style.left = left + "px";
  menu.style.top = Math.max(below ? fy + 24 : fy - 24 - height, 0) + "px";
}

async function act(body, errorId) {
  const error = $(errorId);
  if (error) error.textContent = "";
  try {
    render(await post("/api/act", body));
    return true;
  } catch (failure) {
    if (error) error.textContent = failure.message;
    return false;
  }
}

async function correctDie(index, color, hole) {
  if (await act({ kind: "correct_die", index, color, hole }, "o-menu-error")) closeMenu();
}

async function addDie(color) {
  const table = oSnap.state.table || [];
  const size = median(table.map((d) => d.size));
  const { x, y } = pick.menu;
  const die = { x: round2(x), y: round2(y), size: round2(size), angle: 0, color, hole: false };
  if (await act({ kind: "add_die", die }, "o-menu-error")) closeMenu();
}

function round2(value) {
  return Math.round(value * 100) / 100;
}

// -- host: the controls of each phase ----------------------------------------------------------------

// The camera's panel: "read the throw" until the claims, then (while choosing the dice of a
// claim on the picture) a switch between choosing dice and correcting them.
function renderControls(snap, s) {
  const reading = s.phase === "throw" || (correctable(s) && s.phase !== "score");
  const canPick = s.phase === "score" && (s.options || {}).claims !== "card" && correctable(s);
  $("o-read-panel").hidden = !reading && !canPick;
  $("o-read").hidden = !reading;
  $("o-read").textContent = t(s.phase === "throw" ? "read_throw" : "read_again");
  $("o-read-hint").textContent = s.phase === "throw" ? t("read_hint") : "";
  $("o-mode").hidden = !canPick;
  $("o-mode").textContent = t(pick.correcting ? "pick_for_claim" : "correct_dice");
  renderHandPanel(snap, s);
  renderDrawPanel(snap, s);
  renderDicePanel(snap, s);
  renderMarkerPanel(snap, s);
  renderClaimPanel(snap, s);
  renderNamePanel(snap, s);
}

// -- host: a throw entered by hand ---------------------------------------------------------------

// When there is no camera, or it stopped (offered at once then), the host lays the dice on a
// plain table as they lie: a tap lays a die of the chosen colour, a tap on a die takes it away.
const HAND_SIZE = 16;  // mm: an Oraklos die; the plain table is the 600 x 400 mm play area

function renderHandPanel(snap, s) {
  const hand = pick.hand;
  const throwing = s.phase === "throw";
  if (!throwing) hand.dice = [];
  if (throwing && snap.camera_lost && !hand.offered) hand.open = true;
  hand.offered = throwing && !!snap.camera_lost;
  $("o-hand").hidden = !throwing;
  $("o-hand").textContent = t(hand.open ? "hand_close" : "hand_open");
  $("o-hand-panel").hidden = !throwing || !hand.open;
  if ($("o-hand-panel").hidden) return;
  $("o-hand-colors").replaceChildren(...O_COLORS.map((color) => {
    const button = el("button", "color " + color, colorWord(color));
    button.type = "button";
    button.setAttribute("aria-pressed", hand.color === color ? "true" : "false");
    button.addEventListener("click", () => {
      hand.color = color;
      renderOraklos(oSnap);
    });
    return button;
  }));
  const side = HAND_SIZE, half = side / 2;
  $("o-hand-table").replaceChildren(...hand.dice.map((die, i) => {
    const g = svg("g", { class: `die ${die.color}${die.hole ? " hole" : ""}`, "data-index": i,
      transform: `translate(${die.x} ${die.y})` });
    g.append(svg("rect", { class: "outline", x: -half, y: -half, width: side, height: side }));
    if (die.hole) g.append(svg("circle", { class: "ring", r: side * 0.2 }));
    return g;
  }));
  $("o-hand-send").textContent = t("hand_send", { dice: hand.dice.length });
  $("o-hand-send").disabled = !hand.dice.length;
}

function onHandTap(event) {
  const hand = pick.hand;
  const g = event.target.closest(".die");
  if (g) {
    hand.dice.splice(Number(g.dataset.index), 1);
  } else {
    const area = $("o-hand-table");
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(area.getScreenCTM().inverse());
    hand.dice.push({ x: round2(point.x), y: round2(point.y), size: HAND_SIZE, angle: 0, color: hand.color,
      hole: $("o-hand-hole").checked });
  }
  $("o-hand-error").textContent = "";
  renderOraklos(oSnap);
}

async function sendHand() {
  if (await act({ kind: "throw", dice: pick.hand.dice }, "o-hand-error")) {
    pick.hand.dice = [];
    pick.hand.open = false;
    renderOraklos(oSnap);
  }
}

// Fills a <select> with seats, keeping the host's choice while it is still offered.
function seatSelect(select, snap, s, chosen) {
  const value = chosen !== null && chosen < s.players ? chosen : (s.turn ?? 0);
  select.replaceChildren(...Array.from({ length: s.players }, (_, seat) => {
    const option = el("option", "", seatName(snap, seat));
    option.value = seat;
    return option;
  }));
  select.value = String(value);
  return Number(select.value);
}

function choiceButton(node, chosen, onChoose) {
  const button = el("button", "choice" + (chosen ? " chosen" : ""));
  button.type = "button";
  button.setAttribute("aria-pressed", chosen ? "true" : "false");
  button.append(node);
  button.addEventListener("click", onChoose);
  return button;
}

function renderMarkerPanel(snap, s) {
  const panel = $("o-marker-panel");
  panel.hidden = s.phase !== "search";
  if (panel.hidden) return;
  const seat = pick.markerSeat = seatSelect($("o-marker-seat"), snap, s, pick.markerSeat);
  const left = s.markers_left || [];
  if (!left.includes(pick.marker)) pick.marker = left.length ? Math.max(...left) : null;
  $("o-marker-choices").replaceChildren(...left.map((marker) =>
    choiceButton(markerBadge(marker), marker === pick.marker, () => {
      pick.marker = marker;
      renderOraklos(oSnap);
    })));
  // every face-up card, the seat's first: each card lies before one player, so one tap on it
  // names both the card and who took the marker (the seat list follows)
  const marked = new Set((s.markers || []).map((m) => m.card));
  const hands = (s.hands || []).map((hand, owner) => hand.map((card) => ({ card, owner })));
  const cards = [...(hands[seat] || []), ...hands.filter((_, owner) => owner !== seat).flat()];
  const held = (s.hands || [])[seat] || [];
  if (!held.includes(pick.markerCard) || marked.has(pick.markerCard)) pick.markerCard = null;
  $("o-marker-cards").replaceChildren(...cards.map(({ card, owner }) => {
    const li = el("li");
    const node = cardNode(card, "span");
    node.append(el("span", "owner", seatName(snap, owner)));
    const button = choiceButton(node, card === pick.markerCard, () => {
      pick.markerSeat = owner;
      pick.markerCard = card;
      renderOraklos(oSnap);
    });
    button.disabled = marked.has(card);
    button.dataset.card = card;
    button.dataset.seat = owner;
    li.append(button);
    return li;
  }));
  $("o-take-marker").disabled = pick.marker === null || pick.markerCard === null;
}

function renderClaimPanel(snap, s) {
  const panel = $("o-claim-panel");
  panel.hidden = s.phase !== "score" || !s.claimant;
  if (panel.hidden) return;
  const claimant = s.claimant;
  const cardMode = (s.options || {}).claims === "card";
  const who = $("o-claimant");
  who.replaceChildren(
    el("span", "", t("claimant_shows", { seat: seatName(snap, claimant.seat), marker: claimant.marker }) + " "),
    cardNode(claimant.card, "span"),
  );
  $("o-claim-picked").textContent = cardMode ? t("card_mode_hint")
    : pick.correcting ? t("tap_to_correct") : t("picked", { count: pick.dice.length });
  const check = $("o-check");
  check.textContent = t(cardMode ? "check_card" : "check");
  check.disabled = !cardMode && pick.dice.length !== 4;
  $("o-clear").hidden = cardMode;
}

function renderNamePanel(snap, s) {
  const panel = $("o-name-panel");
  panel.hidden = s.phase !== "name";
  if (panel.hidden) return;
  pick.nameSeat = seatSelect($("o-name-seat"), snap, s, pick.nameSeat);
  const shared = s.shared || [];
  if (!shared.includes(pick.nameCard)) pick.nameCard = null;
  $("o-name-cards").replaceChildren(...shared.map((card) => {
    const li = el("li");
    const button = choiceButton(cardNode(card, "span"), card === pick.nameCard, () => {
      pick.nameCard = card;
      renderOraklos(oSnap);
    });
    button.dataset.card = card;
    li.append(button);
    return li;
  }));
  $("o-name-send").disabled = pick.nameCard === null;
}

// The deck drawn from the real box: the players say which cards they drew.
function renderDrawPanel(snap, s) {
  const panel = $("o-draw-panel");
  panel.hidden = s.phase !== "draw";
  if (panel.hidden) return;
  const antipodes = s.mode === "antipodes";
  $("o-draw-seat-box").hidden = antipodes;
  if (antipodes) {
    const need = s.shared_to_draw ?? O_SHARED - (s.shared || []).length;
    $("o-draw-need").textContent = t("cards_to_reveal", { count: need });
  } else {
    const hands = s.hands || [];
    const needs = s.to_draw && s.to_draw.length ? s.to_draw : hands.map((h) => O_HAND - h.length);
    const chosen = pick.drawSeat !== null && needs[pick.drawSeat] > 0 ? pick.drawSeat : Math.max(needs.findIndex((n) => n > 0), 0);
    const seat = pick.drawSeat = seatSelect($("o-draw-seat"), snap, s, chosen);
    $("o-draw-need").textContent = t("cards_drawn_by", { seat: seatName(snap, seat), count: needs[seat] || 0 });
  }
  previewDraw();
}

function parseCards(text) {
  const tokens = String(text).toUpperCase().split(/[^A-Z]+/).filter(Boolean);
  const bad = tokens.find((token) => !/^[RYBK]{4}$/.test(token));
  return { cards: bad ? [] : tokens, bad };
}

function previewDraw() {
  const { cards, bad } = parseCards($("o-draw-input").value);
  $("o-draw-preview").replaceChildren(...cards.map((card) => cardNode(card)));
  $("o-draw-error").textContent = bad ? t("bad_card", { card: bad }) : "";
  $("o-draw-send").disabled = !!bad || !cards.length;
}

// Filling the cup (fills entered) and taking dice back: a seat's dice, counted by colour.
function renderDicePanel(snap, s) {
  const panel = $("o-dice-panel");
  const filling = s.phase === "fill", taking = s.phase === "retrieve";
  panel.hidden = !(filling || taking) || s.turn === null || s.turn === undefined;
  if (panel.hidden) return;
  const count = (s.cup && s.cup.per_player) || 0;
  const who = seatName(snap, s.turn);
  $("o-dice-title").textContent = t(filling ? "fill_title" : "take_back_title", { seat: who, count });
  const have = filling ? (s.supplies || [])[s.turn] : s.on_table;
  const line = $("o-dice-have");
  line.replaceChildren(el("span", "", t(filling ? "in_front_of" : "on_the_table", { seat: who }) + " "));
  if (have) line.append(diceCounts(have, "o-have"));
  const key = [snap.game_id, s.round, s.phase, s.turn].join("/");
  if (key !== pick.countsKey) {
    pick.countsKey = key;
    for (const color of O_COLORS) $("o-count-" + color).value = 0;
  }
  $("o-dice-send").textContent = t(filling ? "put_in_cup" : "take_back");
}

function countsBody() {
  const body = {};
  for (const color of O_COLORS) body[color] = Number($("o-count-" + color).value) || 0;
  return body;
}

// -- host: wiring the controls (once) ----------------------------------------------------------------

function setupOraklosHost() {
  if (!$("o-controls")) return;
  const state = () => (oSnap ? oSnap.state : null);
  const overlay = $("o-overlay");
  overlay.addEventListener("click", onOverlayTap);
  overlay.addEventListener("keydown", (event) => {
    const g = event.target.closest && event.target.closest(".die");
    if (g && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      onDieTap(Number(g.dataset.index));
    }
  });
  $("o-menu-close").addEventListener("click", closeMenu);
  $("o-menu-hole").addEventListener("click", () => {
    const die = state().table[pick.menu.index];
    correctDie(pick.menu.index, die.color, !die.hole);
  });
  $("o-menu-remove").addEventListener("click", async () => {
    if (await act({ kind: "remove_die", index: pick.menu.index }, "o-menu-error")) closeMenu();
  });
  $("o-read").addEventListener("click", readThrow);
  $("o-hand").addEventListener("click", () => {
    pick.hand.open = !pick.hand.open;
    renderOraklos(oSnap);
  });
  $("o-hand-table").addEventListener("click", onHandTap);
  $("o-hand-send").addEventListener("click", sendHand);
  $("o-hand-clear").addEventListener("click", () => {
    pick.hand.dice = [];
    renderOraklos(oSnap);
  });
  $("o-mode").addEventListener("click", () => {
    pick.correcting = !pick.correcting;
    pick.dice = [];
    closeMenu();
    renderOraklos(oSnap);
  });
  $("o-marker-seat").addEventListener("change", (event) => {
    pick.markerSeat = Number(event.target.value);
    pick.markerCard = null;
    renderOraklos(oSnap);
  });
  $("o-take-marker").addEventListener("click", async () => {
    const body = { kind: "take_marker", seat: pick.markerSeat, marker: pick.marker, card: pick.markerCard };
    if (await act(body, "o-marker-error")) pick.markerCard = null;
  });
  $("o-end-search").addEventListener("click", () => act({ kind: "end_search" }, "o-marker-error"));
  $("o-check").addEventListener("click", async () => {
    const s = state();
    const dice = s.options.claims === "card" ? [] : [...pick.dice];
    if (await act({ kind: "claim", seat: s.claimant.seat, dice }, "o-claim-error")) pick.dice = [];
  });
  $("o-clear").addEventListener("click", () => {
    pick.dice = [];
    renderOraklos(oSnap);
  });
  $("o-hesitate").addEventListener("click", () => act({ kind: "hesitate", seat: state().claimant.seat }, "o-claim-error"));
  $("o-name-seat").addEventListener("change", (event) => {
    pick.nameSeat = Number(event.target.value);
  });
  $("o-name-send").addEventListener("click", () =>
    act({ kind: "name_card", seat: pick.nameSeat, card: pick.nameCard }, "o-name-error"));
  $("o-all-found").addEventListener("click", () => act({ kind: "all_found" }, "o-name-error"));
  $("o-draw-seat").addEventListener("change", (event) => {
    pick.drawSeat = Number(event.target.value);
    renderOraklos(oSnap);
  });
  $("o-draw-input").addEventListener("input", previewDraw);
  $("o-draw-send").addEventListener("click", sendDrawnCards);
  $("o-deck-empty").addEventListener("click", () => act({ kind: "deck_empty" }, "o-draw-error"));
  $("o-dice-send").addEventListener("click", () => {
    const s = state();
    const kind = s.phase === "fill" ? "fill_cup" : "take_back";
    act({ kind, seat: s.turn, ...countsBody() }, "o-dice-error");
  });
}

async function sendDrawnCards() {
  const s = oSnap.state;
  const { cards, bad } = parseCards($("o-draw-input").value);
  if (bad || !cards.length) return previewDraw();
  const body = s.mode === "antipodes" ? { kind: "reveal_cards", cards } : { kind: "draw_cards", seat: pick.drawSeat, cards };
  if (await act(body, "o-draw-error")) {
    $("o-draw-input").value = "";
    previewDraw();
  }
}

async function readThrow() {
  const button = $("o-read");
  $("o-read-error").textContent = "";
  button.disabled = true;
  button.textContent = t("reading");
  try {
    render(await post("/api/throw/read", {}));
  } catch (failure) {
    $("o-read-error").textContent = failure.message;
  } finally {
    button.disabled = false;
    button.textContent = t("read_throw");
  }
}

// -- host: the new-game options ---------------------------------------------------------------------

function oraklosOptions(data) {
  return {
    players: Number(data.get("oraklos_players")),
    mode: data.get("mode"),
    first_player: Number(data.get("first_player")) - 1,
    deck: data.get("deck"),
    fills: data.get("fills"),
    claims: data.get("claims"),
    either_direction: data.get("either_direction") === "on",
    ties: data.get("ties"),
  };
}

// The cup is filled only in the standard game: its filling's choice shows only then.
function setupOraklosOptions() {
  const form = $("new-game");
  if (!form) return;
  const mode = () => {
    form.elements.fills.closest("label").hidden = form.elements.mode.value !== "standard";
  };
  form.elements.mode.addEventListener("change", mode);
  mode();
}

registerGame("oraklos", {
  render: renderOraklos,
  options: oraklosOptions,
  setupHost() {
    setupOraklosHost();
    setupOraklosOptions();
  },
});
