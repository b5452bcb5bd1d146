// A seat on a phone (/seat/<token>): the public board (table.js's renderers) and this seat's own
// card: its identity and fellow Cylons when digital, what it alone learned, its own vote or card;
// the running game's own part of the card, what its A and B mean and when to cue the player come
// from the game's part (games.js: decision, mustAct, seat). Its A and B go through the same input
// port as the button box. The stream carries this seat's view only; it reconnects by itself, and
// re-fetches the state after a lost connection or a restarted server.
"use strict";

const SEAT_API = "/api/seat/" + encodeURIComponent(SEAT_TOKEN);
let seatView = null;
let seatSource = null;
let retryTimer = null;

function seatStatus(text) {
  $("seat-status").textContent = text || "";
}

// What this seat alone may see (its identity, its vote and card, what it learned) stays hidden
// from the neighbours: it shows while the player holds the button, or after a tap (or Enter)
// until a second tap, SECRET_SHOWN_MS at most; it hides when the phone is put away.
const SECRET_SHOWN_MS = 5000;
const HOLD_MS = 400;  // a press held this long is a hold: the secrets hide when it ends
const Secrets = (() => {
  let hideTimer = null;
  let downAt = 0;
  let wasShown = false;
  function show(on) {
    $("secret").hidden = !on;
    $("reveal").setAttribute("aria-expanded", String(on));
    $("reveal").classList.toggle("shown", on);
    clearTimeout(hideTimer);
    if (on) hideTimer = setTimeout(() => show(false), SECRET_SHOWN_MS);
  }
  function init() {
    const button = $("reveal");
    button.addEventListener("pointerdown", (event) => {
      event.preventDefault();  // no text selection or long-press menu while held
      wasShown = !$("secret").hidden;
      downAt = event.timeStamp;
      show(true);
    });
    const up = (event) => {
      if (!downAt) return;
      if (wasShown || event.timeStamp - downAt >= HOLD_MS) show(false);
      downAt = 0;
    };
    button.addEventListener("pointerup", up);
    button.addEventListener("pointerleave", up);
    button.addEventListener("pointercancel", () => { downAt = 0; show(false); });
    // a click without a pointer (Enter, Space, a screen reader) toggles
    button.addEventListener("click", (event) => { if (event.detail === 0) show($("secret").hidden); });
    document.addEventListener("visibilitychange", () => { if (document.hidden) show(false); });
  }
  return { init, show };
})();

// A revoked link: the seat's buttons go, and the public board stays, so that a game that just
// ended still shows its result (the public snapshot, which any visitor may see).
async function linkGone() {
  if (seatSource) seatSource.close();
  seatSource = null;
  document.body.dataset.seat = "gone";
  seatStatus(t("link_gone"));
  for (const button of document.querySelectorAll(".seat-press, .plot-choice, #el-mine button, #gn-turn-over")) button.disabled = true;
  try {
    const snap = await (await fetch("/api/state", { credentials: "omit" })).json();
    render(snap);
    const over = snap.state && snap.state.outcome && seatView && snap.game_id === seatView.public.game_id;
    seatStatus(t(over ? "link_spent" : "link_gone"));
  } catch (_) {
    // the server is gone too: the message above stands
  }
  followRematch();
}

// After the end, the public board follows the table (the ending, identities revealed); when a new
// game starts, this link is tried again: a rematch takes every seat's link over, so the phone is
// its own seat again without scanning anything (another game's link stays gone).
let publicSource = null;
function followRematch() {
  if (publicSource || !window.EventSource) return;
  const ended = seatView ? seatView.public.game_id : null;
  const source = new EventSource("/api/events");
  publicSource = source;
  source.addEventListener("state", async (event) => {
    const snap = JSON.parse(event.data);
    if (document.body.dataset.seat !== "gone") return;
    render(snap);
    if (snap.game_id === null || snap.game_id === ended || snap.ending) return;
    try {
      if (!(await fetchSeat(true))) return;
    } catch (_) {
      return;  // tried again with the next snapshot
    }
    source.close();
    publicSource = null;
    connectSeat();
  });
}

