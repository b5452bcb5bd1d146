// Renders the public snapshot (GET /api/state, then the SSE stream /api/events). It only ever
// receives the public view: nothing secret reaches this page.
"use strict";

let lang = "en";
let snapshot = null;

const $ = (id) => document.getElementById(id);

// A catalog sentence: {name} is replaced by its parameter, {n|one|many} picks a word by the count
// n (one for 0 and 1 in French, for exactly 1 in English), as companion/narration/catalog.py does.
// French elides "de" and "que" before a vowel ("d'Ada"), as companion/narration/catalog.py does.
const VOWELS = "aeiouyàâäéèêëîïôöùûüÿæœ";
function t(key, params = {}) {
  let template = LABELS[lang][key] || LABELS.en[key] || key;
  if (lang === "fr" && LABELS.fr[key]) {
    template = template.replace(/(^|[^\p{L}])(de|que) \{(\w+)\}/gu, (whole, before, word, k) =>
      VOWELS.includes(String(params[k] ?? "").charAt(0).toLowerCase()) ? `${before}${word.slice(0, -1)}'{${k}}` : whole);
  }
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
  // the running game's rules summary, in the page's language (web/rules.py)
  const game = snapshot && snapshot.game;
  $("nav-rules").href = `${game ? `/rules/${encodeURIComponent(game)}` : "/rules"}?lang=${lang}`;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// TV mode (/tv): the boards' rem-sized parts (squares, circles, badges) shrink, step by step,
// until the page fits one screen; the text keeps its 32 px (web/static/table.css).
const TV_REM = [28, 26, 24, 22, 20, 18, 16];
function fitTV() {
  const root = document.documentElement;
  if (!root.classList.contains("tv")) return;
  for (const size of TV_REM) {
    root.style.fontSize = size + "px";
    if (root.scrollHeight <= window.innerHeight) return;
  }
}
window.addEventListener("resize", fitTV);

// One line saying what the table does now and how (which button, which page), for a group that
// has never played with the companion: ui.now_<game>_<phase>, none where the phase says it all.
function whatNow(snap, name) {
  const s = snap.state;
  if (!s || s.outcome) return "";
  const key = `now_${snap.game}_${s.phase}`;
  return LABELS.en[key] ? t(key, { commander: name(s.commander) }) : "";
}

// The new-game form folds away when a game starts and unfolds when none runs (the host may
// still open it): a start is never one stray click away during play.
let setupRunning;  // the game id the set-up was folded for (null: open, no game runs)
// The set-up folds away when a game starts (a new one over a running one too) and unfolds when
// it ends; in between, the host may open it.
function foldSetup(snap) {
  const running = snap.state && !snap.state.outcome ? snap.game_id : null;
  if (running === setupRunning) return;
  setupRunning = running;
  $("setup-box").open = running === null;
}

function render(snap) {
  snapshot = snap;
  // the links change with each game and are spent when it ends
  const links = `${snap.game_id}:${!!(snap.state && snap.state.outcome)}:${snap.phones}`;
  if (HOST && links !== seatLinksGame) {
    seatLinksGame = links;
    refreshSeatLinks();
  }
  // the running game's language; with none yet, the host page speaks the one chosen for it
  lang = (HOST && !snap.game && chosenLanguage()) || snap.language || "en";
  applyLabels();
  const names = snap.names || [];
  const name = (seat) => names[seat] || String(seat + 1);
  $("message").textContent = snap.message || "";
  $("what-now").textContent = whatNow(snap, name);
  if (HOST) foldSetup(snap);
  if (HOST) renderUndo(snap);
  const narration = $("narration");
  narration.replaceChildren(...[...snap.narration].reverse().map((line) => el("li", "", line)));
  BrowserVoice.follow(snap);
  requestAnimationFrame(fitTV);
  document.body.dataset.version = snap.version;
  document.body.dataset.revision = snap.revision;

  const s = snap.state;
  const part = runningPart(snap);  // the running game's part (games.js)
  document.body.dataset.game = s ? snap.game : "";
  $("waiting").hidden = !!s;
  $("waiting").textContent = s ? "" : t("waiting");
  renderEnding(snap);
  for (const each of GAMES.values()) $(each.board).hidden = each !== part;
  // the virtual button panel, for the games played with the buttons
  if ($("panel")) $("panel").hidden = !!part && !part.buttons;
  if (!part) return;
  part.render(snap);
  if (part.buttons) renderPanel(s, names);
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
    $("connection").hidden = true;
  });
  source.addEventListener("error", () => {
    document.body.dataset.live = "no";
    $("connection").textContent = t("reconnecting");  // at once, until the stream is back
    $("connection").hidden = false;
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

// Every change to the table goes through here (table.js and each game's file): a JSON POST with
// the session cookie and the CSRF token. A refusal throws its message, in the table's language
// (e.g. "log in on the host page" when the session has run out).
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
  if (!response.ok) {
    const refusal = new Error(data.error || response.statusText || String(response.status));
    refusal.status = response.status;  // what the caller may act on (409: confirm first)
    refusal.data = data;
    throw refusal;
  }
  return data;
}

// One key per click on Start: the server starts one game per key, however often it is sent.
// (crypto.randomUUID needs https; getRandomValues works on the table's plain http too.)
function requestKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The language the host chose for new games, kept across reloads (this browser's own).
const LANGUAGE_KEY = "companion-language";
function chosenLanguage() {
  try {
    const stored = window.localStorage.getItem(LANGUAGE_KEY);
    return stored && LABELS[stored] ? stored : null;
  } catch (_) {
    return null;  // storage refused (a private window): the table's language then
  }
}
function keepLanguage(value) {
  try {
    window.localStorage.setItem(LANGUAGE_KEY, value);
  } catch (_) {
    // not kept: the form still works, in the table's language after a reload
  }
}





// The end of the game: who won and why (what the narrator said), the identities the end reveals
// (digital) or the call to turn the cards over (physical), a short summary. The snapshot carries
// it only once the game is over.
function renderEnding(snap) {
  const end = snap.ending;
  $("ending").hidden = !end;
  if (!end) return;
  const said = $("ending-said");
  said.replaceChildren(...end.said.map((line) => el("p", "", line)));
  said.className = "outcome ending-said " + String(end.outcome.winner).replace(/[^\w-]/g, "-");
  $("ending-turn-over").hidden = !end.turn_over;
  $("ending-sides-box").hidden = !end.sides;
  $("ending-sides").replaceChildren(...(end.sides || []).map((side) => {
    const li = el("li", "side " + side.side);
    li.append(el("span", "name", side.name), " ", el("strong", "", side.text));
    return li;
  }));
  $("ending-summary-box").hidden = !end.summary.length;
  $("ending-summary").replaceChildren(...end.summary.map((line) => el("li", "", line)));
}

// "Play again": the same game, players, seats, options and phones, a new deal; one rematch per
// tap (the request key), whatever the network does with it.
function setupPlayAgain() {
  const button = $("play-again");
  if (!button) return;
  button.addEventListener("click", async () => {
    if (button.disabled || !snapshot || !snapshot.ending) return;
    $("play-again-error").textContent = "";
    button.disabled = true;
    try {
      render(await post("/api/games/rematch", { game_id: snapshot.game_id, request: requestKey() }));
    } catch (error) {
      $("play-again-error").textContent = error.message;
    } finally {
      button.disabled = false;
    }
  });
}

// The host's undo: the last action, when it revealed nothing and the rules let it be played
// again (the server decides, and offers it in the snapshot). The click names the offer it saw, so
// that a double click or a stale page takes back nothing more.
function renderUndo(snap) {
  const offer = snap.undo;
  $("undo-box").hidden = !offer;
  if (offer) $("undo").textContent = t("undo", { what: offer.what });
  else $("undo-error").textContent = "";
}

function setupUndo() {
  const button = $("undo");
  button.addEventListener("click", async () => {
    const offer = snapshot && snapshot.undo;
    if (button.disabled || !offer) return;
    if (!window.confirm(t("undo_confirm", { what: offer.what }))) return;
    $("undo-error").textContent = "";
    button.disabled = true;
    try {
      render(await post("/api/host/undo", { seq: offer.seq }));
    } catch (error) {
      $("undo-error").textContent = error.message;
    } finally {
      button.disabled = false;
    }
  });
}

function setupHost() {
  setupPlayAgain();
  setupUndo();
  const form = $("new-game");
  if (form) {
    const choose = () => {
      const game = form.elements.game.value;
      for (const title of GAMES.keys()) {
        const id = title + "-options", shown = game === title;
        $(id).hidden = !shown;
        $(id).disabled = !shown;  // a disabled fieldset's fields are left out of the form's data
      }
    };
    form.elements.game.addEventListener("change", choose);
    choose();
    // the names say how many play: every game's player count follows them, where it can
    const followNames = () => {
      const count = String(form.elements.names.value).split("\n").filter((n) => n.trim()).length;
      for (const select of form.querySelectorAll("select[name$='players']")) {
        if (count && [...select.options].some((option) => Number(option.value) === count)) {
          select.value = String(count);
          select.dispatchEvent(new Event("change"));
        }
      }
    };
    form.elements.names.addEventListener("input", followNames);
    const language = form.elements.language;
    language.value = chosenLanguage() || language.value;
    language.addEventListener("change", () => {
      keepLanguage(language.value);
      if (snapshot && !snapshot.game) render(snapshot);  // the form's words in that language
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const start = $("start");
      if (start.disabled) return;  // one game per click: this click's request is under way
      const data = new FormData(form);
      const names = String(data.get("names") || "").split("\n").map((n) => n.trim()).filter(Boolean);
      const game = data.get("game"), part = GAMES.get(game);
      const body = {
        game,
        language: data.get("language"),
        names,
        options: part.options(data),
        request: requestKey(),
      };
      keepLanguage(body.language);
      $("setup-error").textContent = "";
      start.disabled = true;
      try {
        try {
          render(await post("/api/games", body));
        } catch (error) {
          // a game runs: end it only if the host says so, naming it (a game started meanwhile
          // elsewhere has another id, and the server refuses again)
          if (error.status !== 409 || !error.data.running) throw error;
          if (!window.confirm(`${error.message}\n\n${t("replace_confirm", { game: error.data.running.game })}`)) return;
          render(await post("/api/games", { ...body, replace: error.data.running.id }));
        }
        if (part.started) part.started();
      } catch (error) {
        $("setup-error").textContent = error.message;
        if (part.refused) part.refused(form);
      } finally {
        start.disabled = false;
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
  for (const part of GAMES.values()) if (part.setupHost) part.setupHost();
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
    if (!window.confirm(t("redeal_confirm"))) return;  // every phone is cut off
    try {
      await refreshSeatLinks(await post("/api/host/seats/redeal", { confirm: true }));
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
  // Phones cannot reach it (this computer only, or no network): say why, never a QR code of it.
  const why = $("address-why");
  why.hidden = address.reachable !== false;
  $("address-hint").hidden = !why.hidden;
  if (why.hidden) {
    delete why.dataset.label;
    why.textContent = "";
  } else {
    why.dataset.label = address.why_label;  // follows the table's language (applyLabels)
    why.textContent = t(address.why_label);
  }
  $("address-qr").innerHTML = address.qr_svg || "";  // segno's SVG of address.url
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

// The narration spoken by this browser's own voices (the Web Speech API), for a table whose
// companion has no speaker, or a laptop in simulation: a toggle under the narration, kept across
// reloads. Only the lines that appear after it is turned on are spoken, in the game's language.
const BrowserVoice = (() => {
  const KEY = "companion-speak-here";
  let on = false;
  let heard = null;  // the narration as last rendered: what came after it is new
  let game = null;

  function stored() {
    try {
      return window.localStorage.getItem(KEY) === "yes";
    } catch (_) {
      return false;
    }
  }
  function keep(value) {
    try {
      window.localStorage.setItem(KEY, value ? "yes" : "no");
    } catch (_) {
      // not kept: it stays on for this visit
    }
  }
  // The lines of ``now`` after the longest tail of ``before`` that it starts with (the page
  // keeps the last lines only, so the oldest fall off the front).
  function fresh(before, now) {
    for (let overlap = Math.min(before.length, now.length); overlap > 0; overlap--) {
      const tail = before.slice(before.length - overlap);
      if (tail.every((line, i) => line === now[i])) return now.slice(overlap);
    }
    return now;
  }
  function speak(lines, language) {
    for (const line of lines) {
      const utterance = new SpeechSynthesisUtterance(line);
      utterance.lang = language === "fr" ? "fr-FR" : "en-GB";
      window.speechSynthesis.speak(utterance);
    }
  }
  function show() {
    const button = $("speak-here");
    button.setAttribute("aria-pressed", String(on));
    button.textContent = t(on ? "speak_here_on" : "speak_here");
  }
  function setup() {
    const button = $("speak-here");
    if (!("speechSynthesis" in window)) {
      button.hidden = true;
      return;
    }
    on = stored();
    button.hidden = false;
    button.addEventListener("click", () => {
      on = !on;
      keep(on);
      if (!on) window.speechSynthesis.cancel();
      show();
    });
    show();
  }
  function follow(snap) {
    const lines = [...snap.narration];
    const newGame = game !== null && snap.game_id !== game;
    if (on && heard !== null) speak(newGame ? lines : fresh(heard, lines), snap.language || lang);
    heard = lines;
    game = snap.game_id;
    if ($("speak-here") && "speechSynthesis" in window) show();
  }
  return { setup, follow };
})();

// A page with a seat's token (seat.js) fetches and follows that seat's own view instead.
BrowserVoice.setup();
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
