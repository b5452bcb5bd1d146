// Game night on the page (docs/GAME_NIGHT.md): the companion's four table tools, one screen each,
// in big type for a table: the dice (the camera's picture with each die outlined and its value, the
// values and the total, the history, the statistics of the evening's dice), the turn timer (whose
// turn, the countdown, the order of play), the score pad and "who starts".
//
// Everything shown comes from the public view (Night.public_view): nothing is secret at game night.
// The page shows the screen of the tool the table used last (``state.screen``) each time the state
// changes; a tab switches this page alone, and on the host page also turns the table's display.
// The countdown is worked out here from the snapshot's ``hourglass.ends_at`` and ticks on its own:
// the server sends nothing while the sand runs. The helpers $, t, el, post, render and lang come
// from table.js, and seatAct from seat.js on a phone: they are only looked up when a function here
// runs. Everything is inside one function so that no name clashes with the other games' files.
"use strict";

const Night = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const SCREENS = ["dice", "timer", "scores", "starter"];
  const FACES = [1, 2, 3, 4, 5, 6];
  const PIPS = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
  const URGENT = 10;  // seconds left from which the countdown turns red

  let snap = null;  // the snapshot last drawn, for the handlers
  // What this page alone holds: the screen it shows, the die being corrected, the players ticked
  // for "who starts", the last pick already put in the timer's first-player box, whether the
  // turn length was filled in this evening.
  const local = {
    game: null, key: "", screen: "dice", chosen: null, among: null, pickShown: 0, secondsFilled: false,
  };
  let ticker = null;
  let sand = null;  // the countdown running: {key, end} on this page's monotonic clock

  // -- small helpers --------------------------------------------------------------------------------

  function svg(tag, attrs = {}, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function name(seat) {
    const names = (snap && snap.names) || [];
    return names[seat] || t("seat_number", { number: seat + 1 });
  }

  function nameList(seats) {
    const names = seats.map(name);
    return names.length > 1 ? names.slice(0, -1).join(", ") + " " + t("and") + " " + names.at(-1) : names[0] || "";
  }

  function colorWord(color) {
    return t("gn_color_" + (color || "unknown"));
  }

  function number(value, digits) {
    return Number(value).toLocaleString(lang === "fr" ? "fr-FR" : "en-GB", {
      minimumFractionDigits: digits, maximumFractionDigits: digits,
    });
  }

  // 75 -> "1:15", 9 -> "0:09"
  function clock(seconds) {
    const whole = Math.max(0, Math.ceil(seconds));
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  }

  // Whole seconds as the companion says them (Python's round: halves to even), at least 1.
  function said(seconds) {
    let whole = Math.round(seconds);
    if (Math.abs(seconds % 1) === 0.5 && whole % 2 !== 0) whole -= 1;
    return Math.max(1, whole);
  }

  function button(label, cls, onClick) {
    const node = el("button", cls || "", label);
    node.type = "button";
    node.addEventListener("click", onClick);
    return node;
  }

  function closed() {
    return !snap || !snap.state || snap.state.closed;
  }

  // -- drawing --------------------------------------------------------------------------------------

  function render(current) {
    const s = current.state;
    if (current.game_id !== local.game) {  // a new evening: nothing of the last one is kept
      local.game = current.game_id;
      local.key = "";
      local.among = null;
      local.pickShown = 0;
      local.chosen = null;
      if (HOST && $("gn-among")) {
        $("gn-among").dataset.names = "";  // ticked afresh: everyone
        local.secondsFilled = false;  // the new evening's turn length, filled in afresh
      }
    }
    snap = current;
    const key = `${current.game_id}/${current.version}`;
    if (key !== local.key) {
      local.key = key;
      // the page follows the tool just used, unless the host is typing in this screen
      if (!(HOST && typing())) local.screen = s.screen;
    }
    const last = s.dice.last;
    if (local.chosen && (!last || last.number !== local.chosen.number || local.chosen.index >= last.dice.length)) {
      local.chosen = null;
    }
    renderTabs(s);
    renderClosed(s);
    renderDice(s);
    renderTimer(s);
    renderScores(s);
    renderStarter(s);
    tick();
  }

  // A text field of the screen shown has the focus (a score, the seconds, typed dice).
  function typing() {
    const focused = document.activeElement;
    const screen = $("gn-" + local.screen);
    const field = !!focused && focused.tagName === "INPUT" && ["text", "number"].includes(focused.type);
    return field && !!screen && screen.contains(focused);
  }

  function renderTabs(s) {
    $("night").dataset.screen = local.screen;
    for (const screen of SCREENS) {
      const tab = $("gn-tab-" + screen);
      const shown = screen === local.screen;
      tab.classList.toggle("current", shown);
      tab.setAttribute("aria-selected", shown ? "true" : "false");
      tab.classList.toggle("table-shows", screen === s.screen);
      $("gn-" + screen).hidden = !shown;
    }
  }

  function renderClosed(s) {
    const box = $("gn-closed");
    box.hidden = !s.closed;
    $("night").classList.toggle("closed", s.closed);
    for (const panel of document.querySelectorAll("#night .gn-host")) {
      if (panel.id !== "gn-chooser") panel.hidden = s.closed;
    }
    if (!s.closed) return;
    const sc = s.scores;
    box.textContent = t("gn_evening_over") + (sc.leaders.length ? " " + leaderText(sc) : "");
  }

  // -- the dice ---------------------------------------------------------------------------------------

  function renderDice(s) {
    const dice = s.dice, last = dice.last;
    const values = $("gn-values");
    values.replaceChildren(...(last ? last.dice : []).map((die, i) => {
      const cls = ["gn-value", die.color || "", die.rolled ? "" : "kept", die.flagged ? "flagged" : "",
        local.chosen && local.chosen.index === i ? "chosen" : ""].join(" ").replace(/\s+/g, " ").trim();
      const text = String(die.value) + (die.flagged ? "?" : "");
      const chip = HOST && !s.closed ? button(text, cls, () => choose(i)) : el("span", cls, text);
      chip.dataset.index = i;
      chip.dataset.value = die.value;
      chip.title = dieLabel(die, i);
      return chip;
    }));
    const total = $("gn-total");
    total.textContent = last ? String(last.total) : "–";
    total.dataset.total = last ? String(last.total) : "";
    $("gn-throw-line").textContent = last ? throwLine(last) : t("gn_no_throw");
    const groups = $("gn-by-color");
    groups.hidden = !(dice.by_color && last);
    groups.replaceChildren(...(dice.by_color && last ? last.by_color : []).map((group) => {
      const li = el("li", "gn-group " + group.color);
      li.dataset.color = group.color;
      li.append(el("span", "gn-swatch " + group.color), el("span", "gn-group-name", colorWord(group.color)));
      if (group.values.length > 1) li.append(el("span", "gn-group-values", group.values.join(" + ") + " ="));
      li.append(el("strong", "gn-group-total", String(group.total)));
      return li;
    }));
    renderPicture(s);
    if (HOST) renderChooser(s);
    $("gn-history-empty").hidden = dice.history.length > 0;
    $("gn-history").replaceChildren(...[...dice.history].reverse().map((thrown) => {
      const li = el("li", "gn-past");
      li.dataset.number = thrown.number;
      li.append(el("span", "gn-past-number", t("gn_throw_number", { number: thrown.number })),
        el("span", "gn-past-values", thrown.values.join(" ")), el("strong", "gn-past-total", String(thrown.total)));
      return li;
    }));
    $("gn-stats").replaceChildren(histogram(dice.stats, "all"));
    const colors = Object.entries(dice.stats_by_color || {});
    $("gn-stats-colors-box").hidden = !colors.length;
    $("gn-stats-colors").replaceChildren(...colors.map(([color, stats]) => {
      const box = el("div", "gn-color-stats " + color);
      box.append(el("h3", "", colorWord(color)), histogram(stats, color));
      return box;
    }));
    if (HOST) {
      const toggle = $("gn-by-color-toggle");
      if (document.activeElement !== toggle) toggle.checked = dice.by_color;
    }
  }

  function throwLine(last) {
    const kept = last.dice.length - last.rolled;
    const line = t("gn_throw_line", { number: last.number, n: last.dice.length });
    return kept ? line + " " + t("gn_rerolled", { rolled: last.rolled, kept }) : line;
  }

  function dieLabel(die, i) {
    const parts = [t("gn_die_label", { number: i + 1, value: die.value })];
    if (die.color) parts.push(colorWord(die.color));
    if (!die.rolled) parts.push(t("gn_kept_die"));
    if (die.flagged) parts.push(t("gn_unsure"));
    return parts.join(", ");
  }

  // Where the overlay's units come from: the camera's picture of this throw (pixels: table units
  // times its scale), or with no picture the dice's own extent on a plain table.
  function frameOf(s) {
    const last = s.dice.last;
    const pic = snap.picture;
    const placed = last ? last.dice.filter((d) => d.x !== null && d.y !== null && d.size !== null) : [];
    if (pic && pic.width && pic.height && last && (pic.throw === undefined || pic.throw === last.number)) {
      return { x: 0, y: 0, width: pic.width, height: pic.height, scale: pic.scale || 1, url: pic.url };
    }
    if (!placed.length) return null;
    const size = Math.max(...placed.map((d) => d.size));
    const xs = placed.map((d) => d.x), ys = placed.map((d) => d.y);
    const x = Math.min(...xs) - 1.5 * size, y = Math.min(...ys) - 1.5 * size;
    return {
      x, y, width: Math.max(...xs) + 1.5 * size - x, height: Math.max(...ys) + 1.5 * size - y, scale: 1, url: null,
    };
  }

  function renderPicture(s) {
    const last = s.dice.last;
    const frame = last ? frameOf(s) : null;
    const figure = $("gn-throw");
    figure.hidden = !frame;
    if (!frame) return;
    const img = $("gn-picture");
    img.hidden = !frame.url;
    if (frame.url && img.getAttribute("src") !== frame.url) img.src = frame.url;
    img.alt = t("gn_picture_alt", { n: last.dice.length });
    const box = $("gn-frame");
    box.style.aspectRatio = `${frame.width} / ${frame.height}`;
    figure.style.maxWidth = `min(100%, calc(70vh * ${frame.width / frame.height}))`;  // all of it in view
    box.classList.toggle("plain-table", !frame.url);
    frame.pxPerUnit = box.clientWidth / frame.width || 1;
    const overlay = $("gn-overlay");
    overlay.setAttribute("viewBox", `${frame.x} ${frame.y} ${frame.width} ${frame.height}`);
    overlay.dataset.scale = frame.scale;
    overlay.dataset.picture = frame.url ? "yes" : "no";
    overlay.replaceChildren(...last.dice.map((die, i) => dieShape(die, i, frame, s)).filter(Boolean));
    const flagged = last.dice.filter((d) => d.flagged).length;
    const parts = [];
    if (flagged) parts.push(t("gn_flagged", { n: flagged }));
    if (HOST && !s.closed) parts.push(t("gn_tap_to_correct"));
    $("gn-caption").textContent = parts.join(" ");
  }

  // A die outlined (a square turned as the die lies, a little outside it so the real die stays
  // visible), its value written beside it; "?" and the warning colour when the camera is unsure,
  // dimmer when it was kept from the throw before.
  function dieShape(die, i, frame, s) {
    if (die.x === null || die.y === null || die.size === null) return null;
    const side = die.size * frame.scale;
    const cx = die.x * frame.scale, cy = die.y * frame.scale;
    const chosen = !!local.chosen && local.chosen.index === i;
    const g = svg("g", {
      class: ["gn-die", die.color || "", die.flagged ? "flagged" : "", die.rolled ? "" : "kept", chosen ? "chosen" : ""]
        .join(" ").replace(/\s+/g, " ").trim(),
      transform: `translate(${cx} ${cy})`,
      "data-index": i,
      "data-value": die.value,
      "data-x": cx,
      "data-y": cy,
    });
    g.append(svg("title", {}, dieLabel(die, i)));
    if (HOST && !s.closed) {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", dieLabel(die, i));
      g.addEventListener("click", () => choose(i));
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          choose(i);
        }
      });
    }
    const ring = side * 0.62;
    const square = svg("g", { transform: `rotate(${die.angle || 0})` });
    square.append(
      svg("rect", { class: "gn-hit", x: -ring * 1.2, y: -ring * 1.2, width: ring * 2.4, height: ring * 2.4 }),
      svg("rect", { class: "gn-halo", x: -ring, y: -ring, width: 2 * ring, height: 2 * ring }),
      svg("rect", { class: "gn-outline", x: -ring, y: -ring, width: 2 * ring, height: 2 * ring }),
    );
    g.append(square);
    const font = Math.min(Math.max(side * 0.9, 26 / frame.pxPerUnit), 64 / frame.pxPerUnit);  // 26 to 64 px on screen
    const corner = ring * Math.SQRT2;
    g.append(svg("text", { class: "gn-die-value", "font-size": font, x: corner * 0.9, y: -corner * 0.8 },
      String(die.value) + (die.flagged ? "?" : "")));
    return g;
  }

  // The host corrects a die of the last throw: the chooser of its true value.
  function choose(index) {
    const last = snap && snap.state.dice.last;
    if (!HOST || !last || closed()) return;
    const same = local.chosen && local.chosen.index === index;
    local.chosen = same ? null : { number: last.number, index };
    $("gn-dice-error").textContent = "";
    render(snap);
    if (!same) $("gn-set-" + last.dice[index].value).focus();
  }

  function renderChooser(s) {
    const box = $("gn-chooser");
    const last = s.dice.last;
    const chosen = local.chosen && last && !s.closed ? last.dice[local.chosen.index] : null;
    box.hidden = !chosen;
    if (!chosen) return;
    box.dataset.index = local.chosen.index;
    $("gn-chooser-title").textContent = t("gn_correct_title", { number: local.chosen.index + 1, value: chosen.value });
    for (const face of FACES) $("gn-set-" + face).classList.toggle("current", face === chosen.value);
  }

  // A histogram of the faces, the line of what fair dice would give, the figures and the verdict.
  function histogram(stats, color) {
    const box = el("div", "gn-hist");
    box.dataset.color = color;
    box.dataset.dice = stats.dice;
    const top = Math.max(...stats.faces, stats.expected, 1) * 1.15;
    const plot = el("div", "gn-plot");
    FACES.forEach((face, i) => {
      const count = stats.faces[i];
      const column = el("div", "gn-column");
      const bar = el("div", "gn-bar");
      bar.style.height = `${(count / top) * 100}%`;
      bar.dataset.face = face;
      bar.dataset.count = count;
      bar.title = t("gn_face_count", { face, n: count });
      column.append(el("span", "gn-count", String(count)), bar);
      plot.append(column);
    });
    if (stats.dice) {
      const expected = el("div", "gn-expected");
      expected.style.bottom = `${(stats.expected / top) * 100}%`;
      expected.title = t("gn_expected", { n: number(stats.expected, 1) });
      plot.append(expected);
    }
    const faces = el("div", "gn-faces");
    FACES.forEach((face) => faces.append(el("span", "gn-face", `${PIPS[face]} ${face}`)));
    const figures = el("p", "gn-figures");
    const parts = [t("gn_stat_dice", { n: stats.dice })];
    if (stats.mean !== null) parts.push(t("gn_stat_mean", { mean: number(stats.mean, 2) }));
    if (stats.chi2 !== null) parts.push(t("gn_stat_chi2", { chi2: number(stats.chi2, 2) }));
    if (stats.p !== null) parts.push(t("gn_stat_p", { p: stats.p < 0.001 ? "< " + number(0.001, 3) : number(stats.p, 3) }));
    figures.textContent = parts.join(" · ");
    const verdict = el("p", "gn-verdict " + stats.verdict, t("gn_verdict_" + stats.verdict));
    verdict.dataset.verdict = stats.verdict;
    box.append(plot, faces, figures, verdict);
    return box;
  }

  // -- the turn timer -----------------------------------------------------------------------------------

  function renderTimer(s) {
    const timer = s.timer;
    const turn = $("gn-turn");
    turn.textContent = timer ? name(timer.turn) : "–";
    turn.dataset.seat = timer ? String(timer.turn) : "";
    const state = $("gn-timer-state");
    state.classList.toggle("paused", !!timer && timer.paused);
    if (!timer) state.textContent = t("gn_no_timer");
    else if (timer.paused) state.textContent = t("gn_paused_left", { seconds: said(timer.left || 0) });
    else state.textContent = t("gn_next", { player: name(timer.next) });
    $("gn-order").replaceChildren(...Array.from({ length: s.players }, (_, seat) => {
      const li = el("li", "gn-seat", name(seat));
      li.dataset.seat = seat;
      if (timer && seat === timer.turn) li.classList.add("current");
      if (timer && seat === timer.next && timer.next !== timer.turn) {
        li.classList.add("next");
        li.append(el("span", "badge", t("gn_next_badge")));
      }
      return li;
    }));
    if (HOST) renderTimerControls(s);
  }

  function renderTimerControls(s) {
    const timer = s.timer;
    for (const id of ["gn-pass", "gn-stop"]) $(id).hidden = !timer;
    $("gn-pass").disabled = !timer || timer.paused;
    $("gn-pause").hidden = !timer || timer.paused;
    $("gn-resume").hidden = !timer || !timer.paused;
    const seconds = $("gn-seconds");
    if (!local.secondsFilled) {  // once an evening: news never overwrites what the host is typing
      seconds.value = String(timer ? timer.seconds : s.options.turn_seconds);
      local.secondsFilled = true;
    }
    const first = $("gn-first");
    const wanted = Array.from({ length: s.players }, (_, seat) => name(seat)).join("\n");
    if (first.dataset.names !== wanted) {
      const keep = first.value;
      first.replaceChildren(...Array.from({ length: s.players }, (_, seat) => {
        const option = el("option", "", name(seat));
        option.value = seat;
        return option;
      }));
      first.dataset.names = wanted;
      if (keep !== "" && Number(keep) < s.players) first.value = keep;
    }
    const pick = s.picks.at(-1);
    if (pick && pick.number !== local.pickShown && document.activeElement !== first) {
      local.pickShown = pick.number;  // "who starts" just chose: they start the timer too
      first.value = String(pick.seat);
    }
  }

  // The countdown, by this page's clock: started from the snapshot's ends_at when a new countdown
  // arrives (or from its full length if this device's clock disagrees with the companion's).
  function secondsLeft(glass) {
    const key = `${local.game}/${glass.seat}/${glass.ends_at}`;
    if (!sand || sand.key !== key) {
      let left = glass.ends_at - Date.now() / 1000;
      if (left > glass.seconds + 2 || left < -2) left = glass.seconds;
      sand = { key, end: performance.now() / 1000 + Math.min(left, glass.seconds) };
    }
    return Math.max(0, sand.end - performance.now() / 1000);
  }

  function tick() {
    const current = snapshot;  // table.js's: the game may have changed since this was drawn
    const s = current && current.game === "night" ? current.state : null;
    const timer = s && !s.closed ? s.timer : null;
    const box = $("gn-countdown");
    const glass = timer && !timer.paused ? current.hourglass : null;
    if (!glass) {
      if (ticker) clearInterval(ticker);
      ticker = null;
      sand = null;
      const left = timer && timer.paused ? said(timer.left || 0) : null;
      box.textContent = left === null ? "" : clock(left);
      box.dataset.left = left === null ? "" : String(left);
      box.classList.toggle("paused", left !== null);
      box.classList.remove("urgent");
      box.hidden = left === null;
      return;
    }
    const left = secondsLeft(glass);
    box.hidden = false;
    box.textContent = clock(left);
    box.dataset.left = String(Math.ceil(left));
    box.dataset.seat = String(glass.seat);
    box.classList.remove("paused");
    box.classList.toggle("urgent", left <= URGENT);
    if (!ticker) ticker = setInterval(tick, 250);
  }

  // -- the score pad -------------------------------------------------------------------------------------

  function leaderText(sc) {
    const total = sc.totals[sc.leaders[0]];
    if (sc.leaders.length === 1) return t("gn_leader", { player: name(sc.leaders[0]), total });
    return t("gn_leaders", { players: nameList(sc.leaders), total });
  }

  function renderScores(s) {
    const sc = s.scores;
    const leader = $("gn-leader");
    leader.textContent = sc.leaders.length ? leaderText(sc) : t("gn_no_scores");
    leader.dataset.leaders = sc.leaders.join(" ");
    leader.classList.toggle("none", !sc.leaders.length);
    $("gn-low-wins").textContent = sc.low_wins ? t("gn_low_wins") : "";
    const lead = new Set(sc.leaders);
    const head = [el("th", "gn-round-head", t("gn_round"))];
    for (let seat = 0; seat < s.players; seat++) {
      const th = el("th", "gn-player" + (lead.has(seat) ? " gn-lead" : ""), name(seat));
      th.scope = "col";
      th.dataset.seat = seat;
      head.push(th);
    }
    $("gn-pad-head").replaceChildren(...head);
    $("gn-pad").style.minWidth = `${5.5 + 4 * s.players}rem`;  // many players: the pad scrolls
    const editable = HOST && !s.closed;
    const rows = editable ? [...sc.rounds, Array(s.players).fill(null)] : sc.rounds;
    // The cells are rebuilt only when the pad changes shape (a round opened or rubbed out): an
    // input being typed in keeps its focus and what was typed there.
    const body = $("gn-pad-body");
    const shape = JSON.stringify([s.players, head.map((th) => th.textContent), sc.rounds.length, editable, lang]);
    if (body.dataset.shape !== shape) {
      body.dataset.shape = shape;
      const focused = document.activeElement;
      const typed = focused && focused.classList && focused.classList.contains("gn-cell") ? {
        id: focused.id, value: focused.value, changed: focused.value !== focused.dataset.value,
        start: focused.selectionStart, end: focused.selectionEnd,
      } : null;
      body.replaceChildren(...rows.map((row, r) => padRow(s, r, editable && r === sc.rounds.length)));
      const input = typed && $(typed.id);
      if (input && input.tagName === "INPUT") {
        if (typed.changed) input.value = typed.value;
        input.focus();
        input.setSelectionRange(typed.start, typed.end);
      }
    }
    rows.forEach((row, r) => row.forEach((points, seat) => {
      const cell = $(`gn-cell-${r}-${seat}`);
      if (!cell) return;
      fillCell(cell, points === null ? "" : String(points));
      (cell.tagName === "INPUT" ? cell.parentElement : cell).classList.toggle("gn-lead", lead.has(seat));
    }));
    const totals = [el("th", "gn-total-head", t("gn_total"))];
    sc.totals.forEach((total, seat) => {
      const td = el("td", "gn-sum" + (lead.has(seat) ? " gn-lead" : ""), String(total));
      td.id = "gn-sum-" + seat;
      td.dataset.seat = seat;
      totals.push(td);
    });
    $("gn-pad-totals").replaceChildren(...totals);
    const sheets = sc.sheets || [];
    $("gn-sheets-box").hidden = !sheets.length;
    $("gn-sheets").replaceChildren(...sheets.map((totals, i) => {
      const li = el("li", "gn-sheet");
      li.dataset.totals = totals.join(" ");
      li.append(el("strong", "", t("gn_sheet", { number: i + 1 })), " ",
        el("span", "", totals.map((total, seat) => `${name(seat)} ${total}`).join(" · ")));
      return li;
    }));
  }

  // A cell shows what the pad holds, except in an input the host is typing in.
  function fillCell(cell, text) {
    if (cell.tagName !== "INPUT") {
      cell.textContent = text;
      return;
    }
    const typing = document.activeElement === cell && cell.value !== cell.dataset.value && cell.value !== cell.dataset.sent;
    if (!typing) cell.value = text;
    cell.dataset.value = text;
    if (cell.dataset.sent === text) delete cell.dataset.sent;
  }

  function padRow(s, r, fresh) {
    const tr = el("tr", fresh ? "gn-new-round" : "gn-round");
    tr.dataset.round = r;
    const th = el("th", "gn-round-number", fresh ? "+" : String(r + 1));
    th.scope = "row";
    if (fresh) th.title = t("gn_next_round");
    tr.append(th);
    for (let seat = 0; seat < s.players; seat++) {
      const td = el("td", "gn-score");
      if (HOST && !s.closed) {
        const input = el("input", "gn-cell");
        input.id = `gn-cell-${r}-${seat}`;
        input.dataset.value = "";
        input.dataset.round = r;
        input.dataset.seat = seat;
        input.inputMode = "numeric";
        input.autocomplete = "off";
        input.setAttribute("aria-label", t("gn_cell_label", { player: name(seat), round: r + 1 }));
        input.addEventListener("change", () => commit(input));
        input.addEventListener("keydown", (event) => {
          if (event.key !== "Enter") return;
          event.preventDefault();
          commit(input);
          const next = $(seat + 1 < s.players ? `gn-cell-${r}-${seat + 1}` : `gn-cell-${r + 1}-0`);
          if (next) next.focus();
          else input.blur();
        });
        td.append(input);
      } else {
        td.id = `gn-cell-${r}-${seat}`;
      }
      tr.append(td);
    }
    return tr;
  }

  // A cell typed in: its points written, or rubbed out when left blank.
  function commit(input) {
    const text = input.value.trim();
    if (text === input.dataset.value || text === input.dataset.sent) return;
    $("gn-scores-error").textContent = "";
    if (text !== "" && !/^[+-]?\d{1,7}$/.test(text)) {
      $("gn-scores-error").textContent = t("gn_score_whole", { text });
      return;
    }
    input.dataset.sent = text;
    const action = {
      kind: "write_score", player: Number(input.dataset.seat), round: Number(input.dataset.round),
      points: text === "" ? null : Number(text),
    };
    act(action, "gn-scores-error").then((ok) => {
      if (!ok) delete input.dataset.sent;
    });
  }

  // -- who starts ------------------------------------------------------------------------------------------

  function renderStarter(s) {
    const picks = s.picks;
    const last = picks.at(-1);
    const shown = $("gn-starter-name");
    shown.textContent = last ? name(last.seat) : "–";
    shown.dataset.seat = last ? String(last.seat) : "";
    $("gn-starter-line").textContent = last
      ? t("gn_pick_line", { number: last.number, n: last.among.length }) : t("gn_no_pick");
    const earlier = picks.slice(0, -1).reverse();
    $("gn-picks-box").hidden = !earlier.length;
    $("gn-picks").replaceChildren(...earlier.map((p) => {
      const li = el("li", "gn-pick");
      li.dataset.seat = p.seat;
      li.append(el("span", "gn-past-number", t("gn_pick_number", { number: p.number })), " ", el("strong", "", name(p.seat)));
      return li;
    }));
    if (HOST) renderAmong(s);
  }

  function renderAmong(s) {
    if (!local.among || local.among.players !== s.players) {
      local.among = { players: s.players, ticked: new Set(Array.from({ length: s.players }, (_, seat) => seat)) };
    }
    const box = $("gn-among");
    const names = Array.from({ length: s.players }, (_, seat) => name(seat)).join("\n");
    if (box.dataset.names === names) return;  // the boxes stay as the host ticked them
    box.dataset.names = names;
    box.replaceChildren(...Array.from({ length: s.players }, (_, seat) => {
      const label = el("label", "check gn-among-seat");
      const tick = el("input");
      tick.type = "checkbox";
      tick.id = "gn-among-" + seat;
      tick.checked = local.among.ticked.has(seat);
      tick.addEventListener("change", () => {
        if (tick.checked) local.among.ticked.add(seat);
        else local.among.ticked.delete(seat);
      });
      label.append(tick, " ", el("span", "", name(seat)));
      return label;
    }));
  }

  // -- the host's actions ----------------------------------------------------------------------------------

  // An action sent from the host page; a refusal is shown in ``errorId``, in the table's language.
  async function act(action, errorId) {
    return send("/api/act", action, errorId);
  }

  async function send(url, body, errorId) {
    if (errorId) $(errorId).textContent = "";
    try {
      window.render(await post(url, body));
      return true;
    } catch (failure) {
      if (errorId) $(errorId).textContent = failure.message;
      return false;
    }
  }

  function showScreen(screen) {
    local.screen = screen;
    if (snap) render(snap);
    const s = snap && snap.state;
    if (HOST && s && !s.closed && s.screen !== screen) act({ kind: "show_screen", screen }, "gn-error");
  }

  function readTyped() {
    const text = $("gn-typed").value.trim();
    const values = text.replace(/[\s,;+]+/g, "");
    if (!values || !/^[1-6]+$/.test(values)) {
      $("gn-dice-error").textContent = t("gn_type_values_error");
      return;
    }
    act({ kind: "read_dice", dice: [...values].map((v) => ({ value: Number(v) })) }, "gn-dice-error").then((ok) => {
      if (ok) $("gn-typed").value = "";
    });
  }

  function startTimer() {
    const seconds = Number($("gn-seconds").value);
    act({ kind: "start_timer", first: Number($("gn-first").value || 0), seconds }, "gn-timer-error");
  }

  function pick() {
    const s = snap && snap.state;
    if (!s) return;
    const ticked = [...local.among.ticked].filter((seat) => seat < s.players).sort((a, b) => a - b);
    if (!ticked.length) {
      $("gn-starter-error").textContent = t("gn_pick_nobody");
      return;
    }
    act({ kind: "pick_starter", among: ticked.length === s.players ? [] : ticked }, "gn-starter-error");
  }

  function setupHost() {
    if (!HOST || !$("gn-read")) return;
    $("gn-read").addEventListener("click", () => send("/api/dice/read", {}, "gn-dice-error"));
    $("gn-by-color-toggle").addEventListener("change", (event) =>
      act({ kind: "count_by_color", on: event.target.checked }, "gn-dice-error"));
    $("gn-typed-send").addEventListener("click", readTyped);
    $("gn-typed").addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        readTyped();
      }
    });
    for (const face of FACES) {
      $("gn-set-" + face).addEventListener("click", async () => {
        if (!local.chosen) return;
        const index = local.chosen.index;
        if (await act({ kind: "correct_die", index, value: face }, "gn-dice-error")) {
          local.chosen = null;
          render(snapshot);
        }
      });
    }
    $("gn-chooser-close").addEventListener("click", () => {
      local.chosen = null;
      render(snap);
    });
    $("gn-start").addEventListener("click", startTimer);
    $("gn-pass").addEventListener("click", () => {
      const timer = snap && snap.state.timer;
      if (timer) act({ kind: "pass_turn", seat: timer.turn }, "gn-timer-error");
    });
    $("gn-pause").addEventListener("click", () => send("/api/hourglass/pause", {}, "gn-timer-error"));
    $("gn-resume").addEventListener("click", () => send("/api/hourglass/resume", {}, "gn-timer-error"));
    $("gn-stop").addEventListener("click", () => act({ kind: "stop_timer" }, "gn-timer-error"));
    $("gn-say-leader").addEventListener("click", () => act({ kind: "say_leader" }, "gn-scores-error"));
    $("gn-new-sheet").addEventListener("click", () => act({ kind: "new_sheet" }, "gn-scores-error"));
    $("gn-end").addEventListener("click", () => {
      if (window.confirm(t("gn_end_confirm"))) act({ kind: "end_evening" }, "gn-scores-error");
    });
    $("gn-pick").addEventListener("click", pick);
  }

  // The tabs, on every page (table.js, which brings $, is loaded after this file).
  for (const screen of SCREENS) {
    const tab = document.getElementById("gn-tab-" + screen);
    if (tab) tab.addEventListener("click", () => showScreen(screen));
  }

  // The labels over the picture keep a readable size: drawn again when the page changes size.
  let resizing = false;
  window.addEventListener("resize", () => {
    if (resizing) return;
    resizing = true;
    requestAnimationFrame(() => {
      resizing = false;
      if (snap && snapshot && snapshot.game === "night" && !$("night").hidden) render(snapshot);
    });
  });

  // -- the host's new-game form -----------------------------------------------------------------------------

  function options(data) {
    return {
      players: Number(data.get("gn_players")),
      turn_seconds: Number(String(data.get("gn_turn_seconds") || "60").trim() || 60),
      low_wins: data.get("gn_low_wins") === "on",
      by_color: data.get("gn_by_color") === "on",
    };
  }

  // -- a phone ------------------------------------------------------------------------------------------------

  // The phone's "my turn is over" button: shown while this seat's turn runs, it passes the turn
  // through the seat's own act route (refused if the turn has passed in the meantime).
  function seatTurn(view, seatAct) {
    let over = $("gn-turn-over");
    const s = view.public && view.public.game === "night" ? view.public.state : null;
    if (!over && !s) return;
    if (!over) {
      over = el("button", "gn-turn-over");
      over.type = "button";
      over.id = "gn-turn-over";
      over.addEventListener("click", () => {
        const seat = Number(over.dataset.seat);
        if (!Number.isNaN(seat)) seatAct({ kind: "pass_turn", seat });
      });
      document.querySelector(".seat-buttons").after(over);
    }
    const timer = s && !s.closed ? s.timer : null;
    const mine = !!timer && timer.turn === view.seat && document.body.dataset.seat !== "gone";
    over.hidden = !mine;
    over.disabled = !mine || timer.paused;
    over.dataset.seat = String(view.seat);
    over.textContent = t("gn_turn_over");
  }

  function seatStatus(view) {
    const s = view.public.state;
    const timer = s && !s.closed ? s.timer : null;
    if (!timer) return "";
    if (timer.turn !== view.seat) return t("gn_turn_of_player", { player: name(timer.turn) });
    return timer.paused ? t("gn_your_turn_paused") : t("gn_your_turn");
  }

  return { render, options, setupHost, seatTurn, seatStatus };
})();

registerGame("night", {
  buttons: true,  // A on any seat passes the turn timer's turn
  render: Night.render,
  options: Night.options,
  setupHost: Night.setupHost,
  // on a phone: "my turn is over" while this seat's turn runs
  mustAct: (view) => {
    const s = view.public.state;
    return !s.closed && !!s.timer && s.timer.turn === view.seat && !s.timer.paused;
  },
  seat(view, act) {
    Night.seatTurn(view, act);
    return Night.seatStatus(view);
  },
  seatBox: "gn-turn-over",
});
