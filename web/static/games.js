// The games' parts of the table page. Each game's own file (web/static/<game>.js, loaded in the
// order of companion/games/titles.py) registers its part here with registerGame; table.js and
// seat.js find a game by its title and name none. A part has:
//   board       the id of its section on the page (web/templates/games/<game>/board.html);
//               its title by default
//   buttons     true if the seats play it with their buttons: the host's virtual button panel
//               is shown and follows its seats
//   render(snap)        draws the public snapshot on its board
//   options(data)       the new-game form's data (its fieldset: games/<game>/options.html) as
//                       the game's options
//   setupHost()         (host page; optional) wires its controls and its options' fields
//   started(), refused(form)   (optional) once the new-game form was accepted, or refused
// On a seat's phone (seat.js), each optional, while the game runs:
//   decision(view)      what the seat's A and B mean now: [label of A, label of B], a label
//                       null for a button that does nothing, or null; a game without it has
//                       no use for them, and they are hidden
//   mustAct(view)       whether this seat has to act now: its phone cues it (never without it)
//   seat(view, act)     draws the game's own part of the seat card (``act`` sends the seat's
//                       action) and returns the seat's status line (undefined: the default)
//   seatBox             the id of that part, hidden while another game runs
"use strict";

const GAMES = new Map();

function registerGame(title, part) {
  GAMES.set(title, { board: title, buttons: false, ...part });
}

// The part of the game a snapshot shows running (undefined when none runs).
function runningPart(snap) {
  return snap && snap.state ? GAMES.get(snap.game) : undefined;
}
