// Résistance on the pages: the missions, the squad, the votes once revealed, Le Plan's board
// (plot.js); on the host page its options and the plot cards played from there; on a seat's phone
// what A and B mean, when to cue the player, and its plot cards. The helpers $, t, el, post and
// render come from table.js; they are only looked up when a function here runs.
"use strict";

function renderResistance(snap) {
  const s = snap.state;
  const names = snap.names || [];
  const name = (seat) => names[seat] || String(seat + 1);
  $("phase").textContent = t("phase_" + s.phase);
  $("commander").textContent = name(s.commander);
  const missions = $("missions");
  missions.replaceChildren(...s.missions.map((m) => {
    const li = el("li", "mission " + (m.result || (m.number === s.mission ? "current" : "")));
    li.append(el("span", "number", m.number), el("span", "size", t("squad_of", { size: m.size })));
    if (m.fails_needed === 2) li.append(el("span", "two", t("two_fails")));
    if (m.result) li.append(el("span", "counts", `✔ ${m.successes} ✘ ${m.fails}`));
    return li;
  }));
  const rejections = $("rejections");
  rejections.replaceChildren(...[1, 2, 3, 4, 5].map((i) =>
    el("span", "token" + (i <= s.rejections ? " used" : ""), i)));
  // the squad proposed, or the one being named with the buttons (said aloud as it is named)
  const naming = snap.naming && s.phase === "propose" ? snap.naming : null;
  const named = s.squad.length ? s.squad : (naming ? naming.members : []);
  $("squad").textContent = named.map(name).join(", ");
  $("naming").textContent = !naming ? ""
    : naming.mission === null && naming.offered !== null ? t("mission_offered", { mission: naming.offered })
    : named.length && naming.mission !== null
      ? t("squad_being_named", { count: named.length, size: s.missions[naming.mission - 1].size }) : "";

  const seats = $("seats");
  seats.replaceChildren(...names.map((n, seat) => {
    const li = el("li", "seat", n);
    li.id = "seat-" + seat;
    if (seat === s.commander) li.classList.add("commander");
    if (s.squad.includes(seat)) li.classList.add("on-squad");
    if (s.voted.includes(seat)) li.append(el("span", "badge voted", t("voted")));
    if (s.played.includes(seat)) li.append(el("span", "badge played", t("played")));
    Plot.held(li, s, seat);
    return li;
  }));
  Plot.render($("plot-board"), s, name);
  if (HOST) {
    const seat = Plot.decider(s);
    Plot.controls($("plot-controls"), s, seat, name, hostAct, seat === null ? "" : t("plot_for", { seat: name(seat) }));
  }

  const lastVote = $("last-vote");
  lastVote.replaceChildren();
  if (s.last_vote) {
    lastVote.append(el("h2", "", `${t("last_vote")} — ${t("mission")} ${s.last_vote.mission}`));
    const list = el("ul", "votes");
    s.last_vote.approvals.forEach((yes, seat) =>
      list.append(el("li", yes ? "yes" : "no", `${name(seat)}: ${t(yes ? "yes" : "no")}`)));
    const verdict = s.last_vote.approved ? "approved" : "rejected";
    lastVote.append(list, el("p", "verdict " + verdict,
      t("vote_" + verdict, { yes: s.last_vote.yes, no: s.last_vote.no })));
  }
  const outcome = $("outcome");
  outcome.hidden = !s.outcome;
  if (s.outcome) {
    outcome.textContent = t("winner_" + s.outcome.winner);
    outcome.className = "outcome " + s.outcome.winner;
  }
}

function resistanceOptions(data) {
  const plot = data.get("plot") === "on";
  return {
    players: Number(data.get("players")),
    ...firstCommander(data),
    targeting: data.get("targeting") === "on",
    isolated_cylons: data.get("isolated_cylons") === "on",
    identities: data.get("identities"),
    plot,
    ...(plot ? { strong_leader: data.get("strong_leader") } : {}),
    ...plotDeck(data),
  };
}

// The seed's first Commandant: the seats of the character cards William Adama, Laura Roslin, Saul
// Tigh, Lee Adama and Gaius Baltar ("—": nobody holds it), the engine gives the command to the
// first present; or a seat the host chooses.
const CHARACTERS = ["william_adama", "laura_roslin", "saul_tigh", "lee_adama", "gaius_baltar"];
function firstCommander(data) {
  if (data.get("first_commander_by") !== "characters") {
    return { first_commander: Number(data.get("first_commander")) - 1 };
  }
  const characters = {};
  for (const character of CHARACTERS) {
    const seat = String(data.get("character_" + character) || "");
    if (seat) characters[character] = Number(seat) - 1;
  }
  return { characters };
}

