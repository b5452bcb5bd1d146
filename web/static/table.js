// Renders the public snapshot (GET /api/state, then the SSE stream /api/events). It only ever
// receives the public view: nothing secret reaches this page.
"use strict";

let lang = "en";
let snapshot = null;

const $ = (id) => document.getElementById(id);

// A catalog sentence: {name} is replaced by its parameter, {n|one|many} picks a word by the count
// n (one for 0 and 1 in French, for exactly 1 in English), as companion/narration/catalog.py does.
function t(key, params = {}) {
  const template = LABELS[lang][key] || LABELS.en[key] || key;
  return template
    .replace(/\{(\w+)\|([^|{}]*)\|([^|{}]*)\}/g, (_, k, one, many) => {
      const n = Number(params[k]);
      return (lang === "fr" ? n === 0 || n === 1 : n === 1) ? one : many;
    })
    .replace(/\{(\w+)\}/g, (_, k) => (k in params ? params[k] : ""));
}

function applyLabels() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-label]")) el.textContent = t(el.dataset.label);
  document.title = t("title");
  $("title").textContent = t("title");
  $("nav-table").textContent = t("public_page");
  $("nav-host").textContent = t("host_page");
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function render(snap) {
  snapshot = snap;
  // the links change with each game and are spent when it ends
  const links = `${snap.game_id}:${!!(snap.state && snap.state.outcome)}:${snap.phones}`;
  if (HOST && links !== seatLinksGame) {
    seatLinksGame = links;
    refreshSeatLinks();
  }
  lang = snap.language || "en";
  applyLabels();
  const names = snap.names || [];
  const name = (seat) => names[seat] || String(seat + 1);
  $("message").textContent = snap.message || "";
  const narration = $("narration");
  narration.replaceChildren(...[...snap.narration].reverse().map((line) => el("li", "", line)));
  document.body.dataset.version = snap.version;
  document.body.dataset.revision = snap.revision;

  const s = snap.state;
  const oraklos = !!s && snap.game === "oraklos";
  const ostrakon = !!s && snap.game === "ostrakon";
  const eleusis = !!s && snap.game === "eleusis";
  const sages = !!s && snap.game === "sages";
  const night = !!s && snap.game === "night";
  document.body.dataset.game = s ? snap.game : "";
  $("waiting").hidden = !!s;
  $("waiting").textContent = s ? "" : t("waiting");
  $("game").hidden = !s || oraklos || ostrakon || eleusis || sages || night;
  $("oraklos").hidden = !oraklos;
  $("ostrakon").hidden = !ostrakon;
  $("eleusis").hidden = !eleusis;
  $("sages").hidden = !sages;
  $("night").hidden = !night;
  // Oraklos, Eleusis and Les 7 Sages are played on the pages, not the buttons
  if ($("panel")) $("panel").hidden = oraklos || eleusis || sages;
  if (!s) return;
  if (oraklos) {
    renderOraklos(snap);
    return;
  }
  if (eleusis) {
    Eleusis.render(snap);
    return;
  }
  if (sages) {
    Sages.render(snap);
    return;
  }
  if (night) {
    Night.render(snap);
    renderPanel(s, names);
    return;
  }
  if (ostrakon) {
    Ostrakon.render(snap);
    renderPanel(s, names);
    return;
  }
  renderResistance(snap, s, name);
}

function renderResistance(snap, s, name) {
  const names = snap.names || [];
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
  renderPanel(s, names);
}

// The host page's virtual button panel (simulation): the players' names, only this game's seats.
function renderPanel(s, names) {
  for (const label of document.querySelectorAll(".seat-name")) {
    const seat = Number(label.dataset.seat);
    label.textContent = names[seat] || String(seat + 1);
  }
  for (const row of document.querySelectorAll(".panel li")) {
    row.hidden = Number(row.dataset.seat) >= s.players;  // seats left out of this game
  }
  if (HOST) refreshLeds();
}

async function refreshLeds() {
  const response = await fetch("/api/panel");
  const panel = await response.json();
  panel.leds.forEach((lit, seat) => {
    const led = $("led-" + seat);
    if (led) {
      led.classList.toggle("lit", lit === true);
      led.classList.toggle("none", lit === null);
      led.title = lit ? t("led_on") : "";
    }
  });
}