// Turn cues: the phone vibrates, and chimes once its page has been touched (browsers allow sound
// only then), when its seat comes to have to act: to vote, to play its Mission card, to name a
// squad as Commandant, to move, to play its turn. Never for what it may do but need not, and
// only from what the whole table can see (whose turn, who has voted), so a cue tells nothing.
let lastCall = "";
let chimes = null;

function mustAct(view) {
  const part = runningPart(view.public);
  return !!part && !!part.mustAct && !view.public.state.outcome && part.mustAct(view);
}

function chime() {
  if (!chimes || chimes.state !== "running") return;
  const tone = chimes.createOscillator(), volume = chimes.createGain();
  tone.frequency.value = 880;
  volume.gain.setValueAtTime(0.2, chimes.currentTime);
  volume.gain.exponentialRampToValueAtTime(0.001, chimes.currentTime + 0.4);
  tone.connect(volume).connect(chimes.destination);
  tone.start();
  tone.stop(chimes.currentTime + 0.4);
}

// The call to act this seat answers now ("" for none): a new one cues, the same one again not.
function call(view) {
  if (!mustAct(view)) return "";
  const s = view.public.state;
  return JSON.stringify([view.public.game_id, s.phase, s.commander, s.mission, s.round, s.turn,
    s.to_move, s.timer && s.timer.turn, s.plot && Plot.decider(s)]);
}

function turnCue(view) {
  const now = call(view);
  if (now && now !== lastCall) {
    if (navigator.vibrate) navigator.vibrate([200, 100, 200]);
    chime();
  }
  lastCall = now;
}

document.addEventListener("pointerdown", () => {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!chimes && Context) chimes = new Context();
  if (chimes && chimes.state === "suspended") chimes.resume();
}, { once: false, passive: true });

// What A and B mean for this seat now, in the game's language (the game's decision, games.js);
// null for a button that does nothing now, and null for both when there is nothing to decide.
function decision(view) {
  const part = runningPart(view.public);
  return part && part.decision ? part.decision(view) : null;
}

function renderSeat(view) {
  seatView = view;
  turnCue(view);
  if (view.public) render(view.public);
  $("seat-name").textContent = view.name || String(view.seat + 1);
  document.body.dataset.seat = String(view.seat);
  const names = view.public.names || [];
  const name = (seat) => names[seat] || String(seat + 1);
  const mine = view.private || {};
  const identityBox = $("identity-box");
  identityBox.hidden = !("identity" in mine);
  if ("identity" in mine) {
    $("identity").textContent = mine.identity ? t("identity_" + mine.identity) : t("identity_physical");
    $("identity").dataset.side = mine.identity || "";
    const fellows = mine.fellow_cylons;
    $("fellows-box").hidden = !fellows || mine.identity !== "cylons";
    $("fellows").textContent = fellows && fellows.length ? fellows.map(name).join(", ") : t("fellow_none");
  }
  const parts = [];
  if (mine.my_vote !== undefined && mine.my_vote !== null) {
    parts.push(`${t("your_vote")}: ${t(mine.my_vote ? "yes" : "no")}`);
  }
  if (mine.my_card) parts.push(`${t("your_card")}: ${t("card_" + mine.my_card)}`);
  $("mine").textContent = parts.join(" · ");
  $("colon-hint").hidden = mine.identity !== "colons";  // why Play Fail plays Success
  const learned = mine.learned || [];
  $("learned-box").hidden = learned.length === 0;
  $("learned").replaceChildren(...learned.map((k) => {
    const who = name(k.seat);
    const text = k.identity
      ? t("learned_identity", { seat: who, side: t("identity_" + k.identity) })
      : t("learned_card", { seat: who, card: t("card_" + k.card) });
    return el("li", "learned", text);
  }));
  const secret = "identity" in mine || parts.length > 0 || learned.length > 0;
  $("reveal").hidden = !secret;
  if (!secret) Secrets.show(false);
  const [a, b] = decision(view) || [null, null];
  for (const [button, label] of [["A", a], ["B", b]]) {
    $("seat-" + button).textContent = label ? t(label) : button;
    $("seat-" + button).disabled = !label;
  }
  // the running game's own part of the seat card, and its status line (games.js, seat); the
  // other games' parts are hidden, and A and B with them where the game has no use for them
  const part = runningPart(view.public);
  for (const each of GAMES.values()) {
    if (each !== part && each.seatBox && $(each.seatBox)) $(each.seatBox).hidden = true;
  }
  document.querySelector(".seat-buttons").hidden = !!part && !part.decision;
  const said = part && part.seat ? part.seat(view, seatAct) : undefined;
  seatStatus(said !== undefined ? said : a || b || !part ? "" : t("press_wait"));
}