// Under 7 players Le Plan uses 10 of the 15 plot cards: the engine's default ten, or those the
// host counts out (the numbers on the right side of the printed cards say which).
function plotCards(data) {
  const cards = [];
  for (const [key, value] of data.entries()) {
    if (key.startsWith("plot_card_")) {
      for (let n = 0; n < Number(value); n++) cards.push(key.slice("plot_card_".length));
    }
  }
  return cards;
}
function plotDeck(data) {
  return data.get("plot") === "on" && Number(data.get("players")) < 7 && data.get("plot_deck") === "chosen"
    ? { plot_deck: plotCards(data) } : {};
}

// A plot card handed or played from the host page, for the seat whose turn it is.
async function hostAct(action) {
  $("plot-error").textContent = "";
  try {
    render(await post("/api/act", action));
  } catch (error) {
    $("plot-error").textContent = error.message;
  }
}

// The host's new-game form: Le Plan's choices (its deck is chosen only under 7 players), and the
// first Commandant by the character cards or by a seat.
function setupResistanceOptions() {
  const form = $("new-game");
  if (!form) return;
  const plotShown = () => {  // Le Plan's choices; its deck is chosen only under 7 players
    const plot = form.elements.plot.checked;
    $("strong-leader-box").hidden = !plot;
    $("plot-deck-box").hidden = !plot || Number(form.elements.players.value) >= 7;
    $("plot-cards-box").hidden = $("plot-deck-box").hidden || form.elements.plot_deck.value !== "chosen";
    $("plot-cards-count").textContent = `${plotCards(new FormData(form)).length} / 10`;
  };
  for (const name of ["plot", "players", "plot_deck"]) form.elements[name].addEventListener("change", plotShown);
  $("plot-cards-box").addEventListener("input", plotShown);
  plotShown();
  const commanderShown = () => {  // the character cards, or the host's seat
    const byCharacters = form.elements.first_commander_by.value === "characters";
    $("characters-box").hidden = !byCharacters;
    $("first-commander-box").hidden = byCharacters;
  };
  form.elements.first_commander_by.addEventListener("change", commanderShown);
  commanderShown();
}

// -- a seat's phone (seat.js) ------------------------------------------------------------------

// What A and B mean for this seat now: its vote, its Mission card, or naming the squad.
function resistanceDecision(view) {
  const pub = view.public, s = pub.state;
  if (s.phase === "vote") return ["vote_yes", "vote_no"];
  if (s.phase === "mission") return s.squad.includes(view.seat) ? ["play_success", "play_fail"] : null;
  if (s.phase === "propose") return naming(s, pub.naming, view.seat);
  return null;
}

// The squad is named with the buttons (companion/games/resistance/controls.py): with "Attaques
// ciblées" the Commandant first picks the mission; then the named players join (A) or step out
// (B); the Commandant confirms a full squad (A) or starts again (B).
function naming(s, named, seat) {
  named = named || { offered: null, mission: null, members: [] };
  const commander = seat === s.commander;
  const mission = s.options.targeting ? named.mission : s.mission;
  if (mission === null) return commander ? ["offer_mission", named.offered === null ? null : "take_mission"] : null;
  const member = named.members.includes(seat);
  const full = named.members.length === s.missions[mission - 1].size;
  // the Commandant's B starts again, except while named and the squad not full: it steps out,
  // as for any named player (controls.py), and the button says so
  if (commander && full) return ["confirm_squad", "clear_squad"];
  if (commander) return member ? [null, "leave_squad"] : ["join_squad", "clear_squad"];
  if (member) return [null, "leave_squad"];
  return full ? null : ["join_squad", null];
}

// Whether this seat has to act now: a plot card to hand or play, its vote, its Mission card, or
// the squad to name as Commandant.
function resistanceMustAct(view) {
  const s = view.public.state, mine = view.private || {};
  if (s.plot && s.phase.startsWith("plot")) return Plot.decider(s) === view.seat;
  if (s.phase === "vote") return mine.my_vote === null || mine.my_vote === undefined;
  if (s.phase === "mission") return s.squad.includes(view.seat) && !mine.my_card;
  if (s.phase === "propose") return s.commander === view.seat;
  return false;
}

// A Le Plan card to hand or play: the choices open to this seat, sent with Seat.act.
function resistanceSeat(view, act) {
  const s = view.public.state, names = view.public.names || [];
  const name = (seat) => names[seat] || String(seat + 1);
  if (s.plot && Plot.controls($("seat-plot"), s, view.seat, name, act, "")) return t("plot_your_turn");
  return undefined;  // the seat's buttons say what to do
}

registerGame("resistance", {
  board: "game",
  buttons: true,
  render: renderResistance,
  options: resistanceOptions,
  setupHost: setupResistanceOptions,
  decision: resistanceDecision,
  mustAct: resistanceMustAct,
  seat: resistanceSeat,
  seatBox: "seat-plot",
});
