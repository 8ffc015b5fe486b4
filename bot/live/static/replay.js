"use strict";
// ▶ Replay on the table page: a finished hand, face up, stepped through card by card
// (bot/live/replay.py sends its frames and their captions in the reader's language).
// Forward, back, first, last, a trick's number to jump to it, ← and → on a keyboard; the
// coach's review marks the reader's own costly cards once it has been thought out.
// Every string goes in with textContent, never as HTML.
(() => {
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  let page = null, shown = null, at = 0, marks = null, requestId = 100000;

  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  function face(code) {
    const suit = code.slice(-1), rank = code.slice(0, -1).replace("T", "10");
    return page.cardFace({ code, rank, suit });
  }

  function ask(hand) {
    requestId += 1;
    page.send({ t: "replay", id: requestId, game: page.game(), hand });
  }

  // A row of the finished hands (the scores panel), and one hand's button (the banner).
  function row(state) {
    const p = el("p");
    p.id = "replays";
    p.append("▶ ");
    for (const h of state.history.hands) p.append(button(h.hand, String(h.hand)));
    return p;
  }
  function button(hand, label) {
    const b = el("button", "replay-button", label || "▶");
    b.dataset.hand = hand;
    b.onclick = () => ask(hand);
    return b;
  }

  function box() {
    let section = document.getElementById("replay");
    if (section) return section;
    section = el("section");
    section.id = "replay";
    const header = el("header");
    const title = el("h2");
    title.id = "replay-title";
    const close = el("button", null, "✕");
    close.id = "replay-close";
    close.onclick = () => { section.hidden = true; shown = null; };
    header.append(title, close);
    const hands = el("div"); hands.id = "replay-hands";
    const trick = el("div"); trick.id = "replay-trick";
    const caption = el("div"); caption.id = "replay-caption";
    const controls = el("div"); controls.id = "replay-controls";
    const go = (id, text, to) => {
      const b = el("button", null, text);
      b.id = id;
      b.onclick = () => show(to());
      controls.append(b);
    };
    go("replay-first", "⏮", () => 0);
    go("replay-back", "◀", () => at - 1);
    const step = el("span"); step.id = "replay-step";
    controls.append(step);
    go("replay-forward", "▶", () => at + 1);
    go("replay-last", "⏭", () => shown.frames.length - 1);
    const tricks = el("div"); tricks.id = "replay-tricks";
    const review = el("div"); review.id = "replay-review";
    section.append(header, hands, trick, caption, controls, tricks, review);
    document.getElementById("app").append(section);
    document.addEventListener("keydown", (event) => {
      if (section.hidden || !shown) return;
      const rtl = document.documentElement.dir === "rtl";
      if (event.key === "ArrowRight") show(at + (rtl ? -1 : 1));
      else if (event.key === "ArrowLeft") show(at + (rtl ? 1 : -1));
    });
    return section;
  }

  function open(said) {
    shown = said;
    marks = null;
    const section = box();
    document.getElementById("replay-title").textContent = said.title;
    const tricks = document.getElementById("replay-tricks");
    tricks.replaceChildren();
    for (const t of said.tricks) {
      const b = el("button", null, String(t.number));
      b.dataset.trick = t.number;
      // A trick's number shows it taken: its four cards and who took them.
      b.onclick = () => show(said.frames.findIndex((f) => f.trick === t.number && f.winner !== null));
      tricks.append(b);
    }
    document.getElementById("replay-review").replaceChildren();
    section.hidden = false;
    show(0);
  }

  function marked(frame, seat, code) {
    if (!marks || seat !== shown.you) return null;
    return marks.marks.find((m) => m.mine.includes(code) && !m.expert.includes(code) &&
      (m.trick === 0 ? frame.step === "deal" : m.trick === frame.trick)) || null;
  }

  function show(index) {
    if (!shown) return;
    at = Math.max(0, Math.min(shown.frames.length - 1, index));
    const frame = shown.frames[at];
    const section = document.getElementById("replay");
    section.dataset.frame = at;
    section.dataset.step = frame.step;
    const hands = document.getElementById("replay-hands");
    hands.replaceChildren();
    frame.hands.forEach((cards, seat) => {
      const line = el("div", "replay-seat" + (seat === shown.you ? " you" : ""));
      line.dataset.seat = seat;
      const taken = frame.taken[seat];
      line.append(el("div", "name", `${shown.names[seat]} · ${Array.isArray(taken) ? taken.join("+") + "i" : taken}`));
      const row = el("div", "cards");
      for (const code of cards) {
        const card = face(code);
        const mark = frame.step === "deal" ? marked(frame, seat, code) : null;
        if (mark) { card.classList.add("mistake"); card.title = "🔍 " + mark.expert.join(" "); }
        row.append(card);
      }
      line.append(row);
      hands.append(line);
    });
    const trick = document.getElementById("replay-trick");
    trick.replaceChildren();
    trick.dataset.trick = frame.trick;
    for (const [seat, code] of frame.table) {
      const play = el("div", "play" + (frame.winner === seat ? " winner" : ""));
      play.dataset.seat = seat;
      const card = face(code);
      const mark = marked(frame, seat, code);
      if (mark) { card.classList.add("mistake"); card.title = "🔍 " + mark.expert.join(" "); }
      play.append(card, el("div", "who", shown.names[seat]));
      trick.append(play);
    }
    const caption = document.getElementById("replay-caption");
    caption.replaceChildren(...shown.captions[at].map((line) => el("p", null, line)));
    document.getElementById("replay-step").textContent = `${at + 1}/${shown.frames.length}`;
    document.getElementById("replay-back").disabled = at === 0;
    document.getElementById("replay-first").disabled = at === 0;
    document.getElementById("replay-forward").disabled = at === shown.frames.length - 1;
    document.getElementById("replay-last").disabled = at === shown.frames.length - 1;
    for (const b of document.getElementById("replay-tricks").children) {
      b.classList.toggle("current", Number(b.dataset.trick) === frame.trick);
    }
  }

  function received(said) {
    if (said.t === "replay") open(said);
    else if (said.t === "marks" && shown && said.game === shown.game && said.hand === shown.hand) {
      marks = said;
      const review = document.getElementById("replay-review");
      review.replaceChildren(...said.review.map((line) => el("p", null, line)));
      show(at);
    }
  }

  // A hand's replay opened from the chat: ``?r=<hand>`` (a DM's button) or the Mini App's
  // ``g<game>r<hand>`` (the group's link); asked once, when the table's first state came.
  function wanted() {
    const asked = new URLSearchParams(location.search).get("r");
    const app = window.Telegram && window.Telegram.WebApp;
    const start = (app && app.initDataUnsafe && app.initDataUnsafe.start_param) ||
      new URLSearchParams(location.hash.slice(1)).get("tgWebAppStartParam") || "";
    const found = asked || (start.match(/^g[0-9]+r([0-9]+)$/) || [])[1];
    return found ? Number(found) : null;
  }
  let opened = false;
  function seen(state) {
    if (opened) return;
    opened = true;
    const hand = wanted();
    if (hand && hand > 0) ask(hand);
  }

  window.HeartsReplay = {
    attach(table) { page = table; },
    ask,
    seen,
    row,
    button,
    received,
  };
})();
