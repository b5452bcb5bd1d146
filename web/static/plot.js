// Résistance's "Le Plan" on the page (RULES.md §1): the plot cards in play, which are all public
// (drawn cards are shown at once and lie face up), and the choices open to the seat whose turn it
// is. The host page offers them for whoever must decide; a phone only for its own seat. Both are
// built from the public view alone: what a card showed to one player comes only in that seat's
// private view ("learned", shown by seat.js).
"use strict";

const Plot = (() => {
  const card = (name) => t("plot_" + name);

  // Who decides now, and on what: the Commandant hands the drawn cards, the receiver of an
  // immediate card plays it, a holder plays or passes at a moment. null: no plot decision.
  function decider(s) {
    const p = s.plot;
    if (!p) return null;
    if (s.phase === "plot_hand" && p.drawn.length) return s.commander;
    if (s.phase === "plot_immediate" && p.pending) return p.pending.actor;
    if (s.phase === "plot_window" && p.window) return p.window.turn;
    return null;
  }

  function line(cls, text) {
    return el("p", "plot-line " + cls, text);
  }

  // The public board: the deck, the discards, the cards drawn this round, what is being played,
  // who watches whom, the card in the spotlight, the opinion makers.
  function render(box, s, name) {
    const p = s.plot;
    box.hidden = !p;
    if (!p) {
      box.replaceChildren();
      return;
    }
    const parts = [el("h2", "", t("plot_title"))];
    parts.push(line("deck", t("plot_deck", { count: p.deck })
      + (p.discards.length ? " · " + t("plot_discards", { cards: p.discards.map(card).join(", ") }) : "")));
    if (p.drawn.length) {
      parts.push(line("drawn", t("plot_drawn", { seat: name(s.commander), cards: p.drawn.map(card).join(", ") })));
    }
    if (p.pending) {
      parts.push(line("pending", t("plot_pending", { seat: name(p.pending.actor), card: card(p.pending.card) })));
    }
    if (p.window) {
      parts.push(line("turn", t("plot_turn", {
        seat: name(p.window.turn), cards: p.window.cards.map(card).join(", "),
      })));
    }
    for (const w of p.watches) {
      parts.push(line("watch", t("plot_watch", { seat: name(w.seat), member: name(w.member) })));
    }
    if (p.spotlight) {
      parts.push(line("spotlight", p.spotlight.card
        ? t("plot_spotlight_played", { seat: name(p.spotlight.seat), card: t("card_" + p.spotlight.card) })
        : t("plot_spotlight", { seat: name(p.spotlight.seat) })));
    }
    if (p.opinion_makers.length) {
      parts.push(line("opinion", t("plot_opinion", { seats: p.opinion_makers.map(name).join(", ") })));
    }
    for (const v of p.opinion_votes) {
      parts.push(line("opinion-vote", `${name(v.seat)}: ${t(v.approve ? "yes" : "no")}`));
    }
    box.replaceChildren(...parts);
  }

  // The plot cards lying face up in front of a seat, on its place in the list of players.
  function held(li, s, seat) {
    const cards = s.plot ? s.plot.held[seat] || [] : [];
    for (const c of cards) li.append(el("span", "plot-card", card(c)));
  }

  function choice(label, action, act) {
    const button = el("button", "plot-choice", label);
    button.type = "button";
    button.addEventListener("click", () => act(action));
    return button;
  }

  // The choices open to ``seat`` now, as buttons that send an action through ``act``; the box
  // is emptied (and hidden) when the seat has nothing to decide. Returns whether it has.
  function controls(box, s, seat, name, act, heading) {
    const p = s.plot;
    const rows = [];
    const others = [...Array(s.players).keys()].filter((x) => x !== seat);
    if (p && decider(s) === seat) {
      if (s.phase === "plot_hand") {
        p.drawn.forEach((c, index) => {
          const row = el("div", "plot-row");
          row.append(el("span", "plot-card", card(c)), ...others.map((to) =>
            choice(name(to), { kind: "hand_plot", commander: seat, card_index: index, to_seat: to }, act)));
          rows.push(el("p", "hint", t("plot_hand_hint")), row);
        });
      } else if (s.phase === "plot_immediate") {
        rows.push(...immediate(p.pending.card, s, seat, others, name, act));
      } else if (s.phase === "plot_window") {
        rows.push(...playable(p, s, seat, name, act));
      }
    }
    if (rows.length && heading) rows.unshift(el("h3", "", heading));
    box.replaceChildren(...rows);
    box.hidden = rows.length === 0;
    return rows.length > 0;
  }

  function immediate(c, s, seat, others, name, act) {
    const row = el("div", "plot-row");
    const out = [el("p", "plot-now", t("plot_now_" + c)), row];
    if (c === "overheard_conversation") {
      const left = (seat + 1) % s.players, right = (seat + s.players - 1) % s.players;
      row.append(
        choice(t("plot_left", { seat: name(left) }), { kind: "overhear", seat, neighbour: "left" }, act),
        choice(t("plot_right", { seat: name(right) }), { kind: "overhear", seat, neighbour: "right" }, act));
    } else if (c === "open_up") {
      row.append(...others.map((to) => choice(name(to), { kind: "open_up", seat, to_seat: to }, act)));
    } else if (c === "establish_confidence") {
      row.append(...others.map((to) =>
        choice(name(to), { kind: "establish_confidence", commander: seat, to_seat: to }, act)));
    } else if (c === "take_responsibility") {
      for (const from of others) {
        for (const held of new Set(s.plot.held[from])) {
          row.append(choice(`${card(held)} (${name(from)})`,
            { kind: "take_responsibility", seat, from_seat: from, card: held }, act));
        }
      }
    }
    return out;
  }

  // The one-use cards the seat may play at this moment (the public view lists them), with their
  // targets: a squad member not yet watched for Keeping a Close Eye, any member for the
  // Spotlight. Passing is always possible.
  function playable(p, s, seat, name, act) {
    const out = [];
    const watched = new Set(p.watches.map((w) => w.member));
    for (const c of p.window.cards) {
      const row = el("div", "plot-row");
      row.append(el("span", "plot-card", card(c)));
      if (c === "keeping_a_close_eye" || c === "in_the_spotlight") {
        const targets = c === "in_the_spotlight" ? s.squad
          : s.squad.filter((m) => m !== seat && !watched.has(m));
        row.append(...targets.map((m) => choice(name(m), { kind: "play_plot", seat, card: c, target: m }, act)));
      } else {
        row.append(choice(t("plot_play"), { kind: "play_plot", seat, card: c }, act));
      }
      out.push(row, el("p", "hint plot-use", t("plot_use_" + c)));  // what choosing does
    }
    const pass = choice(t("plot_pass"), { kind: "pass_plot", seat }, act);
    pass.classList.add("plain");
    const row = el("div", "plot-row");
    row.append(pass);
    out.push(row);
    return out;
  }

  return { render, held, controls, decider };
})();