// The first message of every (re)connection is the server's current snapshot: it is rendered
// whatever its revision, since a restarted server (a resumed game) counts revisions from zero.
function connect() {
  const source = new EventSource("/api/events");
  let fresh = true;
  source.addEventListener("open", () => {
    fresh = true;
    document.body.dataset.live = "yes";
  });
  source.addEventListener("error", () => {
    document.body.dataset.live = "no";
    // EventSource gives up on an answer other than a stream, e.g. a 503 when too many live
    // pages are open (web/sse.py): try again a little later
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  source.addEventListener("state", (event) => {
    const snap = JSON.parse(event.data);
    if (fresh || !snapshot || snap.revision >= snapshot.revision || snap.game_id !== snapshot.game_id) {
      fresh = false;
      render(snap);
    }
  });
}

// The host page's CSRF token (docs/SECURITY.md): every POST carries it, or the server refuses it.
const CSRF = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

// Every change to the table goes through here (table.js, oraklos.js, ostrakon.js, eleusis.js,
// sages.js, night.js): a JSON POST with the session cookie and the CSRF token. A refusal throws its
// message, in the table's language (e.g. "log in on the host page" when the session has run out).
async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
    credentials: "same-origin",
    body: JSON.stringify(body),
  });
  let data = {};
  try {
    data = await response.json();
  } catch (_) {
    // not JSON (a proxy's error page): the status text says what happened
  }
  if (!response.ok) throw new Error(data.error || response.statusText || String(response.status));
  return data;
}

function resistanceOptions(data) {
  return {
    players: Number(data.get("players")),
    first_commander: Number(data.get("first_commander")) - 1,
    targeting: data.get("targeting") === "on",
    isolated_cylons: data.get("isolated_cylons") === "on",
    identities: data.get("identities"),
    plot: data.get("plot") === "on",
    ...plotDeck(data),
  };
}

// Under 7 players Le Plan uses the later edition's seven cards, or all fifteen if the host says so.
function plotDeck(data) {
  const deck = String(data.get("plot_deck") || "small");
  return data.get("plot") === "on" && Number(data.get("players")) < 7 && deck !== "small"
    ? { plot_deck: deck.split(" ") } : {};
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

function oraklosOptions(data) {
  return {
    players: Number(data.get("oraklos_players")),
    mode: data.get("mode"),
    first_player: Number(data.get("first_player")) - 1,
    deck: data.get("deck"),
    fills: data.get("fills"),
    claims: data.get("claims"),
    either_direction: data.get("either_direction") === "on",
  };
}

// Votes by the seat buttons (the default, sent as nothing) or read from the tessons by the camera.
function ostrakonOptions(data) {
  const options = { players: Number(data.get("ostrakon_players")) };
  if (data.get("votes") === "camera") options.votes = "camera";
  return options;
}

const GAME_OPTIONS = {
  resistance: resistanceOptions,
  oraklos: oraklosOptions,
  ostrakon: ostrakonOptions,
  eleusis: (data) => Eleusis.options(data),
  sages: (data) => Sages.options(data),
  night: (data) => Night.options(data),
};

function setupHost() {
  const form = $("new-game");
  if (form) {
    const choose = () => {
      const game = form.elements.game.value;
      for (const title of Object.keys(GAME_OPTIONS)) {
        const id = title + "-options", shown = game === title;
        $(id).hidden = !shown;
        $(id).disabled = !shown;  // a disabled fieldset's fields are left out of the form's data
      }
    };
    form.elements.game.addEventListener("change", choose);
    choose();
    const plotDeckShown = () => {  // the deck is chosen only for Le Plan under 7 players
      $("plot-deck-box").hidden = !form.elements.plot.checked || Number(form.elements.players.value) >= 7;
    };
    form.elements.plot.addEventListener("change", plotDeckShown);
    form.elements.players.addEventListener("change", plotDeckShown);
    plotDeckShown();
    const mode = () => {  // the cup is filled only in the standard game
      form.elements.fills.closest("label").hidden = form.elements.mode.value !== "standard";
    };
    form.elements.mode.addEventListener("change", mode);
    mode();
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const names = String(data.get("names") || "").split("\n").map((n) => n.trim()).filter(Boolean);
      const game = data.get("game");
      $("setup-error").textContent = "";
      try {
        render(await post("/api/games", {
          game,
          language: data.get("language"),
          names,
          options: (GAME_OPTIONS[game] || resistanceOptions)(data),
        }));
        if (game === "eleusis") Eleusis.started();  // the secret rule leaves the page
      } catch (error) {
        $("setup-error").textContent = error.message;
        if (game === "eleusis") Eleusis.refused(form);
      }
    });
  }
  for (const button of document.querySelectorAll("button.press")) {
    button.addEventListener("click", async () => {
      try {
        await post("/api/press", { seat: Number(button.dataset.seat), button: button.dataset.button });
      } catch (error) {
        $("message").textContent = error.message;
      }
    });
  }
  setupOraklosHost();
  Ostrakon.setupHost();
  Eleusis.setupHost();
  Sages.setupHost();
  Night.setupHost();
}

