// Les 7 Sages on the page (RULES.md §5, docs/SAGES.md): the 15×15 board as SVG, the score, the
// round, whose move, the last move with the fool's path, the hourglass, the winner; and, where
// this page may move for the side to move, the moves by clicks on the board.
//
// Who may click: the host page for any side the companion does not play; a phone for its own
// seat only; the public page never. A click on one of the mover's sages selects it and shows
// where it may go (dots) and, if it can chase the fool, every square the fool may end on (a
// diamond) with the path it takes there (faint, bold under the pointer); a click on one of those
// squares sends the move. In free placement, a click on a square allowed sends the sage there.
//
// Everything shown comes from the public view (Sages.public_view): the legal moves included, so
// the page never judges a move itself. The helpers $, t, el, post and render come from table.js,
// and seatPost, renderSeat and linkGone from seat.js on a phone: they are only looked up when a
// function here runs. Everything is inside one function so that no name clashes with the other
// games' files.
"use strict";

const Sages = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const SIZE = 15;
  const CELL = 10;
  const MARGIN = 9;  // room for the column letters and row numbers around the board
  const EXTENT = SIZE * CELL + 2 * MARGIN;
  const COLUMNS = "abcdefghijklmno";
  const SIDES = ["red", "blue"];
  const PER_SIDE = 7;

  let snap = null;  // the snapshot last drawn, for the handlers
  let built = false;  // the board's squares and labels, drawn once
  const pick = { key: "", sage: null, hot: null, choice: null };  // this page's selection
  let ticker = null;

  // -- small helpers --------------------------------------------------------------------------------

  function svg(tag, attrs = {}, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function col(square) {
    return COLUMNS.indexOf(square[0]);
  }

  function row(square) {
    return Number(square.slice(1)) - 1;
  }

  // The centre of a square in board units: row 1 at the bottom, column a on the left.
  function centre(square) {
    return [MARGIN + col(square) * CELL + CELL / 2, MARGIN + (SIZE - 1 - row(square)) * CELL + CELL / 2];
  }

  function points(squares) {
    return squares.map((square) => centre(square).join(",")).join(" ");
  }

  function sideWord(seat) {
    return t("sg_" + SIDES[seat]);
  }

  function seatName(seat) {
    const names = (snap && snap.names) || [];
    return names[seat] || sideWord(seat);
  }

  // "Ada (red)": a player and their colour.
  function who(seat) {
    return t("sg_player", { seat: seatName(seat), side: sideWord(seat) });
  }

  function button(label, cls, onClick) {
    const node = el("button", cls || "", label);
    node.type = "button";
    node.addEventListener("click", onClick);
    return node;
  }

  // -- who may move from this page ------------------------------------------------------------------

  function mySeat() {
    if (!SEAT_TOKEN) return null;
    const view = typeof Seat === "undefined" ? null : Seat.view();
    return view && document.body.dataset.seat !== "gone" ? view.seat : null;
  }

  function mayAct(s) {
    if (!s || s.phase === "over" || s.to_move === null || s.to_move === s.computer) return false;
    if (SEAT_TOKEN) return mySeat() === s.to_move;
    return HOST;
  }

  // -- the board --------------------------------------------------------------------------------------

  function build(s) {
    const board = $("sg-board");
    board.setAttribute("viewBox", `0 0 ${EXTENT} ${EXTENT}`);
    const cites = {};
    SIDES.forEach((side) => s.cites[side].forEach((square) => { cites[square] = side; }));
    const squares = svg("g", { class: "sg-squares" });
    const labels = svg("g", { class: "sg-labels", "pointer-events": "none" });
    for (let r = SIZE - 1; r >= 0; r--) {
      for (let c = 0; c < SIZE; c++) {
        const square = COLUMNS[c] + (r + 1);
        const edge = r === 0 || c === 0 || r === SIZE - 1 || c === SIZE - 1;
        const kind = cites[square] ? "sg-cite " + cites[square] : edge ? "sg-ring" : "sg-kingdom" + ((r + c) % 2 ? " alt" : "");
        const [x, y] = centre(square);
        const rect = svg("rect", {
          x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, class: "sg-square " + kind,
        });
        rect.dataset.square = square;
        squares.append(rect);
      }
    }
    for (let i = 0; i < SIZE; i++) {
      const [x] = centre(COLUMNS[i] + "1");
      const [, y] = centre("a" + (i + 1));
      labels.append(
        svg("text", { x, y: EXTENT - MARGIN / 2, class: "sg-coord" }, COLUMNS[i]),
        svg("text", { x, y: MARGIN / 2, class: "sg-coord" }, COLUMNS[i]),
        svg("text", { x: MARGIN / 2, y, class: "sg-coord" }, String(i + 1)),
        svg("text", { x: EXTENT - MARGIN / 2, y, class: "sg-coord" }, String(i + 1)),
      );
    }
    const layer = (id) => svg("g", { id, "pointer-events": "none" });  // clicks go to the squares
    board.replaceChildren(squares, labels, layer("sg-last-layer"), layer("sg-pieces"), layer("sg-options"),
      layer("sg-marks"));
    board.addEventListener("click", (event) => {
      const square = event.target.dataset && event.target.dataset.square;
      if (square) clicked(square);
    });
    board.addEventListener("mouseover", (event) => {
      const square = event.target.dataset && event.target.dataset.square;
      hover(square || null);
    });
    board.addEventListener("mouseleave", () => hover(null));
    built = true;
  }

  function renderBoard(s) {
    const moves = s.moves || {};
    const can = new Set();
    const acting = mayAct(s);
    if (acting && s.phase === "place") (s.placements || []).forEach((square) => can.add(square));
    if (acting && s.phase === "play") Object.keys(moves).forEach((square) => can.add(square));
    const selected = pick.sage && moves[pick.sage] ? moves[pick.sage] : null;
    if (selected) {
      selected.to.forEach((square) => can.add(square));
      selected.chases.forEach((chase) => can.add(chase.fool_to));
    }
    const last = s.last_move;
    for (const rect of $("sg-board").querySelectorAll(".sg-squares .sg-square")) {
      const square = rect.dataset.square;
      rect.classList.toggle("sg-can", can.has(square));
      rect.classList.toggle("sg-selected", square === pick.sage && !!selected);
      rect.classList.toggle("sg-place", acting && s.phase === "place" && can.has(square));
      rect.classList.toggle("sg-last-from", !!last && square === last.sage);
      rect.classList.toggle("sg-last-to", !!last && square === last.to);
    }
    const board = $("sg-board");
    board.dataset.turn = s.to_move === null ? "" : String(s.to_move);
    board.dataset.clickable = [...can].sort().join(" ");
    board.dataset.selected = selected ? pick.sage : "";
    board.classList.toggle("acting", acting);
    renderLast(s);
    renderPieces(s);
    renderOptions(s, selected);
  }

  // The last move: its from and to squares (classes above) and, for a chase, the fool's path with
  // the sages that sent it on ringed.
  function renderLast(s) {
    const layer = $("sg-last-layer");
    const last = s.last_move;
    if (!last || !last.fool_path) return layer.replaceChildren();
    const path = svg("polyline", { id: "sg-last-path", class: "sg-path " + last.side, points: points(last.fool_path) });
    path.dataset.squares = last.fool_path.join(" ");
    const nodes = [path];
    const [ex, ey] = centre(last.fool_path[last.fool_path.length - 1]);
    nodes.push(svg("circle", { class: "sg-path-end", cx: ex, cy: ey, r: 1.4 }));
    for (const square of last.reflectors) {
      const [x, y] = centre(square);
      const ring = svg("circle", { class: "sg-reflector", cx: x, cy: y, r: CELL * 0.46 });
      ring.dataset.square = square;
      nodes.push(ring);
    }
    layer.replaceChildren(...nodes);
  }

  function renderPieces(s) {
    const nodes = [];
    SIDES.forEach((side, seat) => {
      for (const square of s.position[side]) {
        const [x, y] = centre(square);
        const sage = svg("circle", { class: "sg-sage " + side, cx: x, cy: y, r: CELL * 0.36 });
        sage.dataset.square = square;
        sage.dataset.side = side;
        sage.append(svg("title", {}, t("sg_sage_of", { side: sideWord(seat), square })));
        nodes.push(sage);
      }
    });
    const fool = s.position.fool;
    const [x, y] = centre(fool);
    const r = CELL * 0.4;
    const star = [];
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5, d = i % 2 ? r * 0.45 : r;
      star.push(`${(x + d * Math.cos(a)).toFixed(2)},${(y + d * Math.sin(a)).toFixed(2)}`);
    }
    const node = svg("polygon", { id: "sg-fool", class: "sg-fool", points: star.join(" ") });
    node.dataset.square = fool;
    node.append(svg("title", {}, t("sg_fool_on", { square: fool })));
    nodes.push(node);
    $("sg-pieces").replaceChildren(...nodes);
  }

  // The selected sage's moves: a dot where it may go; for each chase, a diamond where the fool may
  // end and the path it takes there (faint; bold when hovered or picked).
  function renderOptions(s, selected) {
    const paths = [], marks = [];
    if (selected) {
      for (const square of selected.to) {
        const [x, y] = centre(square);
        const dot = svg("circle", { class: "sg-dest", cx: x, cy: y, r: CELL * 0.16 });
        dot.dataset.square = square;
        marks.push(dot);
      }
      for (const chase of selected.chases) {
        const hot = chase.fool_to === pick.hot;
        const line = svg("polyline", { class: "sg-chase" + (hot ? " hot" : ""), points: points(chase.path) });
        line.dataset.end = chase.fool_to;
        line.dataset.squares = chase.path.join(" ");
        paths.push(line);
        const [x, y] = centre(chase.fool_to);
        const d = CELL * 0.3;
        const mark = svg("polygon", {
          class: "sg-end" + (hot ? " hot" : "") + (chase.points ? " goal" : ""),
          points: `${x},${y - d} ${x + d},${y} ${x},${y + d} ${x - d},${y}`,
        });
        mark.dataset.square = chase.fool_to;
        marks.push(mark);
        if (chase.points) marks.push(svg("text", { class: "sg-gain", x, y: y - CELL * 0.42 }, "+" + chase.points));
      }
      // the hot path last, so that it lies over the faint ones
      paths.sort((a, b) => a.classList.contains("hot") - b.classList.contains("hot"));
    } else if (mayAct(s) && s.phase === "place") {
      for (const square of s.placements || []) {
        const [x, y] = centre(square);
        const dot = svg("circle", { class: "sg-dest sg-place-dot", cx: x, cy: y, r: CELL * 0.16 });
        dot.dataset.square = square;
        marks.push(dot);
      }
    }
    $("sg-options").replaceChildren(...paths);
    $("sg-marks").replaceChildren(...marks);
  }

  // -- the words around the board ---------------------------------------------------------------------

  function renderStatus(s) {
    $("sg-round").textContent = String(s.round);
    $("sg-target").textContent = t("sg_points", { n: s.target });
    const turn = $("sg-turn");
    if (s.phase === "over" || s.to_move === null) turn.textContent = "";
    else if (s.phase === "place") turn.textContent = t("sg_turn_place", { player: who(s.to_move) });
    else turn.textContent = who(s.to_move);
    turn.dataset.seat = s.to_move === null ? "" : String(s.to_move);
    $("sg-sides").replaceChildren(...SIDES.map((side, seat) => {
      const li = el("li", "sg-side " + side);
      li.id = "sg-side-" + seat;
      li.classList.toggle("turn", s.phase !== "over" && s.to_move === seat);
      li.classList.toggle("winner", s.winner === seat);
      li.append(el("span", "sg-disc " + side), el("span", "sg-name", who(seat)));
      if (s.computer === seat) li.append(el("span", "badge sg-companion", t("sg_companion_badge")));
      const score = el("strong", "sg-score", String(s.score[seat]));
      score.id = "sg-score-" + seat;
      li.append(score);
      return li;
    }));
    const outcome = $("sg-outcome");
    const drawn = s.drawn || null;
    outcome.hidden = s.winner === null && !drawn;
    if (s.winner !== null) {
      outcome.textContent = t("sg_winner", { player: who(s.winner), red: s.score[0], blue: s.score[1] });
      outcome.className = "outcome sg-won " + SIDES[s.winner];
    } else if (drawn) {
      const key = drawn === "draw_agreed" ? "sg_drawn_agreed" : "sg_drawn_repetition";
      outcome.textContent = t(key, { red: s.score[0], blue: s.score[1] });
      outcome.className = "outcome sg-drawn";
    }
    $("sg-last").textContent = lastText(s.last_move);
    const repeats = repeatsText(s);
    $("sg-repeats").textContent = repeats;
    $("sg-repeats").hidden = !repeats;
    $("sg-hint").textContent = hint(s);
    drawButton(s);
  }

  // With option repetition: a warning once the position on the board has come twice with the
  // same player to move (the third time draws the round or the match).
  function repeatsText(s) {
    if (!s.repetition || s.repetition === "off" || s.phase !== "play") return "";
    if (!s.repeats || s.repeats < s.repeats_to_draw - 1) return "";
    return t("sg_repeats_" + s.repetition, { n: s.repeats, player: who(s.to_move) });
  }

  // The host's "agreed draw" button (option draw_by_agreement), under the board: both players
  // agree, the host confirms, and the match ends drawn. Made once, here.
  function drawButton(s) {
    let node = $("sg-agree-draw");
    if (!HOST || SEAT_TOKEN) return;
    if (!node) {
      node = button(t("sg_agree_draw"), "plain", async () => {
        if (!window.confirm(t("sg_agree_draw_confirm"))) return;
        await act({ kind: "agree_draw" });
      });
      node.id = "sg-agree-draw";
      $("sg-error").before(node);
    }
    node.textContent = t("sg_agree_draw");
    node.hidden = !s.may_agree_draw;
  }

  function lastText(last) {
    if (!last) return "";
    const player = who(last.seat);
    let text;
    if (!last.fool_path) text = t("sg_last_move", { player, sage: last.sage, to: last.to });
    else {
      const end = last.fool_path[last.fool_path.length - 1];
      text = t("sg_last_chase", { player, sage: last.sage, square: end, n: last.reflectors.length });
    }
    return last.points ? text + " " + t("sg_last_points", { n: last.points }) : text;
  }

  function hint(s) {
    if (s.phase === "over") return "";
    if (s.to_move === s.computer) return t("sg_companion_thinking");
    if (!mayAct(s)) return SEAT_TOKEN || HOST ? t("sg_wait", { player: who(s.to_move) }) : "";
    if (s.phase === "place") {
      const placed = s.position[SIDES[s.to_move]].length;
      return t("sg_hint_place", { n: placed + 1, total: PER_SIDE });
    }
    if (!Object.keys(s.moves || {}).length) return "";
    return pick.sage ? t("sg_hint_target") : t("sg_hint_select", { side: sideWord(s.to_move) });
  }

  // The hourglass: the sand left for the move being timed, by this page's clock; or the sand
  // left when the host paused it. The host pauses and resumes it (the same hourglass as game
  // night's turn timer).
  function renderHourglass() {
    const box = $("sg-hourglass");
    const current = snapshot;  // table.js's: the game may have changed since this match was drawn
    const sages = !!current && current.game === "sages" && !!current.state;
    const live = sages && current.state.phase !== "over";
    const glass = live ? current.hourglass : null;
    const paused = live && !glass && current.state.hourglass_paused;
    sandButton(glass ? "pause" : paused ? "resume" : null);
    box.hidden = !glass && !paused;
    box.classList.toggle("paused", !!paused);
    if (!glass) {
      if (ticker) clearInterval(ticker);
      ticker = null;
      if (paused) {
        const seconds = Math.max(1, Math.round(current.state.hourglass_left));
        box.textContent = t("sg_hourglass_paused", { player: who(current.state.to_move), seconds });
      }
      return;
    }
    const left = Math.max(0, Math.ceil(glass.ends_at - Date.now() / 1000));
    box.textContent = t("sg_hourglass_left", { player: who(glass.seat), seconds: left });
    box.dataset.seat = String(glass.seat);
    box.dataset.left = String(left);
    box.classList.toggle("urgent", left <= 10);
    if (!ticker) ticker = setInterval(renderHourglass, 250);
  }

  // The host's pause / resume button, beside the hourglass (made once, here).
  function sandButton(what) {
    let button = $("sg-sand");
    if (!HOST) return;
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.id = "sg-sand";
      button.addEventListener("click", async () => {
        $("sg-error").textContent = "";
        try {
          window.render(await post(`/api/hourglass/${button.dataset.action}`, {}));
        } catch (failure) {
          $("sg-error").textContent = failure.message;
        }
      });
      $("sg-hourglass").after(button);
    }
    button.hidden = !what;
    if (!what) return;
    button.dataset.action = what;
    button.textContent = t(what === "pause" ? "sg_pause" : "sg_resume");
  }

  function render(current) {
    snap = current;
    const s = current.state;
    if (!built) build(s);
    const key = `${current.game_id}/${current.version}`;
    if (key !== pick.key) {  // the position changed: a selection made on the last one is gone
      pick.key = key;
      pick.sage = null;
      pick.hot = null;
      pick.choice = null;
      $("sg-error").textContent = "";
    }
    if (pick.sage && !mayAct(s)) pick.sage = null;
    renderStatus(s);
    renderBoard(s);
    renderChoice(s);
    renderHourglass();
  }

  // -- clicks -------------------------------------------------------------------------------------------

  function redraw() {
    $("sg-hint").textContent = hint(snap.state);
    renderBoard(snap.state);
    renderChoice(snap.state);
  }

  function clicked(square) {
    const s = snap && snap.state;
    if (!s || !mayAct(s)) return;
    $("sg-error").textContent = "";
    const seat = s.to_move;
    if (s.phase === "place") {
      if ((s.placements || []).includes(square)) act({ kind: "place", seat, square });
      return;
    }
    const moves = s.moves || {};
    const selected = pick.sage ? moves[pick.sage] : null;
    if (selected && square !== pick.sage) {
      const plain = selected.to.includes(square);
      const chase = selected.chases.find((c) => c.fool_to === square);
      if (plain && chase) {  // the sage may go there, and the fool may end there: ask which
        pick.choice = square;
        pick.hot = square;
        redraw();
        return;
      }
      if (plain) return act({ kind: "move", seat, sage: pick.sage, to: square });
      if (chase) return act({ kind: "move", seat, sage: pick.sage, to: s.position.fool, fool_to: square });
    }
    pick.choice = null;
    pick.hot = null;
    if (square === pick.sage) pick.sage = null;
    else if (moves[square]) pick.sage = square;
    else {
      pick.sage = null;
      if (s.position[SIDES[seat]].includes(square)) $("sg-error").textContent = t("sg_cannot_move", { square });
    }
    redraw();
  }

  function hover(square) {
    const s = snap && snap.state;
    if (!s || !pick.sage || pick.choice) return;
    const selected = (s.moves || {})[pick.sage];
    const hot = selected && selected.chases.some((c) => c.fool_to === square) ? square : null;
    if (hot === pick.hot) return;
    pick.hot = hot;
    renderOptions(s, selected);
  }

  // A square both the sage may go to and the fool may end on: two buttons say which.
  function renderChoice(s) {
    const box = $("sg-choice");
    const selected = pick.sage && s.moves ? s.moves[pick.sage] : null;
    if (!pick.choice || !selected) {
      box.hidden = true;
      return box.replaceChildren();
    }
    const square = pick.choice, sage = pick.sage, seat = s.to_move;
    const move = button(t("sg_choice_move", { sage, square }), "plain", () =>
      act({ kind: "move", seat, sage, to: square }));
    move.id = "sg-choice-move";
    const chase = button(t("sg_choice_chase", { square }), "", () =>
      act({ kind: "move", seat, sage, to: s.position.fool, fool_to: square }));
    chase.id = "sg-choice-chase";
    box.replaceChildren(move, chase);
    box.hidden = false;
  }

  // A move or a placement: from a phone for its own seat, else from the host page. A refusal is
  // shown under the board, in the table's language.
  async function act(action) {
    $("sg-error").textContent = "";
    try {
      if (SEAT_TOKEN) {
        const view = await seatPost("/act", action);
        if (view.gone) {
          if (view.public) window.render(view.public);
          linkGone();
        } else renderSeat(view);
      } else {
        window.render(await post("/api/act", action));
      }
      return true;
    } catch (failure) {
      $("sg-error").textContent = failure.message;
      return false;
    }
  }

  // -- the host's new-game form ---------------------------------------------------------------------------

  function options(data) {
    const hourglass = Number(String(data.get("sg_hourglass") || "0").trim() || 0);
    const computer = String(data.get("sg_computer") || "");
    return {
      layout: String(data.get("sg_layout")),
      placement: String(data.get("sg_placement") || "kingdom"),
      target: Number(data.get("sg_target")),
      hourglass: hourglass === 0 ? null : hourglass,
      computer: computer === "" ? null : computer,
      strength: Number(data.get("sg_strength")),
      draw_by_agreement: data.get("sg_draw_by_agreement") === "on",
      repetition: String(data.get("sg_repetition") || "off"),
    };
  }

  function setupHost() {
    const form = $("new-game");
    if (!form || !form.elements.sg_computer) return;
    const shown = () => {  // the companion's strength matters only when it plays a side, and
      // where the sages go only when the players place them
      $("sg-strength-box").hidden = form.elements.sg_computer.value === "";
      $("sg-placement-box").hidden = form.elements.sg_layout.value !== "free";
    };
    form.elements.sg_computer.addEventListener("change", shown);
    form.elements.sg_layout.addEventListener("change", shown);
    shown();
  }

  // A phone's line under its seat's name.
  function seatStatus(view) {
    const s = view.public.state;
    if (!s || s.phase === "over") return "";
    if (s.to_move === view.seat && s.computer !== view.seat) return t("sg_your_move", { side: sideWord(view.seat) });
    return t("sg_you_play", { side: sideWord(view.seat) });
  }

  return { render, options, setupHost, seatStatus, act };
})();

registerGame("sages", {
  render: Sages.render,
  options: Sages.options,
  setupHost: Sages.setupHost,
  // on a phone: this seat moves its own sages on the board
  mustAct: (view) => {
    const s = view.public.state;
    return s.phase !== "over" && s.to_move === view.seat && s.computer !== view.seat;
  },
  seat: Sages.seatStatus,
});
