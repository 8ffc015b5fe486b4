"use strict";
// The table page: one WebSocket to the bot, the table drawn from the state it sends.
// Every string shown comes from the server in the reader's language and goes in with
// textContent, never as HTML.
(() => {
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const hash = new URLSearchParams(location.hash.slice(1));
  const game = new URLSearchParams(location.search).get("g");
  let socket = null, retry = null, backoff = 500, lastHeard = 0, stopped = false;
  let state = null, words = {}, pressId = 0, toastTimer = null, tick = null;
  let shownTricks = null, animating = false, panel = null, verified = null;

  const webApp = () => (window.Telegram && window.Telegram.WebApp) || null;
  function initData() {
    const app = webApp();
    return (app && app.initData) || hash.get("tgWebAppData") || "";
  }
  function themeParams() {
    const app = webApp();
    if (app && app.themeParams && Object.keys(app.themeParams).length) return app.themeParams;
    try { return JSON.parse(hash.get("tgWebAppThemeParams") || "{}"); } catch (e) { return {}; }
  }
  function dark(colour) {
    const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
    if (!m) return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches;
    const [r, g, b] = m.slice(1).map((x) => parseInt(x, 16));
    return 0.299 * r + 0.587 * g + 0.114 * b < 128;
  }
  function applyTheme() {
    const p = themeParams(), root = document.documentElement;
    const names = { bg_color: "--bg", secondary_bg_color: "--bg2", text_color: "--text",
      hint_color: "--hint", button_color: "--button", button_text_color: "--button-text" };
    for (const [key, name] of Object.entries(names)) {
      if (p[key]) root.style.setProperty(name, p[key]); else root.style.removeProperty(name);
    }
    const app = webApp();
    root.dataset.scheme = (app && app.colorScheme) || (dark(p.bg_color) ? "dark" : "light");
  }

  // ------------------------------------------------------------------ connection

  function connect() {
    clearTimeout(retry);
    retry = null;
    if (stopped || (socket && socket.readyState <= 1)) return;
    const url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    url.hash = "";
    url.search = "";
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      lastHeard = Date.now();
      ws.send(JSON.stringify({ t: "hello", init: initData(), game }));
    };
    ws.onmessage = (event) => {
      lastHeard = Date.now();
      backoff = 500;
      received(JSON.parse(event.data));
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      socket = null;
      if (event.code >= 4400 && event.code < 4500) {
        stopped = true;
        if (event.code === 4409) offerReconnect();
        return;
      }
      showConnection(words.reconnecting || "Reconnecting…");
      retry = setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 5000);
    };
  }
  function offerReconnect() {
    const bar = $("connection");
    const again = document.createElement("button");
    again.textContent = "↻";
    again.onclick = () => { stopped = false; bar.hidden = true; connect(); };
    bar.append(" ", again);
  }
  function showConnection(text) {
    const bar = $("connection");
    bar.textContent = text;
    bar.hidden = !text;
  }
  setInterval(() => {
    if (!socket || socket.readyState !== 1) return;
    if (Date.now() - lastHeard > 40000) socket.close(); // a connection that went quiet
    else socket.send('{"t":"ping"}');
  }, 15000);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || stopped) return;
    if (socket && socket.readyState === 1) askFullState();
    else { backoff = 500; connect(); }
  });
  window.addEventListener("online", () => { if (!stopped) connect(); });

  function received(said) {
    if (said.t === "hello") {
      words = said.words;
      document.title = words.title;
      $("title").textContent = `♥ ${words.title}`;
      $("tracker-button").title = words.tracker;
      $("tracker-button").setAttribute("aria-label", words.tracker);
      document.documentElement.lang = said.lang;
      document.documentElement.dir = said.rtl ? "rtl" : "ltr";
      $("scores-button").title = words.scores;
      $("panel-close").title = words.close;
      showConnection("");
    } else if (said.t === "state") {
      // A game that ended is never stale (its table is let go, and its version with it).
      if (state && state.game === said.game && said.version < state.version && !said.ended) return;
      // Each change of what this page shows is numbered: one that does not follow the last
      // drawn (a state missed) is not drawn from it; the page asks for the full state.
      if (!said.full && !follows(said)) return askFullState();
      const before = state;
      state = said;
      draw(before);
      if (window.HeartsReplay) window.HeartsReplay.seen(state);
    } else if ((said.t === "replay" || said.t === "marks") && window.HeartsReplay) {
      window.HeartsReplay.received(said);
    } else if (said.t === "answer") {
      if (said.text) toast(said.text);
    } else if (said.t === "refused") {
      stopped = true;
      showConnection(said.text);
    }
  }

  function follows(said) {
    return Boolean(state) && state.game === said.game && said.change === state.change + 1;
  }
  function askFullState() {
    if (socket && socket.readyState === 1) socket.send('{"t":"state"}');
  }

  // What the page does is a typed command (bot/live/commands.py), for the game and hand
  // it shows: a page acts on its own table, and a tap on an earlier hand's cards is stale.
  function press(type, more) {
    if (!socket || socket.readyState !== 1) {
      backoff = 500;
      if (!stopped) connect();
      return toast(words.reconnecting || "…");
    }
    pressId += 1;
    const command = { type, game: state.game, hand: state.hand, ...more };
    socket.send(JSON.stringify({ t: "press", id: pressId, command }));
  }
  function sendJson(said) {
    if (!socket || socket.readyState !== 1) return toast(words.reconnecting || "…");
    socket.send(JSON.stringify(said));
  }
  function toast(text) {
    const box = $("toast");
    box.textContent = text;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 2600);
  }

  // ------------------------------------------------------------------ drawing

  function angle(seat) {
    const k = (seat - (state.you ?? 0) + state.players) % state.players; // a watcher: seat 0 below
    return (Math.PI / 2) + (k * 2 * Math.PI) / state.players;
  }
  function around(seat, rx, ry) {
    const a = angle(seat);
    return [50 + rx * Math.cos(a), 50 + ry * Math.sin(a)];
  }
  function cardFace(card, tag) {
    const face = document.createElement(tag || "div");
    face.className = "card" + (card.suit === "H" || card.suit === "D" ? " red" : "");
    face.dataset.code = card.code;
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = card.rank;
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = SUITS[card.suit];
    face.append(rank, suit);
    face.setAttribute("aria-label", card.rank + SUITS[card.suit]);
    return face;
  }
  function put(el, [x, y]) {
    el.style.left = x + "%";
    el.style.top = y + "%";
  }

  function draw(before) {
    const s = state;
    $("hand-no").textContent = `${words.hand || ""} ${s.hand}`;
    $("hearts").textContent = s.hearts_broken ? "💔" : "♥";
    drawSeats();
    drawTrick(before);
    $("status").textContent = s.status;
    drawBanner();
    drawTimer();
    drawHint();
    drawActions();
    drawCards();
    // A watcher has no seat (every seat is drawn around the table) and no cards.
    const watched = s.watchers ? ` · 👀 ${s.watchers}` : "";
    const me = s.watching ? null : s.seats[s.you];
    $("me").textContent = me ? `${me.name} (${words.you || "you"}) · ${me.score}${watched}`
      : `${words.watching || "👀"}${watched}`;
    $("me").title = words.watchers || "";
    document.body.classList.toggle("watching", Boolean(s.watching));
    // The hand's deal commitment from the deal on (README, "Fair deals").
    $("sealed").hidden = !s.sealed;
    $("sealed").textContent = s.sealed || "";
    const tracker = $("tracker-button");
    tracker.hidden = !s.tracker;
    tracker.textContent = "📋"; // its words are its title: the bar stays one line
    if (s.over && (!before || !before.over)) openPanel("scores");
    else if (panel) openPanel(panel);
  }

  function drawSeats() {
    const box = $("seats");
    box.replaceChildren();
    state.seats.forEach((seat, i) => {
      const el = document.createElement("div");
      el.className = "seat" + (seat.turn ? " turn" : "") + (i === state.you ? " you" : "");
      el.dataset.seat = i;
      const name = document.createElement("div");
      name.className = "name";
      name.textContent = (seat.computer ? "🤖 " : "") + seat.name + (seat.waiting ? " …" : "");
      const line = document.createElement("div");
      line.className = "line";
      line.textContent = `${seat.score} · +${seat.taken} · 🂠${seat.cards}`;
      el.append(name, line);
      if (i !== state.you) { put(el, around(i, 37, 42)); box.append(el); }
    });
  }

  function drawTrick(before) {
    const box = $("trick");
    const s = state;
    const newTrickTaken = before && before.game === s.game && before.hand === s.hand &&
      s.last_trick && s.tricks_done > before.tricks_done;
    if (newTrickTaken && !animating) {
      // The trick is taken: its cards fly to whoever took it, then the next one shows.
      animating = true;
      box.replaceChildren();
      const faces = s.last_trick.plays.map((play) => {
        const face = cardFace(play);
        put(face, around(play.seat, 17, 19));
        box.append(face);
        return face;
      });
      setTimeout(() => {
        faces.forEach((face) => { put(face, around(s.last_trick.winner, 37, 42)); face.classList.add("taken"); });
        setTimeout(() => { animating = false; drawTrick(null); }, 480);
      }, 650);
      return;
    }
    if (animating) return;
    box.replaceChildren();
    for (const play of state.trick) {
      const face = cardFace(play);
      put(face, around(play.seat, 17, 19));
      box.append(face);
    }
    shownTricks = state.tricks_done;
  }

  function drawBanner() {
    const banner = $("banner");
    const hands = state.history.hands;
    const fresh = state.phase === "pass" || (state.phase === "play" && state.tricks_done === 0);
    if (!hands.length || !fresh || state.over) { banner.hidden = true; return; }
    const last = hands[hands.length - 1];
    banner.textContent = `✋ ${words.hand} ${last.hand}: ` + state.seats
      .map((seat, i) => `${seat.name} ${last.points[i]}`).join(" · ");
    if (window.HeartsReplay) banner.append(" ", window.HeartsReplay.button(last.hand));
    banner.hidden = false;
  }

  function drawTimer() {
    clearInterval(tick);
    const el = $("timer");
    if (!state.deadline) { el.hidden = true; return; }
    const skew = Date.now() / 1000 - state.now;
    const show = () => {
      const left = Math.max(0, Math.round(state.deadline + skew - Date.now() / 1000));
      el.textContent = `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      el.classList.toggle("low", left <= 10);
    };
    show();
    el.hidden = false;
    tick = setInterval(show, 1000);
  }

  function drawHint() {
    const lines = (state.hint && state.hint.lines) || [];
    $("hint").textContent = lines.join("\n");
    $("hint").hidden = !lines.length;
  }

  function drawActions() {
    const box = $("actions");
    box.replaceChildren();
    const s = state;
    if (s.pass) {
      const go = document.createElement("button");
      go.id = "pass";
      go.textContent = s.pass.button;
      go.disabled = s.pass.chosen !== 3;
      go.onclick = () => press("pass");
      box.append(go);
    }
    for (const option of s.moon || []) {
      const choose = document.createElement("button");
      choose.className = "moon";
      choose.textContent = option.label;
      choose.onclick = () => press("moon", { choice: option.choice });
      box.append(choose);
    }
    if (s.hint) {
      // The DM's 💡 Hint, through the same coach: its answer comes back in the state.
      const ask = document.createElement("button");
      ask.id = "hint-button";
      ask.textContent = s.hint.button;
      ask.onclick = () => press("hint");
      box.append(ask);
    }
  }

  function drawCards() {
    const box = $("cards");
    const s = state;
    const myTurn = s.phase === "play" && s.you !== null && s.seats[s.you].turn;
    box.classList.toggle("playing", myTurn);
    box.classList.toggle("ended", Boolean(s.ended));
    box.replaceChildren();
    for (const card of s.cards) {
      const face = cardFace(card, "button");
      face.type = "button";
      face.classList.toggle("chosen", card.chosen);
      face.classList.toggle("received", card.received);
      face.classList.add(card.legal ? "legal" : "illegal");
      face.onclick = () => press("card", { card: card.code });
      box.append(face);
    }
  }

  // ------------------------------------------------------------------ panels

  function openPanel(kind) {
    panel = kind;
    const body = $("panel-body");
    body.replaceChildren();
    if (kind === "tracker" && state.tracker) {
      $("panel-title").textContent = words.tracker;
      for (const suit of ["S", "H", "C", "D"]) {
        const row = document.createElement("p");
        row.className = "suit-row";
        row.textContent = `${SUITS[suit]} ${state.tracker.played[suit].join(" ") || "—"}`;
        body.append(row);
      }
      const voids = Object.entries(state.tracker.voids)
        .map(([seat, suits]) => `${state.seats[seat].name} ${suits.map((x) => SUITS[x]).join("")}`);
      const row = document.createElement("p");
      row.textContent = `${words.voids}: ${voids.join(", ") || "—"}`;
      body.append(row);
    } else {
      $("panel-title").textContent = words.scores;
      body.append(scoresTable());
      if (state.history.hands.length) body.append(chart());
      if (state.history.hands.length && window.HeartsReplay) body.append(window.HeartsReplay.row(state));
      body.append(...verifyRow());
    }
    $("panel").hidden = false;
  }
  function scoresTable() {
    const table = document.createElement("table");
    const head = table.insertRow();
    const cell = (row, text, tag) => {
      const c = document.createElement(tag || "td");
      c.textContent = text;
      row.append(c);
    };
    cell(head, words.hand, "th");
    state.seats.forEach((seat) => cell(head, seat.name, "th"));
    for (const h of state.history.hands) {
      const row = table.insertRow();
      cell(row, String(h.hand) + (h.shooter !== null ? " 🌕" : ""));
      h.points.forEach((p) => cell(row, p));
    }
    const total = table.insertRow();
    cell(total, words.total, "th");
    state.seats.forEach((seat) => cell(total, seat.score, "th"));
    return table;
  }
  // ------------------------------------------------------------------ a deal verified

  // A finished hand's seed and commitment (the server sends them only once a hand is
  // over) checked here, in the reader's own browser, as README "Fair deals" says: the
  // deck shuffled by Fisher–Yates from the words of SHA-256(seed ‖ k), the commitment
  // SHA-256(seed text + newline + deal text).
  function verifyRow() {
    const hands = state.history.hands.filter((h) => h.seed);
    if (!hands.length || !window.crypto || !crypto.subtle) return [];
    const row = document.createElement("p");
    row.id = "verify";
    row.append(words.verify + " ");
    for (const h of hands) {
      const b = document.createElement("button");
      b.textContent = String(h.hand);
      b.dataset.hand = h.hand;
      b.onclick = () => verifyHand(h);
      row.append(b);
    }
    const out = [row];
    if (verified && verified.game === state.game) {
      const result = document.createElement("p");
      result.id = "verified";
      result.className = verified.ok ? "ok" : "bad";
      result.textContent = verified.lines.join("\n");
      out.push(result);
    }
    return out;
  }
  async function sha256(bytes) {
    return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  }
  async function dealOf(seed) {
    const [size, dealer, hexed] = seed.split("-");
    const n = parseInt(size, 10), d = parseInt(dealer.slice(1), 10) - 1;
    const key = Uint8Array.from(hexed.match(/../g).map((x) => parseInt(x, 16)));
    const ranks = n === 2 ? "2468TQA" : "23456789TJQKA";
    const out = ({ 3: ["2D"], 5: ["2D", "2C"], 6: ["2D", "2C", "3D", "3C"] })[n] || [];
    const order = [];
    for (const suit of "CDSH") for (const r of ranks) if (!out.includes(r + suit)) order.push(r + suit);
    const deck = order.slice();
    let block = null, k = 0, at = 8;
    const word = async () => {
      if (at === 8) {
        const input = new Uint8Array(key.length + 8);
        input.set(key);
        new DataView(input.buffer).setBigUint64(key.length, BigInt(k++));
        block = new DataView((await sha256(input)).buffer);
        at = 0;
      }
      return block.getUint32(4 * at++);
    };
    for (let i = deck.length - 1; i > 0; i--) {
      const limit = 2 ** 32 - (2 ** 32 % (i + 1));
      let w = await word();
      while (w >= limit) w = await word();
      const j = w % (i + 1);
      [deck[i], deck[j]] = [deck[j], deck[i]];
    }
    const dead = n === 2 ? [deck.shift(), deck.pop()] : [];
    const piles = [];
    for (let s = 0; s < n; s++) piles.push(deck.filter((_, x) => (x + d + 1) % n === s));
    if (dead.length) piles.push(dead);
    return piles.map((p) => p.sort((a, b) => order.indexOf(a) - order.indexOf(b)));
  }
  async function verifyHand(h) {
    const piles = await dealOf(h.seed);
    const text = h.seed + "\n" + piles.map((p) => p.join(" ")).join("\n");
    const digest = await sha256(new TextEncoder().encode(text));
    const hex = [...digest].map((x) => x.toString(16).padStart(2, "0")).join("");
    const ok = hex === h.commitment;
    const shown = (code) => code.slice(0, -1).replace("T", "10") + SUITS[code.slice(-1)];
    const lines = [`${words.hand} ${h.hand}: ${ok ? words.verified : words.unverified}`];
    lines.push(`🔓 ${h.seed}`, `🔐 ${h.commitment}`);
    // Hashed in the deal's own order (♣ ♦ ♠ ♥), shown in every screen's (♠ ♥ ♣ ♦, low to
    // high: engine.cards.shown_order).
    const place = (code) => "SHCD".indexOf(code.slice(-1)) * 16 + "23456789TJQKA".indexOf(code[0]);
    piles.forEach((p, s) => {
      const who = s < state.seats.length ? state.seats[s].name : "—";
      const inOrder = p.slice().sort((a, b) => place(a) - place(b));
      lines.push(`${who}: ${inOrder.map(shown).join(" ")}`);
    });
    verified = { game: state.game, ok, lines };
    if (panel === "scores") openPanel("scores");
  }

  // The value axis widened to round ticks at both ends (render.axis_range's twin), so its
  // top and bottom are labelled.
  function axisRange(lo, hi) {
    const raw = (hi - lo) / 4;
    const power = 10 ** Math.floor(Math.log10(raw > 0 ? raw : 1));
    const step = [1, 2, 5, 10].map((k) => k * power).find((k) => k >= raw) || 1;
    return [step * Math.floor(lo / step), step * Math.ceil(hi / step), step];
  }

  // The score chart: values on the left, hands below, and the names in a legend under it
  // (never at the lines' ends, where close totals overlap).
  function chart() {
    const NS = "http://www.w3.org/2000/svg";
    const hands = state.history.hands, target = state.history.target;
    const w = 320, h = 180, left = 34, right = 8, top = 8, bottom = 22;
    const figure = document.createElement("figure");
    figure.className = "chart";
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", words.chart);
    const [lo, hi, step] = axisRange(Math.min(0, ...hands.flatMap((x) => x.values)),
      Math.max(target, ...hands.flatMap((x) => x.values)));
    const xy = (i, v) => [left + ((w - left - right) * i) / Math.max(1, hands.length),
      h - bottom - ((h - top - bottom) * (v - lo)) / (hi - lo || 1)];
    const add = (tag, attrs, text) => {
      const el = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
      if (text !== undefined) el.textContent = text;
      svg.append(el);
      return el;
    };
    const line = (points, colour, dash) => add("polyline", {
      points: points.map((p) => p.join(",")).join(" "), fill: "none", stroke: colour,
      "stroke-width": dash ? 1 : 2, ...(dash ? {"stroke-dasharray": "4 3"} : {}) });
    for (let v = lo; v <= hi + step / 2; v += step) {
      const [, y] = xy(0, v);
      add("line", {x1: left, x2: w - right, y1: y, y2: y, class: "grid"});
      add("text", {x: left - 4, y: y + 3, "text-anchor": "end", class: "tick"}, String(v));
    }
    const every = Math.max(1, Math.ceil(hands.length / 8));
    for (let i = 0; i <= hands.length; i += every) {
      const [x] = xy(i, lo);
      add("text", {x, y: h - 6, "text-anchor": i ? "middle" : "start", class: "tick"},
        i ? words.hand_short.replace("{h}", String(i)) : words.start);
    }
    add("rect", {x: left, y: top, width: w - left - right, height: h - top - bottom,
      class: "frame"});
    line([xy(0, target), xy(hands.length, target)], "#c83c3c", true);
    const colours = ["#dc322f", "#268bd2", "#859900", "#d33682", "#b58900", "#2aa198"];
    const legend = document.createElement("ul");
    legend.className = "legend";
    state.seats.forEach((seat, s) => {
      line([xy(0, 0), ...hands.map((x, i) => xy(i + 1, x.values[s]))], colours[s % 6]);
      const item = document.createElement("li");
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = colours[s % 6];
      item.append(swatch, `${seat.name} ${hands[hands.length - 1].values[s]}`);
      legend.append(item);
    });
    figure.append(svg, legend);
    return figure;
  }
  $("scores-button").onclick = () => openPanel("scores");
  $("tracker-button").onclick = () => openPanel("tracker");
  $("panel-close").onclick = () => { panel = null; $("panel").hidden = true; };
  window.addEventListener("resize", () => { if (state) drawTrick(null); });

  // ------------------------------------------------------------------ start

  function start() {
    applyTheme();
    // ▶ Replay (replay.js) asks over this connection and draws cards as the table does.
    if (window.HeartsReplay) window.HeartsReplay.attach({ send: sendJson, cardFace, game: () => state && state.game });
    const app = webApp();
    if (app) {
      app.ready();
      app.expand();
      app.onEvent("themeChanged", applyTheme);
    }
    connect();
  }
  // telegram-web-app.js loads beside this page; without it (a browser, the sandbox) the
  // page reads what Telegram put in its address.
  if (document.readyState === "complete") start(); else window.addEventListener("load", start);
})();