async function seatPost(path, body) {
  const response = await fetch(SEAT_API + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Seat-Token": SEAT_TOKEN },
    credentials: "omit",
    body: JSON.stringify(body),
  });
  let data = {};
  try {
    data = await response.json();
  } catch (_) {
    // not JSON: the status says what happened
  }
  if (response.status === 404) {
    linkGone();
    throw new Error(data.error || t("link_gone"));
  }
  if (!response.ok) throw new Error(data.error || response.statusText || String(response.status));
  return data;
}

// A seat's own action (a Le Plan card...): a refusal meant for this seat alone is shown here only.
async function seatAct(action) {
  $("seat-error").textContent = "";
  try {
    const view = await seatPost("/act", action);
    if (view.gone) linkGone();
    else renderSeat(view);
  } catch (error) {
    $("seat-error").textContent = error.message;
  }
}

function setupSeatButtons() {
  for (const button of document.querySelectorAll(".seat-press")) {
    button.addEventListener("click", async () => {
      $("seat-error").textContent = "";
      try {
        const view = await seatPost("/press", { button: button.dataset.button });
        if (view.gone) {
          if (view.public) render(view.public);
          linkGone();
        } else renderSeat(view);
      } catch (error) {
        $("seat-error").textContent = error.message;
      }
    });
  }
}

async function fetchSeat(quiet = false) {
  const response = await fetch(SEAT_API + "/state", { credentials: "omit" });
  if (response.status === 404) {
    if (!quiet) linkGone();
    return false;
  }
  if (!response.ok) throw new Error(String(response.status));
  renderSeat(await response.json());
  return true;
}

// EventSource reconnects by itself after a dropped connection; a stream that fails for good
// (the server was down, or answered 404 for a revoked link) is retried here after re-fetching
// the state, which also tells a revoked link apart from a server that is still starting.
function connectSeat() {
  if (seatSource) seatSource.close();
  const source = new EventSource(SEAT_API + "/events");
  seatSource = source;
  source.addEventListener("open", () => {
    document.body.dataset.live = "yes";
    seatStatus("");
  });
  source.addEventListener("seat", (event) => {
    const view = JSON.parse(event.data);
    if (!seatView || view.public.revision >= seatView.public.revision
        || view.public.game_id !== seatView.public.game_id || source.fresh !== false) {
      source.fresh = false;
      renderSeat(view);
    }
  });
  source.addEventListener("gone", linkGone);
  source.addEventListener("error", () => {
    document.body.dataset.live = "no";
    if (document.body.dataset.seat === "gone") return;
    seatStatus(t("reconnecting"));
    source.fresh = true;
    if (source.readyState === EventSource.CLOSED) retry();
  });
}

function retry() {
  if (retryTimer) return;
  retryTimer = setTimeout(async () => {
    retryTimer = null;
    try {
      if (await fetchSeat()) connectSeat();
    } catch (_) {
      retry();  // the server is not back yet
    }
  }, 1000);
}

setupSeatButtons();
Secrets.init();
fetchSeat().then((ok) => { if (ok) connectSeat(); }).catch(retry);
window.Seat = { act: seatAct, view: () => seatView };