// The host's seat links: one QR code per seat of the running game, and "re-deal links".
async function refreshSeatLinks(seats) {
  const list = $("seat-qr");
  if (!list) return;
  if (!seats) {
    const response = await fetch("/api/host/seats", { credentials: "same-origin" });
    if (!response.ok) return;
    seats = await response.json();
  }
  // A seat's code is shown until its phone opens it; then only "opened", and "New link".
  list.replaceChildren(...seats.map((s) => {
    const li = el("li", "seat-link");
    li.dataset.seat = s.seat;
    if (s.opened) {
      li.classList.add("opened");
      li.append(el("strong", "", s.name), el("span", "hint", t("link_opened")));
    } else {
      const link = el("a", "", s.name);
      link.href = s.url;
      const code = el("div", "qr");
      code.innerHTML = s.qr_svg;  // segno's SVG, made by the server from the link
      li.append(code, link);
    }
    const again = el("button", "new-link", t("new_link"));
    again.type = "button";
    again.addEventListener("click", async () => {
      $("seat-links-error").textContent = "";
      if (!window.confirm(t("new_link_confirm", { name: s.name }))) return;
      try {
        await refreshSeatLinks(await post(`/api/host/seats/${s.seat}/redeal`, {}));
      } catch (error) {
        $("seat-links-error").textContent = error.message;
      }
    });
    li.append(again);
    return li;
  }));
  const spent = !seats.length && snapshot && snapshot.state;
  $("seat-links-spent").hidden = !spent;
  $("redeal").hidden = !!spent;
}

let seatLinksGame = null;

function setupLogoutOthers() {
  const button = $("log-out-others");
  if (!button) return;
  button.addEventListener("click", async () => {
    try {
      $("logout-others-result").textContent = (await post("/api/host/logout-others", {})).text;
    } catch (error) {
      $("logout-others-result").textContent = error.message;
    }
  });
}

function setupSeatLinks() {
  const button = $("redeal");
  if (!button) return;
  button.addEventListener("click", async () => {
    $("seat-links-error").textContent = "";
    try {
      await refreshSeatLinks(await post("/api/host/seats/redeal", {}));
    } catch (error) {
      $("seat-links-error").textContent = error.message;
    }
  });
}

// Where phones open the page: a QR code of its address, and the addresses as links.
async function showAddress() {
  const response = await fetch("/api/host/address", { credentials: "same-origin" });
  if (!response.ok) return;
  const address = await response.json();
  $("address-qr").innerHTML = address.qr_svg;  // segno's SVG of address.url
  $("address-links").replaceChildren(...address.urls.map((url) => {
    const link = el("a", "", url);
    link.href = url;
    const li = el("li", "");
    li.append(link);
    return li;
  }));
}

// Shut down: the game is saved; the companion stops and powers the computer off.
function setupPower() {
  $("power-off").addEventListener("click", async () => {
    if (!window.confirm(t("power_off_confirm"))) return;
    try {
      await post("/api/power/off", { confirm: true });
      $("power-status").textContent = t("power_off_sent");
      $("power-off").disabled = true;
    } catch (error) {
      $("power-status").textContent = error.message;
    }
  });
}

// A page with a seat's token (seat.js) fetches and follows that seat's own view instead.
if (!SEAT_TOKEN) {
  fetch("/api/state").then((r) => r.json()).then((snap) => {
    render(snap);
    connect();
  });
}
if (HOST) {
  setupHost();
  setupSeatLinks();
  setupLogoutOthers();
  setupPower();
  showAddress();
}
