// Eleusis on the page (RULES.md §4, docs/ELEUSIS.md): the cards as they lie on the table, for
// everyone; the host's controls (the new game's options and the rule checker, cards entered for the
// player in turn, verdicts for a judge without a phone); a phone's own hand and choices.
//
// The table is drawn from the public view alone: the main line, each refused series below the card
// it followed, hand sizes, verdicts. A phone adds its own hand (its private view's my_hand) and
// nothing else. The rule the host types for the companion is sent once, when the game starts (and
// to the checker, if asked); the page never shows it unless asked to, and forgets it once the game
// has started. The helpers $, t, el, post, render and lang come from table.js, loaded after this
// file: they are only looked up when a function here runs. Everything is inside one function so
// that no name clashes with oraklos.js or ostrakon.js.
"use strict";

const Eleusis = (() => {
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_LETTERS = ["S", "H", "D", "C"];
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const CARD = /^(A|[2-9]|10|J|Q|K)([SHDC])$/;
  const SYMBOLS = { "♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C" };
  const MAX_SERIES = 4;

  let snap = null;  // the snapshot last drawn, for the handlers
  const entry = { key: "" };  // the host's card entry: cleared when the moment it is for has passed
  const phone = { key: "", series: [] };  // a phone's series being built: indexes into its hand

  // -- small helpers ------------------------------------------------------------------------------

  function seatName(seat) {
    const names = (snap && snap.names) || [];
    return names[seat] || t("seat_number", { number: seat + 1 });
  }

  function nameList(seats) {
    const names = seats.map(seatName);
    return names.length > 1 ? names.slice(0, -1).join(", ") + " " + t("and") + " " + names.at(-1) : names[0] || "";
  }

  function godName(s) {
    if (s.god === "companion") return t("el_god_companion");
    return s.god_seat === null ? t("el_god") : t("el_god_named", { seat: seatName(s.god_seat) });
  }

  function judgeName(s) {
    if (!s.judge) return "";
    return s.judge.by === "prophet" ? t("el_prophet_named", { seat: seatName(s.judge.seat) }) : godName(s);
  }

  function isRed(code) {
    return code.endsWith("H") || code.endsWith("D");
  }

  // A playing card, small: its rank above its suit, red or black.
  function cardNode(code, tag = "span") {
    const rank = code.slice(0, -1), suit = code.slice(-1);
    const node = el(tag, "pc " + (isRed(code) ? "red" : "black"));
    node.dataset.card = code;
    node.append(el("span", "pc-rank", rank), el("span", "pc-suit", SUITS[suit] || suit));
    node.title = t("el_card_name", { rank, suit: t("el_suit_" + suit) });
    return node;
  }

  // Cards overlapped left to right, each on the one before: their order shows.
  function fan(cards, cls = "") {
    const group = el("span", ("el-fan " + cls).trim());
    cards.forEach((code, i) => {
      const node = cardNode(code);
      node.style.zIndex = String(i + 1);
      group.append(node);
    });
    return group;
  }

  function badge(cls, text) {
    return el("span", "badge " + cls, text);
  }

  // "QH 10s, 7♦": the cards typed, in order, and what could not be read.
  function parseCards(text) {
    const cards = [], bad = [];
    for (const raw of String(text).split(/[\s,;]+/).filter(Boolean)) {
      const token = [...raw.toUpperCase()].map((c) => SYMBOLS[c] || c).join("");
      const found = CARD.exec(token);
      if (found) cards.push(found[1] + found[2]);
      else bad.push(raw);
    }
    return { cards, bad };
  }

  function button(label, cls, onClick) {
    const node = el("button", cls || "", label);
    node.type = "button";
    node.addEventListener("click", onClick);
    return node;
  }

  // -- the table ----------------------------------------------------------------------------------

  function renderBoard(current) {
    snap = current;
    const s = current.state;
    renderOutcome(s);
    renderStatus(s);
    renderVerdict(s);
    renderPending(s);
    renderLayout(s);
    renderSeats(s);
    renderEnd(s);
    if (HOST && $("el-controls")) renderControls(s);
  }

  function phaseText(s) {
    if (s.phase === "starter") {
      if (s.turned) return t("el_phase_starter_judge", { judge: judgeName(s) });
      return t(s.options.cards === "physical" ? "el_phase_starter_physical" : "el_phase_starter");
    }
    if (s.phase === "play") return t("el_phase_play", { seat: seatName(s.turn) });
    if (s.phase === "judge") return t("el_phase_judge", { judge: judgeName(s) });
    if (s.phase === "review") return t("el_phase_review", { seat: seatName(s.prophet.seat) });
    return t("el_phase_over");
  }

  function renderOutcome(s) {
    const box = $("el-outcome");
    box.hidden = !s.outcome;
    if (!s.outcome) return;
    const winners = s.scores ? s.scores.winners : [];
    box.textContent = !winners.length ? t("el_no_winner")
      : t(winners.length > 1 ? "winners" : "winner", { seat: nameList(winners) });
    box.className = "outcome " + (winners.length ? "won" : "el-none");
  }

  function renderStatus(s) {
    $("el-phase").textContent = phaseText(s);
    $("el-god").textContent = godName(s);
    $("el-deck").textContent = String(s.deck);
    $("el-accepted").textContent = String(s.accepted);
    $("el-refused").textContent = String(s.refused);
    $("el-played").textContent = String(s.played);
    const limit = s.options.sudden_death;
    const sudden = $("el-sudden");
    sudden.textContent = limit === null ? t("el_sudden_never")
      : s.sudden_death ? t("el_sudden_on") : t("el_sudden_at", { count: limit, left: limit - s.played });
    sudden.classList.toggle("on", !!s.sudden_death);
    const prophet = $("el-prophet-line");
    const parts = [];
    if (s.prophet) parts.push(t("el_prophet_is", { seat: seatName(s.prophet.seat) }));
    if (s.fallen_prophets.length) parts.push(t("el_fallen", { seats: nameList(s.fallen_prophets) }));
    prophet.textContent = parts.join(" ");
  }

  function verdictWord(v) {
    if (v.no_play) return t(v.accepted ? "el_v_right" : "el_v_wrong");
    return t(v.accepted ? "el_v_accepted" : "el_v_refused");
  }

  // The last play settled: what was played, the verdict that stands, who gave it, what followed.
  function renderVerdict(s) {
    const box = $("el-verdict");
    const v = s.last_verdict;
    box.hidden = !v;
    if (!v) return box.replaceChildren();
    box.className = "el-verdict " + (v.accepted ? "accepted" : "refused");
    box.dataset.accepted = String(v.accepted);
    const what = el("div", "el-verdict-what");
    what.append(
      el("span", "label", t("el_last_verdict")),
      el("span", "", t(v.no_play ? "el_v_no_play" : "el_v_play", { seat: seatName(v.seat) })),
      fan(v.cards, v.no_play ? "el-shown" : ""),
    );
    const word = el("strong", "el-verdict-word", verdictWord(v));
    word.id = "el-verdict-word";
    const lines = [];
    if (v.overturned) {
      lines.push(t("el_v_overturned", { prophet: seatName(v.prophet) }));
    } else if (v.by === "prophet") {
      lines.push(t("el_v_by_prophet", { prophet: seatName(v.prophet) }));
    } else {
      lines.push(t("el_v_by_god", { god: godName(s) }));
    }
    if (v.no_play) lines.unshift(t(v.accepted ? "el_v_right_why" : "el_v_wrong_why"));
    const by = el("p", "el-verdict-by", lines.join(" "));
    const more = el("p", "el-verdict-more");
    if (v.god_card) {
      more.append(el("span", "", t(v.overturned || v.by === "god" ? "el_v_god_card" : "el_v_prophet_card") + " "),
        cardNode(v.god_card), document.createTextNode(" "));
    }
    const after = [];
    if (v.no_play && v.accepted) after.push(t("el_v_new_hand", { seat: seatName(v.seat) }));
    if (v.penalty) after.push(t("el_v_penalty", { seat: seatName(v.seat), count: v.penalty }));
    if (v.overturned && !v.accepted) after.push(t("el_v_protected", { seat: seatName(v.seat) }));
    if (v.eliminated) after.push(t("el_v_eliminated", { seat: seatName(v.seat) }));
    if (after.length) more.append(el("span", "", after.join(" ")));
    box.replaceChildren(what, word, by, ...(more.childNodes.length ? [more] : []));
  }

  // What waits for a verdict: a starter card God turned, a series, a no-play and its hand.
  function renderPending(s) {
    const box = $("el-pending");
    const parts = [...judged(s).childNodes];
    if (parts.length && s.judge) parts.push(el("span", "el-awaits", t("el_p_awaits", { judge: judgeName(s) })));
    box.hidden = !parts.length;
    box.replaceChildren(...parts);
  }

  // Which cards the last verdict laid: marked on the table until the next one.
  function fresh(s) {
    const v = s.last_verdict;
    const out = { line: new Set(), below: false };
    if (!v || !s.line.length) return out;
    if (v.no_play) {
      if (!v.accepted && v.god_card) out.line.add(s.line.length - 1);
    } else if (v.accepted) {
      for (let i = s.line.length - v.cards.length; i < s.line.length; i++) out.line.add(i);
    } else {
      out.below = true;  // the last series below the last accepted card
    }
    return out;
  }

  // The cards as on the table: the starter's refused cards first, then the main line, left to
  // right, each accepted card with the refused series laid below it in the order they came.
  function renderLayout(s) {
    const marks = fresh(s);
    const items = [];
    if (s.starter_refused.length) {
      const li = el("li", "el-col el-start");
      li.id = "el-start";
      li.append(el("span", "el-pos", t("el_before_start")), el("span", "el-slot"));
      const below = el("div", "el-below");
      below.append(fan(s.starter_refused, "el-refused"));
      li.append(below);
      items.push(li);
    }
    s.line.forEach((entry, i) => {
      const li = el("li", "el-col");
      li.id = "el-pos-" + i;
      li.dataset.position = String(i + 1);
      const top = el("div", "el-top");
      const card = cardNode(entry.card);
      const who = entry.seat === null ? t("el_starter_card")
        : entry.from_no_play ? t("el_from_no_play", { seat: seatName(entry.seat) }) : seatName(entry.seat);
      card.title += " — " + who;
      card.classList.add("el-main");
      card.classList.toggle("from-no-play", entry.from_no_play);
      card.classList.toggle("fresh", marks.line.has(i));
      top.append(card);
      if (s.prophet && s.prophet.marker === i) {
        const marker = el("span", "el-marker", "★");
        marker.id = "el-marker";
        marker.title = t("el_marker", { seat: seatName(s.prophet.seat) });
        top.append(marker);
      }
      li.append(el("span", "el-pos", String(i + 1)), top);
      if (entry.below.length) {
        const below = el("div", "el-below");
        entry.below.forEach((refusal, k) => {
          const group = fan(refusal.cards, "el-refused");
          group.dataset.seat = String(refusal.seat);
          group.title = seatName(refusal.seat);
          const last = marks.below && i === s.line.length - 1 && k === entry.below.length - 1;
          group.classList.toggle("fresh", last);
          below.append(group);
        });
        li.append(below);
      }
      items.push(li);
    });
    $("el-line").replaceChildren(...items);
    $("el-empty").hidden = items.length > 0;
  }

  function renderSeats(s) {
    const over = s.phase === "over";
    const points = s.scores ? s.scores.points : [];
    const winners = s.scores ? s.scores.winners : [];
    $("el-seats").replaceChildren(...Array.from({ length: s.players }, (_, seat) => {
      const li = el("li", "el-seat");
      li.id = "el-seat-" + seat;
      li.dataset.seat = String(seat);
      const head = el("div", "el-seat-head");
      head.append(el("strong", "el-name", seatName(seat)));
      const god = seat === s.god_seat;
      if (god) head.append(badge("el-god-badge", t("el_badge_god")));
      if (!over && seat === s.turn) {
        li.classList.add("turn");
        head.append(badge("el-turn-badge", t("el_badge_turn")));
      }
      if (s.judge && s.judge.seat === seat) head.append(badge("el-judge-badge", t("el_badge_judging")));
      if (s.prophet && s.prophet.seat === seat) head.append(badge("el-prophet-badge", t("el_badge_prophet")));
      if (s.fallen_prophets.includes(seat)) head.append(badge("el-fallen-badge", t("el_badge_fallen")));
      if (s.eliminated.includes(seat)) {
        li.classList.add("eliminated");
        head.append(badge("el-eliminated-badge", t("el_badge_eliminated")));
      }
      if (winners.includes(seat)) {
        li.classList.add("winner");
        head.append(badge("el-winner-badge", t("el_badge_winner")));
      }
      li.append(head);
      const size = s.hand_sizes[seat];
      const line = el("div", "el-seat-line");
      if (size !== null) {
        const hand = el("span", "el-hand-size", t("el_hand_size", { count: size }));
        hand.id = "el-hand-size-" + seat;
        line.append(hand);
      }
      if (over && points.length) line.append(el("span", "el-points", t("el_points", { count: points[seat] })));
      li.append(line);
      return li;
    }));
  }

  // The end: why, God's rule revealed, the scores.
  function renderEnd(s) {
    const box = $("el-end");
    box.hidden = s.phase !== "over";
    if (s.phase !== "over") return box.replaceChildren();
    const parts = [];
    if (s.outcome) parts.push(el("p", "el-end-reason", t("el_end_" + s.outcome.reason)));
    const rule = el("div", "el-rule");
    rule.id = "el-rule";
    if (s.rule) {
      const description = s.rule.description ? s.rule.description[lang] || s.rule.description.en : null;
      rule.append(el("span", "label", t("el_rule_was")), el("strong", "el-rule-words", description || s.rule.text));
      if (description) rule.append(el("code", "el-rule-text", s.rule.text));
      if (s.rule.level) rule.append(badge("el-level", t("el_level_" + s.rule.level)));
    } else {
      rule.append(el("span", "", t(s.god === "human" ? "el_rule_human" : "el_rule_unknown")));
    }
    parts.push(rule);
    const scores = s.scores;
    if (scores && scores.change_god) parts.push(el("p", "", t("el_change_god")));
    else if (scores) {
      const list = el("ul", "el-scores");
      list.id = "el-scores";
      scores.points.forEach((points, seat) => {
        const li = el("li", scores.winners.includes(seat) ? "winner" : "");
        li.append(el("span", "", seatName(seat)), el("strong", "", String(points)));
        list.append(li);
      });
      if (s.god === "companion" && scores.god !== null) {
        const li = el("li", "el-companion");
        li.append(el("span", "", t("el_god_companion_score")), el("strong", "", String(scores.god)));
        list.append(li);
      }
      parts.push(el("h2", "", t("el_scores")), list);
      if (scores.prophet) {
        parts.push(el("p", "hint", t("el_prophet_score", {
          seat: seatName(scores.prophet.seat), a: scores.prophet.a, b: scores.prophet.b,
        })));
      }
    }
    box.replaceChildren(...parts);
  }

  // -- choices: the judge's verdicts, the prophet's declaration, God's mistake ----------------------

  function cardChoice(label, code, action, act) {
    const node = button("", "el-choice plain", () => act(action));
    node.append(el("span", "", label + " "), cardNode(code));
    return node;
  }

  // The verdicts open to ``seat`` (the judge now) as buttons that send an action through ``act``.
  function verdictButtons(s, seat, act) {
    const judge = s.judge;
    if (!judge || judge.seat !== seat) return [];
    const out = [];
    const choice = (label, action, cls) => out.push(button(label, "el-choice " + (cls || ""), () => act(action)));
    if (s.phase === "starter" && s.turned) {
      choice(t("el_accept"), { kind: "judge", seat, accepted: true }, "ok");
      choice(t("el_refuse"), { kind: "judge", seat, accepted: false }, "ko");
      return out;
    }
    const p = s.pending;
    if (!p) return out;
    if (s.phase === "judge") {
      const kind = judge.by === "prophet" ? "prophet_judge" : "judge";
      if (!p.no_play) {
        choice(t("el_accept"), { kind, seat, accepted: true }, "ok");
        choice(t("el_refuse"), { kind, seat, accepted: false }, "ko");
      } else {
        choice(t("el_no_play_right"), { kind, seat, accepted: true }, "ok");
        for (const code of [...new Set(p.cards)]) {
          out.push(cardChoice(t("el_no_play_wrong"), code, { kind, seat, accepted: false, card: code }, act));
        }
      }
    } else if (s.phase === "review") {
      choice(t("el_uphold"), { kind: "uphold", seat }, "ok");
      if (!p.no_play) choice(t("el_overturn"), { kind: "overturn", seat }, "ko");
      else {
        if (p.prophet_accepted === false) choice(t("el_overturn_right"), { kind: "overturn", seat }, "ko");
        for (const code of [...new Set(p.cards)]) {
          if (code !== p.prophet_card) out.push(cardChoice(t("el_overturn_card"), code, { kind: "overturn", seat, card: code }, act));
        }
      }
    }
    return out;
  }

  // What the judge is judging: the starter card, or the play and its cards.
  function judged(s) {
    const box = el("div", "el-judged");
    if (s.phase === "starter" && s.turned) box.append(el("span", "", t("el_p_turned")), cardNode(s.turned));
    else if (s.pending) {
      const p = s.pending;
      box.append(el("span", "", t(p.no_play ? "el_p_no_play" : "el_p_play", { seat: seatName(p.seat) })),
        fan(p.cards, p.no_play ? "el-shown" : ""));
      if (p.prophet_accepted !== null) {
        const said = p.no_play ? (p.prophet_accepted ? "el_v_right" : "el_v_wrong")
          : (p.prophet_accepted ? "el_v_accepted" : "el_v_refused");
        box.append(el("span", "el-said", t("el_p_prophet_said", { prophet: seatName(s.prophet.seat), verdict: t(said) })));
        if (p.prophet_card) box.append(cardNode(p.prophet_card));
      }
    }
    return box;
  }

  function verdictHint(s) {
    if (s.phase === "starter") return t("el_judge_starter");
    if (s.phase === "review") return t("el_judge_review", { prophet: seatName(s.prophet.seat) });
    return s.judge.by === "prophet" ? t("el_judge_prophet") : t("el_judge_god");
  }

  function admitButton(s, seat, act) {
    return button(t("el_admit_mistake"), "plain el-admit", () => {
      if (window.confirm(t("el_admit_confirm"))) act({ kind: "admit_mistake", seat });
    });
  }

  // -- the host's controls --------------------------------------------------------------------------

  async function hostAct(action, errorId = "el-error") {
    const error = $(errorId);
    for (const box of document.querySelectorAll("#el-controls .error")) box.textContent = "";
    try {
      render(await post("/api/act", action));
      return true;
    } catch (failure) {
      if (error) error.textContent = failure.message;
      return false;
    }
  }

  function renderControls(s) {
    const rows = [];
    const judge = s.judge;
    if (judge) {  // a human God's, or the prophet's (the companion gives its own at once)
      const verdicts = verdictButtons(s, judge.seat, hostAct);
      if (verdicts.length) {
        rows.push(el("h3", "", t("el_for", { seat: judgeName(s) })), el("p", "hint", verdictHint(s)), judged(s));
        const row = el("div", "el-choices");
        row.append(...verdicts);
        rows.push(row);
      }
    }
    if (s.may_declare_prophet.length) {
      const row = el("div", "el-choices");
      row.append(...s.may_declare_prophet.map((seat) =>
        button(t("el_declare_for", { seat: seatName(seat) }), "plain el-declare", () => hostAct({ kind: "declare_prophet", seat }))));
      rows.push(el("h3", "", t("el_prophecy")), row);
    }
    if (s.god === "human" && s.phase !== "over") {
      const row = el("div", "el-choices");
      row.append(admitButton(s, s.god_seat, hostAct));
      rows.push(el("h3", "", t("el_for", { seat: godName(s) })), row);
    }
    const decide = $("el-decide");
    decide.replaceChildren(...rows);
    decide.hidden = rows.length === 0;
    renderEntry(s);
  }

  // The card entry: the card God turned for the start (physical cards), or the cards laid by the
  // player in turn (a series of 1 to 4, or the hand shown for a no-play).
  function entryMode(s) {
    const physical = s.options.cards === "physical";
    if (s.phase === "starter" && !s.turned && physical) return "turn";
    if (s.phase === "play" && s.turn !== null) return "play";
    return null;
  }

  function renderEntry(s) {
    const mode = entryMode(s);
    const panel = $("el-entry-panel");
    panel.hidden = mode === null;
    const key = [snap.game_id, s.phase, s.turn, s.accepted, s.refused, s.starter_refused.length].join("/");
    if (key !== entry.key) {
      entry.key = key;
      $("el-entry").value = "";
      $("el-entry-error").textContent = "";
    }
    if (mode === null) return;
    const physical = s.options.cards === "physical";
    const hand = s.hand_sizes[s.turn];
    $("el-entry-title").textContent = mode === "turn" ? t("el_entry_turn_title")
      : t("el_entry_play_title", { seat: seatName(s.turn) });
    $("el-entry-hint").textContent = mode === "turn" ? t("el_entry_turn_hint", { deck: s.deck })
      : physical ? t("el_entry_hint_physical", { count: hand }) : t("el_entry_hint_digital", { seat: seatName(s.turn) });
    const { cards, bad } = parseCards($("el-entry").value);
    $("el-entry-preview").replaceChildren(...cards.map((code) => cardNode(code)),
      ...bad.map((raw) => el("span", "el-bad", raw)));
    const play = $("el-entry-play");
    play.textContent = mode === "turn" ? t("el_turn_card") : t("el_play_these", { count: cards.length });
    play.disabled = bad.length > 0 || (mode === "turn" ? cards.length !== 1 : cards.length < 1 || cards.length > MAX_SERIES);
    const noPlay = $("el-entry-no-play");
    noPlay.hidden = mode !== "play";
    noPlay.textContent = physical ? t("el_no_play_shown", { count: hand }) : t("el_no_play_digital");
    noPlay.disabled = physical && (bad.length > 0 || cards.length !== hand);
  }

  async function sendEntry(noPlay) {
    const s = snap.state;
    const mode = entryMode(s);
    const { cards, bad } = parseCards($("el-entry").value);
    if (bad.length) {
      $("el-entry-error").textContent = t("el_bad_cards", { cards: bad.join(" ") });
      return;
    }
    let action;
    if (mode === "turn") action = { kind: "turn_card", card: cards[0] };
    else if (noPlay) action = { kind: "no_play", seat: s.turn, cards: s.options.cards === "physical" ? cards : [] };
    else action = { kind: "play", seat: s.turn, cards };
    if (await hostAct(action, "el-entry-error")) {
      $("el-entry").value = "";
      renderEntry(snap.state);
    }
  }

  // The 52 cards, a row per suit: a tap adds the card to the entry.
  function buildPicker(box, onPick) {
    box.replaceChildren(...SUIT_LETTERS.map((suit) => {
      const row = el("div", "el-picker-row");
      row.append(...RANKS.map((rank) => {
        const node = button("", "el-pick", () => onPick(rank + suit));
        node.append(cardNode(rank + suit));
        node.dataset.card = rank + suit;
        return node;
      }));
      return row;
    }));
  }

  // -- the new game's options and the rule checker ----------------------------------------------------

  function options(data) {
    const out = {
      players: Number(data.get("el_players")),
      god: String(data.get("el_god")),
      cards: String(data.get("el_cards")),
    };
    if (out.god === "human") out.god_seat = Number(data.get("el_god_seat")) - 1;
    else if (data.get("el_rule_source") === "typed") out.rule = String(data.get("el_rule") || "");
    else out.level = String(data.get("el_level"));
    if (data.get("el_decks") !== "auto") out.decks = Number(data.get("el_decks"));
    for (const name of ["hand_size", "refused_penalty", "no_play_smaller", "wrong_no_play_penalty", "fallen_prophet_penalty"]) {
      const value = String(data.get("el_" + name) || "").trim();
      if (value !== "") out[name] = Number(value);
    }
    const sudden = String(data.get("el_sudden_death") || "").trim();
    out.sudden_death = sudden === "" ? null : Number(sudden);
    // the rules the seed lacks (docs/ELEUSIS.md): Abbott's by default
    out.prophet_once = data.get("el_prophet_once") !== null;
    const others = String(data.get("el_prophet_min_others") || "").trim();
    if (others !== "") out.prophet_min_others = Number(others);
    out.god_without_prophet = String(data.get("el_god_without_prophet") || "highest");
    return out;
  }

  function setupForm(form) {
    const shown = () => {
      const human = form.elements.el_god.value === "human";
      const typed = form.elements.el_rule_source.value === "typed";
      $("el-god-seat-box").hidden = !human;
      $("el-source-box").hidden = human;
      $("el-level-box").hidden = human || typed;
      $("el-rule-box").hidden = !human && !typed;
      // data-label: applyLabels (table.js) says them again in the table's language
      $("el-rule-label").dataset.label = human ? "el_rule_label_human" : "el_rule_label";
      $("el-rule-hint").dataset.label = human ? "el_rule_hint_human" : "el_rule_hint";
      for (const id of ["el-rule-label", "el-rule-hint"]) $(id).textContent = t($(id).dataset.label);
    };
    form.elements.el_god.addEventListener("change", shown);
    form.elements.el_rule_source.addEventListener("change", shown);
    shown();
    const rule = $("el-rule");
    $("el-rule-show").addEventListener("change", (event) => {
      rule.type = event.target.checked ? "text" : "password";
      if (lastReport) showReport(lastReport.report, lastReport.text);
    });
    rule.addEventListener("input", () => clearReport());
    rule.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {  // checks the rule; the game starts with its own button
        event.preventDefault();
        check();
      }
    });
    $("el-check").addEventListener("click", () => check());
    $("el-check-clear").addEventListener("click", () => {
      rule.value = "";
      clearReport();
    });
  }

  let lastReport = null;  // {report, text}: shown again, masked or not, when "show" changes

  function clearReport() {
    lastReport = null;
    $("el-check-report").hidden = true;
    $("el-check-report").replaceChildren();
  }

  async function check() {
    const text = $("el-rule").value;
    clearReport();
    try {
      const report = await post("/api/eleusis/check", { rule: text, language: lang });
      if ($("el-rule").value !== text) return;  // typed on meanwhile: this report is stale
      lastReport = { report, text };
      showReport(report, text);
    } catch (failure) {
      const box = $("el-check-report");
      box.hidden = false;
      box.replaceChildren(el("p", "error", failure.message));
    }
  }

  // The rule with its faulty column marked; the other characters as dots unless "show" is on.
  function markColumn(text, column) {
    const shown = $("el-rule-show").checked;
    const chars = [...text];
    const at = Math.min(Math.max(column - 1, 0), chars.length);
    const words = (part) => (shown ? part.join("") : "•".repeat(part.length));
    const code = el("code", "el-rule-mark");
    code.id = "el-check-mark";
    code.append(document.createTextNode(words(chars.slice(0, at))));
    const mark = el("mark", "", at < chars.length ? words([chars[at]]) : " ");
    mark.dataset.column = String(column);
    code.append(mark, document.createTextNode(words(chars.slice(at + 1))));
    const input = $("el-rule");
    const start = chars.slice(0, at).join("").length;
    const end = start + (at < chars.length ? chars[at].length : 0);
    try {
      input.focus();
      input.setSelectionRange(start, Math.max(end, start));
    } catch (_) {
      // an input that cannot be selected: the mark below says where
    }
    return code;
  }

  function showReport(report, text) {
    const box = $("el-check-report");
    box.hidden = false;
    if (!report.ok) {
      box.className = "el-check-report bad";
      // the sentence quoting the rule only while the host chose to show the rule's field
      const sentence = $("el-rule-show").checked && report.error.quoted ? report.error.quoted : report.error.text;
      box.replaceChildren(el("p", "error el-check-error", sentence), markColumn(text, report.error.column));
      return;
    }
    box.className = "el-check-report " + (report.fit ? "good" : "warn");
    const parts = [el("p", "el-check-verdict", t(report.fit ? "el_check_fit" : "el_check_unfit"))];
    const facts = el("ul", "el-check-facts");
    const blocking = el("li", "");
    if (report.blocks) {
      blocking.append(el("span", "", t("el_check_blocks") + " "));
      if (report.blocking_line && report.blocking_line.length) blocking.append(fan(report.blocking_line));
      else blocking.append(el("span", "", t("el_check_blocks_at_start")));
    } else {
      blocking.textContent = t(report.exhaustive ? "el_check_never_blocks" : "el_check_no_block_seen");
    }
    facts.append(blocking,
      el("li", "", t("el_check_acceptance", { percent: report.percent })),
      el("li", "", t("el_check_first_cards", { count: report.first_cards })),
      el("li", "", t("el_check_lookback", { count: report.lookback })));
    parts.push(facts);
    if (report.advice.length) {
      const advice = el("ul", "el-check-advice");
      advice.append(...report.advice.map((a) => {
        const li = el("li", "", a.text);
        li.dataset.code = a.code;
        return li;
      }));
      parts.push(advice);
    }
    box.replaceChildren(...parts);
  }

  // A game has started: the rule typed leaves the page (and so does its report).
  function started() {
    $("el-rule").value = "";
    $("el-rule-show").checked = false;
    $("el-rule").type = "password";
    clearReport();
  }

  // A game the server refused to start: a typed rule is checked, to show where it goes wrong.
  function refused(form) {
    const human = form.elements.el_god.value === "human";
    if (!human && form.elements.el_rule_source.value === "typed" && $("el-rule").value.trim()) check();
  }

  function setupHost() {
    const form = $("new-game");
    if (form && form.elements.el_god) setupForm(form);
    if (!$("el-controls")) return;
    const input = $("el-entry");
    input.addEventListener("input", () => {
      $("el-entry-error").textContent = "";
      if (snap) renderEntry(snap.state);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        if (!$("el-entry-play").disabled) sendEntry(false);
      }
    });
    $("el-entry-play").addEventListener("click", () => sendEntry(false));
    $("el-entry-no-play").addEventListener("click", () => sendEntry(true));
    $("el-entry-clear").addEventListener("click", () => {
      input.value = "";
      if (snap) renderEntry(snap.state);
    });
    buildPicker($("el-picker"), (code) => {
      input.value = (input.value.trim() + " " + code).trim();
      if (snap) renderEntry(snap.state);
    });
  }

  // -- a phone's own seat ---------------------------------------------------------------------------

  // The seat's hand as cards to tap in order, its series, and its choices; returns the line to
  // show as the seat's status ("" when there is nothing to say).
  function renderSeat(view, act) {
    const s = view.public.state;
    const mine = view.private || {};
    const seat = view.seat;
    const hand = Array.isArray(mine.my_hand) ? mine.my_hand : null;
    const key = [view.public.game_id, hand ? hand.join(",") : ""].join("/");
    if (key !== phone.key) {
      phone.key = key;
      phone.series = [];
    }
    const over = s.phase === "over";
    const god = seat === s.god_seat;
    const prophet = !!s.prophet && s.prophet.seat === seat;
    const eliminated = s.eliminated.includes(seat);
    const myTurn = !over && s.phase === "play" && s.turn === seat;

    $("el-role").textContent = god ? t("el_role_god") : prophet ? t("el_role_prophet")
      : eliminated ? t("el_role_eliminated") : s.hand_sizes[seat] === null ? ""
      : t(hand ? "el_role_player" : "el_role_physical", { count: s.hand_sizes[seat] });

    $("el-hand-box").hidden = !hand;
    if (hand) {
      $("el-hand-count").textContent = t("el_hand_size", { count: hand.length });
      $("el-hand").replaceChildren(...hand.map((code, index) => {
        const order = phone.series.indexOf(index);
        const node = button("", "el-hand-card" + (order >= 0 ? " chosen" : ""), () => {
          tap(index);
          renderSeat(Seat.view(), act);
        });
        node.id = "el-hand-" + index;
        node.dataset.card = code;
        node.setAttribute("aria-pressed", order >= 0 ? "true" : "false");
        node.append(cardNode(code));
        if (order >= 0) node.append(el("span", "el-order", String(order + 1)));
        node.disabled = over || god || eliminated;
        return node;
      }));
    }
    const series = phone.series.map((i) => hand[i]);
    $("el-series-box").hidden = !hand || !series.length;
    $("el-series").replaceChildren(...series.map((code, i) => {
      const item = el("span", "el-series-card");
      item.append(el("span", "el-order", String(i + 1)), cardNode(code));
      return item;
    }));

    const actions = [];
    let status = "";
    if (myTurn && hand) {
      const play = button(t("el_play_series", { count: series.length }), "el-play", async () => {
        await act({ kind: "play", seat, cards: series });
        if (!$("seat-error").textContent) phone.series = [];
      });
      play.id = "el-play";
      play.disabled = series.length < 1 || series.length > MAX_SERIES;
      const clear = button(t("el_clear"), "plain el-clear", () => {
        phone.series = [];
        renderSeat(Seat.view(), act);
      });
      clear.id = "el-clear";
      clear.disabled = !series.length;
      const noPlay = button(t("el_no_play"), "plain el-no-play", () => {
        if (window.confirm(t("el_no_play_confirm"))) act({ kind: "no_play", seat, cards: [] });
      });
      noPlay.id = "el-no-play";
      actions.push(play, clear, noPlay);
      status = t("el_your_turn");
    } else if (myTurn) {
      status = t("el_your_turn_physical");
    }
    if (!over && s.may_declare_prophet.includes(seat)) {
      const declare = button(t("el_declare"), "plain el-declare", () => {
        if (window.confirm(t("el_declare_confirm"))) act({ kind: "declare_prophet", seat });
      });
      declare.id = "el-declare";
      actions.push(declare);
    }
    const verdicts = verdictButtons(s, seat, act);
    if (verdicts.length) {
      actions.push(el("p", "el-verdict-hint", verdictHint(s)), judged(s), ...verdicts);
      status = t("el_your_verdict");
    }
    if (god && !over) actions.push(admitButton(s, seat, act));
    $("el-seat-actions").replaceChildren(...actions);
    if (!status && !over) status = phaseText(s);
    return status;
  }

  // A tap on a card of the hand: added at the end of the series, or taken out of it.
  function tap(index) {
    const at = phone.series.indexOf(index);
    if (at >= 0) phone.series.splice(at, 1);
    else if (phone.series.length < MAX_SERIES) phone.series.push(index);
  }

  return { render: renderBoard, setupHost, options, started, refused, seat: renderSeat, parseCards };
})();

registerGame("eleusis", {
  render: Eleusis.render,
  options: Eleusis.options,
  setupHost: Eleusis.setupHost,
  started: Eleusis.started,  // the secret rule leaves the page
  refused: Eleusis.refused,
  // on a phone: the seat's hand, the series it builds and its choices, sent with Seat.act
  mustAct: (view) => view.public.state.phase === "play" && view.public.state.turn === view.seat,
  seat(view, act) {
    $("el-mine").hidden = false;
    return Eleusis.seat(view, act);
  },
  seatBox: "el-mine",
});
