// Ostrakon on the page: the path, the Sun and the Calendar (public and host pages), and the host's
// controls for a table without buttons.
//
// Everything is drawn from the snapshot's public view (GET /api/state, then each SSE `state`
// event): it never holds a tesson still face down, only who has voted. The only thing kept here is
// what the host is picking right now (the philosophers the asker names). The helpers $, t, el,
// post and render come from table.js, loaded after this file: they are only looked up when a
// function here runs. Everything is inside one function so that no name clashes with oraklos.js.
"use strict";

const Ostrakon = (() => {
  const TEMPLE = 17;  // the Temple of Wisdom counts as the square after 16
  // The host's choices this step: the philosophers named, the colours of tessons entered by hand,
  // the philosophers who claimed to be the disciple together.
  const pick = { key: "", named: [], revealed: {}, contest: [] };
  let snap = null;  // the snapshot last drawn, for the handlers

  // -- small helpers ------------------------------------------------------------------------------

  function seatName(seat) {
    const names = (snap && snap.names) || [];
    return names[seat] || t("seat_number", { number: seat + 1 });
  }

  function nameList(seats) {
    const names = seats.map(seatName);
    return names.length > 1 ? names.slice(0, -1).join(", ") + " " + t("and") + " " + names.at(-1) : names[0] || "";
  }

  function squareName(square) {
    return square === TEMPLE ? t("os_temple_name") : t("os_square_n", { square });
  }

  function subjectText(text) {
    if (!text) return "";
    const words = text[lang] || text.en || "";
    return text.free ? t("os_free_subject", { subject: words }) : words;
  }

  function colourWord(colour) {
    return t("os_" + colour);
  }

  function tesson(colour, extra = "") {
    const chip = el("span", ("os-tesson " + colour + " " + extra).trim(), colourWord(colour));
    chip.dataset.colour = colour;
    return chip;
  }

  function badge(cls, text) {
    return el("span", "badge " + cls, text);
  }

  function symbolBadge(symbol) {
    const node = el("span", "os-symbol sym-" + symbol, t("os_rule_" + symbol));
    node.dataset.symbol = symbol;
    return node;
  }

  // Where a philosopher stands: a square of the path (with their place in its pile), the Temple,
  // or under the Sun.
  function whereIs(s, seat) {
    for (const square of s.path) {
      const at = square.pile.indexOf(seat);
      if (at >= 0) return { square: square.square, place: at, size: square.pile.length };
    }
    const under = s.under_sun.indexOf(seat);
    return under >= 0 ? { square: null, place: under, size: s.under_sun.length } : null;
  }

  function winnerOf(s) {
    return s.outcome ? Number(s.outcome.winner) : null;
  }

  // Who may still claim to be the asker's disciple. Every condition is public (RULES.md §2: on
  // top of one's pile, olive branch unused, behind the asker, before all others have voted); the
  // engine judges the claim anyway and the page shows its refusal. An engine that lists the
  // candidates in its public view (`disciple_candidates`) is followed instead.
  function discipleCandidates(s) {
    if (Array.isArray(s.disciple_candidates)) return s.disciple_candidates;
    if (s.phase !== "vote" || s.disciple !== null || s.asker === null) return [];
    const othersVoted = s.voted.filter((seat) => seat !== s.asker).length;
    if (othersVoted >= s.players - 1) return [];
    const out = [];
    for (const square of s.path) {
      if (square.square >= s.sun || !square.pile.length) continue;
      const top = square.pile[0];
      if (top !== s.asker && s.olive_branches[top] === "unused") out.push(top);
    }
    return out.sort((a, b) => a - b);
  }

  // -- the board ----------------------------------------------------------------------------------

  function renderBoard(current) {
    snap = current;
    const s = current.state;
    const key = [current.game_id, s.turn, s.phase, s.reveal].join("/");
    if (key !== pick.key) {  // a new turn or phase: the last choice and refusal no longer hold
      pick.key = key;
      pick.named = [];
      pick.revealed = {};
      pick.contest = [];
      for (const error of document.querySelectorAll("#ostrakon .error")) error.textContent = "";
    }
    renderOutcome(s);
    $("os-day").textContent = t("os_day_of", { day: s.day, days: s.days });
    $("os-rule").textContent = t("os_rule_" + s.day_rule);
    $("os-rule").className = "os-rule sym-" + s.day_rule;
    $("os-phase").textContent = phaseText(s);
    $("os-turn").textContent = String(s.turn);
    $("os-rule-text").textContent = s.phase === "over" ? "" : t("os_rule_text_" + s.day_rule, { count: s.named_count });
    renderCalendar(s);
    renderSubjects(s);
    renderSpecial(s);
    renderPath(s);
    renderSeats(s);
    renderResult(s);
    if (HOST && $("os-controls")) renderControls(s);
  }

  function phaseText(s) {
    if (s.phase === "vote") return t("os_phase_vote", { voted: s.voted.length, players: s.players });
    if (s.phase === "reveal") return t("os_phase_reveal", { names: nameList(s.awaiting_reveal || []) });
    const asker = s.asker === null ? "" : seatName(s.asker);
    return t("os_phase_" + s.phase, { seat: asker, count: s.named_count });
  }

  function renderOutcome(s) {
    const box = $("os-outcome");
    box.hidden = !s.outcome;
    if (!s.outcome) return;
    const winner = seatName(Number(s.outcome.winner));
    box.textContent = t("winner", { seat: winner }) + " — " + t("os_end_" + s.outcome.reason, { seat: winner });
    box.className = "outcome won " + s.outcome.reason;
  }

  // The Calendar: one moon per day; the Moon covers one more at each day's end.
  function renderCalendar(s) {
    const box = $("os-calendar");
    const moons = Array.from({ length: s.days }, (_, i) => {
      const covered = i < s.moons_covered;
      const cell = el("span", "os-moon" + (covered ? " covered" : "") + (!s.outcome && i === s.moons_covered ? " today" : ""), String(i + 1));
      cell.title = t(covered ? "os_moon_covered" : "os_moon_visible");
      return cell;
    });
    const label = el("span", "os-calendar-text", t("os_calendar", { covered: s.moons_covered, days: s.days }));
    box.replaceChildren(el("span", "label", t("os_calendar_title") + " "), ...moons, label);
  }

  function renderSubjects(s) {
    const current = $("os-subject");
    const next = $("os-next");
    current.hidden = next.hidden = s.phase === "over";
    if (s.phase === "over") return;
    current.replaceChildren(
      el("span", "label", t("os_subject")),
      el("strong", "os-subject-text", subjectText(s.subject_text)),
      el("span", "os-asker", t("os_asked_by", { seat: seatName(s.asker) })),
    );
    let who;
    if (s.next_asker !== null && s.next_asker !== undefined) {
      who = t("os_next_asker", { seat: seatName(s.next_asker) });
    } else {
      who = t(s.last_of_day ? "os_next_asker_after_day" : "os_next_asker_unknown");
    }
    if (s.disciple !== null && s.disciple !== undefined) who += " " + t("os_unless_disciple");
    next.replaceChildren(
      el("span", "label", t("os_next_subject")),
      el("strong", "os-subject-text", subjectText(s.next_subject_text)),
      el("span", "os-asker", who),
    );
  }

  // The philosophers the asker named (Corruption, Oracle), and the disciple, if any.
  function renderSpecial(s) {
    const parts = [];
    if (s.named.length) {
      const key = s.corrupted.length ? "os_named_corrupted" : "os_named";
      parts.push(t(key, { seat: seatName(s.asker), named: nameList(s.named) }));
    }
    const claimants = s.disciple_claimants || [];
    if (s.disciple !== null && s.disciple !== undefined && claimants.length > 1) {
      const names = { seats: nameList(claimants), seat: seatName(s.disciple), asker: seatName(s.asker) };
      parts.push(t("os_disciple_contested", names));
    } else if (s.disciple !== null && s.disciple !== undefined) {
      parts.push(t("os_disciple_is", { seat: seatName(s.disciple), asker: seatName(s.asker) }));
    }
    $("os-special").textContent = parts.join(" ");
  }

  // The path: 16 squares and the Temple, each with its symbol and its pile (top first); the Sun
  // beside its square, with the pile under it.
  function renderPath(s) {
    $("os-path").replaceChildren(...s.path.map((square) => {
      const li = el("li", "os-square");
      li.id = "os-square-" + square.square;
      li.dataset.square = square.square;
      const sun = square.square === s.sun && s.phase !== "over";
      li.classList.toggle("temple", square.temple);
      li.classList.toggle("sun", sun);
      li.classList.toggle("empty", !square.pile.length && !sun);
      if (square.symbol) li.classList.add("sym-" + square.symbol);
      const head = el("div", "os-square-head");
      head.append(el("span", "os-number", square.temple ? t("os_temple") : String(square.square)));
      if (square.symbol) head.append(symbolBadge(square.symbol));
      if (sun) {
        const mark = el("span", "os-sun", "☀");
        mark.id = "os-sun";
        mark.title = t("os_sun");
        head.append(mark);
      }
      li.append(head);
      if (square.pile.length) li.append(pileList(s, square.pile, "os-pile"));
      if (sun && s.under_sun.length) {
        const under = el("div", "os-under-sun");
        under.id = "os-under-sun";
        under.append(el("span", "label", t("os_under_sun")), pileList(s, s.under_sun, "os-pile under"));
        li.append(under);
      }
      const where = [squareName(square.square)];
      if (square.symbol) where.push(t("os_rule_" + square.symbol));
      if (sun) where.push(t("os_sun"));
      if (square.pile.length) where.push(t("os_pile_top_first", { names: square.pile.map(seatName).join(", ") }));
      li.setAttribute("aria-label", where.join(", "));
      return li;
    }));
  }

  function pileList(s, pile, cls) {
    const list = el("ol", cls);
    for (const seat of pile) {
      const item = el("li", "os-philo", seatName(seat));
      item.dataset.seat = seat;
      item.classList.toggle("asker", seat === s.asker);
      item.classList.toggle("disciple", seat === s.disciple);
      item.classList.toggle("olive", s.olive_branches[seat] === "unused");
      item.classList.toggle("winner", seat === winnerOf(s));
      list.append(item);
    }
    return list;
  }

  // Each philosopher: where they stand, their olive branch, whether they have voted (never how),
  // their tesson once it lies face up.
  function renderSeats(s) {
    $("os-seats").replaceChildren(...Array.from({ length: s.players }, (_, seat) => {
      const li = el("li", "os-seat");
      li.id = "os-seat-" + seat;
      li.dataset.seat = seat;
      li.classList.toggle("asker", seat === s.asker);
      const head = el("div", "os-seat-head");
      head.append(el("strong", "os-name", seatName(seat)));
      if (seat === s.asker) head.append(badge("os-asker-badge", t("os_asker")));
      if (seat === s.disciple) head.append(badge("os-disciple-badge", t("os_disciple")));
      if (s.named.includes(seat)) head.append(badge("os-named-badge", t("os_named_badge")));
      if (winnerOf(s) === seat) {
        li.classList.add("winner");
        head.append(badge("os-winner-badge", t("os_winner_badge")));
      }
      li.append(head);
      const where = whereIs(s, seat);
      const line = el("div", "os-where");
      if (where === null) line.textContent = "";
      else if (where.square === null) line.textContent = t("os_where_under_sun", { place: where.place + 1 });
      else if (where.place === 0) line.textContent = t("os_where_top", { square: squareName(where.square) });
      else line.textContent = t("os_where", { square: squareName(where.square), place: where.place + 1, size: where.size });
      li.append(line);
      const state = el("div", "os-seat-state");
      const olive = el("span", "os-olive " + s.olive_branches[seat], t("os_olive_" + s.olive_branches[seat]));
      olive.id = "os-olive-" + seat;
      state.append(olive);
      const shown = s.tessons[seat];
      if (!shown && ["vote", "name", "flip", "reveal"].includes(s.phase)) {
        const voted = s.voted.includes(seat);
        const mark = el("span", "os-voted " + (voted ? "in" : "out"), t(voted ? "os_voted" : "os_not_voted"));
        mark.id = "os-voted-" + seat;
        state.append(mark);
      }
      if (shown) {
        const chip = tesson(shown, s.corrupted.includes(seat) ? "corrupted" : "");
        chip.id = "os-tesson-" + seat;
        if (s.corrupted.includes(seat)) chip.title = t("os_corrupted");
        state.append(chip);
      }
      li.append(state);
      return li;
    }));
  }

  // The last question's count: every tesson by seat (face up, so public), white and black, how
  // many voted like the asker, and who moved where.
  function renderResult(s) {
    const box = $("os-result");
    const r = s.last_result;
    box.hidden = !r;
    if (!r) return box.replaceChildren();
    box.className = "os-result " + (r.moved === "forward" ? "valid" : "invalid");
    const title = el("h2", "", t("os_last_question", { turn: r.turn, seat: seatName(r.asker) }));
    const votes = el("ul", "os-votes");
    votes.id = "os-result-votes";
    r.votes.forEach((colour, seat) => {
      const li = el("li", seat === r.asker ? "asker" : "");
      li.dataset.seat = seat;
      li.append(el("span", "os-vote-name", seatName(seat)), tesson(colour));
      votes.append(li);
    });
    const counts = el("p", "os-counts", t("os_counts", { white: r.white, black: r.black }) + " " +
      t("os_same", { seat: seatName(r.asker), same: r.same, others: r.others, contrary: r.contrary }));
    counts.id = "os-counts";
    const moves = el("p", "os-moves");
    moves.id = "os-moves";
    const parts = [];
    if (r.moved === "forward") {
      parts.push(t("os_moved_forward", { seat: seatName(r.asker), steps: r.steps, from: squareName(r.from), to: squareName(r.to) }));
    } else {
      parts.push(t(r.contrary === 0 ? "os_under_sun_unanimous" : "os_under_sun_minority", { seat: seatName(r.asker) }));
    }
    if (r.disciple !== null && r.disciple !== undefined) {
      if (r.disciple_to !== null && r.disciple_to !== undefined) {
        parts.push(t("os_disciple_moved", { seat: seatName(r.disciple), steps: r.disciple_steps, from: squareName(r.disciple_from), to: squareName(r.disciple_to) }));
      } else {
        parts.push(t("os_disciple_stayed", { seat: seatName(r.disciple) }));
      }
    }
    moves.textContent = parts.join(" ");
    box.replaceChildren(title, votes, counts, moves);
  }

  // -- host: the controls of each phase -------------------------------------------------------------

  function renderControls(s) {
    const asker = s.asker === null ? "" : seatName(s.asker);
    $("os-ask-panel").hidden = s.phase !== "question";
    $("os-ask-hint").textContent = t("os_ask_hint", { seat: asker });
    $("os-ask").textContent = t("os_ask", { seat: asker });

    const camera = s.votes === "camera";
    $("os-vote-panel").hidden = s.phase !== "vote";
    if (s.phase === "vote") {
      $("os-vote-hint").textContent = t(camera ? "os_vote_hint_camera" : "os_vote_hint");
      $("os-votes-laid").hidden = !camera;
      const candidates = discipleCandidates(s);
      $("os-disciples").replaceChildren(...candidates.map((seat) => {
        const button = el("button", "plain os-claim", t("os_claim_disciple", { seat: seatName(seat) }));
        button.type = "button";
        button.id = "os-claim-" + seat;
        button.dataset.seat = seat;
        button.addEventListener("click", () => act({ kind: "claim_disciple", seat }, "os-disciple-error"));
        return button;
      }));
      $("os-disciple-none").textContent = candidates.length ? "" :
        s.disciple !== null ? t("os_disciple_is", { seat: seatName(s.disciple), asker }) : t("os_no_disciple");
      renderContest(s);
    }

    $("os-name-panel").hidden = s.phase !== "name";
    if (s.phase === "name") renderNamePanel(s, asker);

    $("os-reveal-panel").hidden = s.phase !== "reveal";
    if (s.phase === "reveal") renderRevealPanel(s);

    $("os-flip-panel").hidden = s.phase !== "flip";
    if (s.phase === "flip") {
      const tromperie = s.day_rule === "tromperie";
      const shown = s.tessons[s.asker];
      $("os-flip-title").textContent = t("os_flip_title", { seat: asker });
      $("os-flip-hint").textContent = tromperie
        ? t("os_flip_hint_tromperie", { seat: asker, colour: shown ? colourWord(shown) : "" })
        : t("os_flip_hint_oracle", { seat: asker });
      $("os-flip-buttons").hidden = !tromperie;  // on an Oracle day the tesson is still hidden
      if (tromperie && shown) {
        const other = shown === "white" ? "black" : "white";
        $("os-keep").textContent = t("os_keep", { colour: colourWord(shown) });
        $("os-flip").textContent = t("os_turn", { colour: colourWord(other) });
      }
    }
  }

  // Claims made together ("en cas de contestation", RULES.md §2): the host picks who claimed at
  // the same moment (with the claims standing, if any); the engine gives the disciple to the one
  // farthest from the Temple. The engine lists who may still join (`disciple_contenders`).
  function renderContest(s) {
    const claimants = s.disciple_claimants || [];
    const contenders = s.disciple_contenders || [];
    pick.contest = pick.contest.filter((seat) => contenders.includes(seat));
    $("os-contest").hidden = claimants.length ? !contenders.length : contenders.length < 2;
    if ($("os-contest").hidden) return;
    $("os-contest-hint").textContent = claimants.length
      ? t("os_contest_with", { claimants: nameList(claimants) })
      : t("os_contest_hint");
    $("os-contest-choices").replaceChildren(...contenders.map((seat) =>
      seatChoice(seat, "os-contest-", "os-name-choice os-contest-choice", pick.contest.includes(seat), () => {
        const at = pick.contest.indexOf(seat);
        if (at >= 0) pick.contest.splice(at, 1);
        else pick.contest.push(seat);
        $("os-disciple-error").textContent = "";
        renderBoard(snap);
      })));
    $("os-contest-send").disabled = !pick.contest.length || claimants.length + pick.contest.length < 2;
  }

  // A seat the host picks or unpicks (the philosophers named, the claimants of a contest).
  function seatChoice(seat, idPrefix, className, chosen, onClick) {
    const button = el("button", "choice " + className + (chosen ? " chosen" : ""), seatName(seat));
    button.type = "button";
    button.id = idPrefix + seat;
    button.dataset.seat = seat;
    button.setAttribute("aria-pressed", chosen ? "true" : "false");
    button.addEventListener("click", onClick);
    return button;
  }

  function renderNamePanel(s, asker) {
    const k = s.named_count;
    pick.named = pick.named.filter((seat) => seat !== s.asker && seat < s.players);
    $("os-name-title").textContent = t("os_name_title", { seat: asker, count: k });
    $("os-name-choices").replaceChildren(...Array.from({ length: s.players }, (_, seat) => seat)
      .filter((seat) => seat !== s.asker)
      .map((seat) => seatChoice(seat, "os-name-", "os-name-choice", pick.named.includes(seat), () => toggleNamed(seat))));
    $("os-name-picked").textContent = t("os_name_picked", { count: pick.named.length, needed: k });
    $("os-name-send").disabled = pick.named.length !== k;
  }

  // Votes by camera: the tessons this step turns face up (public once face up), as they lie,
  // for when the camera cannot read them.
  function renderRevealPanel(s) {
    const seats = s.awaiting_reveal || [];
    $("os-reveal-hint").textContent = t("os_reveal_hint", { names: nameList(seats) });
    $("os-reveal-choices").replaceChildren(...seats.map((seat) => {
      const li = el("li", "os-reveal-row");
      li.append(el("span", "os-name", seatName(seat)));
      for (const colour of ["white", "black"]) {
        const chosen = pick.revealed[seat] === colour;
        const button = el("button", "choice os-colour-choice" + (chosen ? " chosen" : ""));
        button.type = "button";
        button.id = `os-reveal-${seat}-${colour}`;
        button.setAttribute("aria-pressed", chosen ? "true" : "false");
        button.append(tesson(colour));
        button.addEventListener("click", () => {
          pick.revealed[seat] = colour;
          $("os-reveal-error").textContent = "";
          renderBoard(snap);
        });
        li.append(button);
      }
      return li;
    }));
    $("os-reveal-send").disabled = !seats.every((seat) => pick.revealed[seat]);
  }

  function toggleNamed(seat) {
    const at = pick.named.indexOf(seat);
    if (at >= 0) pick.named.splice(at, 1);
    else {
      pick.named.push(seat);
      while (pick.named.length > snap.state.named_count) pick.named.shift();  // the oldest choice goes
    }
    $("os-name-error").textContent = "";
    renderBoard(snap);
  }

  async function act(body, errorId, url = "/api/act") {
    const error = $(errorId);
    if (error) error.textContent = "";
    try {
      render(await post(url, body || {}));
      return true;
    } catch (failure) {
      if (error) error.textContent = failure.message;
      return false;
    }
  }

  // -- host: wiring the controls (once) -------------------------------------------------------------

  function setupHost() {
    if (!$("os-controls")) return;
    const asker = () => snap.state.asker;
    $("os-ask").addEventListener("click", () => act({ kind: "ask", seat: asker() }, "os-ask-error"));
    $("os-name-send").addEventListener("click", async () => {
      if (await act({ kind: "name", seat: asker(), named: [...pick.named] }, "os-name-error")) pick.named = [];
    });
    $("os-contest-send").addEventListener("click", async () => {
      const seats = [...(snap.state.disciple_claimants || []), ...pick.contest].sort((a, b) => a - b);
      if (await act({ kind: "contest_disciple", seats }, "os-disciple-error")) pick.contest = [];
    });
    $("os-votes-laid").addEventListener("click", () => act({ kind: "votes_laid" }, "os-laid-error"));
    $("os-reveal-read").addEventListener("click", () => act(null, "os-reveal-error", "/api/tessons/read"));
    $("os-reveal-send").addEventListener("click", () => {
      const tessons = (snap.state.awaiting_reveal || []).map((seat) => ({ seat, white: pick.revealed[seat] === "white" }));
      act({ kind: "revealed", tessons }, "os-reveal-error");
    });
    $("os-keep").addEventListener("click", () => act({ kind: "flip", seat: asker(), flip: false }, "os-flip-error"));
    $("os-flip").addEventListener("click", () => act({ kind: "flip", seat: asker(), flip: true }, "os-flip-error"));
  }

  return { render: renderBoard, setupHost };
})();

// Votes by the seat buttons (the default, sent as nothing) or read from the tessons by the camera.
function ostrakonOptions(data) {
  const options = { players: Number(data.get("ostrakon_players")) };
  if (data.get("votes") === "camera") options.votes = "camera";
  return options;
}

registerGame("ostrakon", {
  buttons: true,
  render: Ostrakon.render,
  options: ostrakonOptions,
  setupHost: Ostrakon.setupHost,
  decision: (view) => (view.public.state.outcome ? null : ["A", "B"]),  // its tesson, by button
});
