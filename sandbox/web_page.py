"""The sandbox's single web page: inline HTML, CSS and JavaScript, no build step, no CDN.

It draws the group chat and each simulated person's DM side by side, as Telegram would,
from `/api/state` (long polling), and acts through `/api/send`, `/api/press` and
`/api/open_link` (see `sandbox.web`). Hooks for tests: every chat panel has
`data-chat-id` and `data-person` (the name of whoever acts in it), every message
`data-message-id`, every inline button `data-callback` or `data-url`; toasts are `.toast`.
"""

PAGE_HTML = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hearts sandbox</title>
<style>
:root {
  --top: 48px;
  --panel-bg: #ffffff;
  --line: #dfe3e8;
  --muted: #707579;
  --accent: #3390ec;
  --bubble-in: #ffffff;
  --bubble-out: #e3fee0;
  --red: #d21f3c;
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body {
  font: 14px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    "Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", sans-serif;
  color: #111;
  background: #d9dee4;
  display: flex;
  flex-direction: column;
}
header.top {
  height: var(--top);
  flex: none;
  display: flex;
  align-items: center;
  gap: 14px;
  padding: 0 16px;
  background: #2b5278;
  color: #fff;
}
header.top .logo { font-size: 18px; font-weight: 700; letter-spacing: .2px; }
header.top .logo span { color: #ff6b81; }
header.top .about { color: #c9dcef; font-size: 13px; flex: 1; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
header.top .live { font-size: 12px; color: #c9dcef; white-space: nowrap; }
header.top .live::before { content: "●"; margin-right: 5px; color: #f5a623; }
header.top .live.on::before { color: #5fd35f; }
nav.tabs { display: none; flex: none; gap: 4px; padding: 6px 8px; background: #fff;
  border-bottom: 1px solid var(--line); overflow-x: auto; }
nav.tabs button { border: 0; background: transparent; padding: 7px 12px; border-radius: 16px;
  font: inherit; font-weight: 600; color: var(--muted); cursor: pointer; white-space: nowrap; }
nav.tabs button.active { background: #e8f1fc; color: var(--accent); }
nav.tabs .badge { display: inline-block; min-width: 18px; padding: 0 5px; margin-left: 5px;
  border-radius: 9px; background: var(--accent); color: #fff; font-size: 11px;
  line-height: 18px; text-align: center; }
main.chats {
  flex: 1;
  min-height: 0;
  display: grid;
  grid-template-columns: minmax(340px, 1.45fr) repeat(4, minmax(230px, 1fr));
  gap: 1px;
  background: var(--line);
}
section.panel { display: flex; flex-direction: column; min-width: 0; min-height: 0;
  background: var(--panel-bg); position: relative; }
section.panel.flash .chat-head { animation: flash 1.2s ease-out; }
@keyframes flash { from { background: #fff3c4; } to { background: #fff; } }
.chat-head { flex: none; display: flex; align-items: center; gap: 10px; padding: 8px 12px;
  border-bottom: 1px solid var(--line); background: #fff; min-height: 56px; }
.avatar { flex: none; width: 38px; height: 38px; border-radius: 50%; display: grid;
  place-items: center; color: #fff; font-weight: 700; font-size: 16px; }
.chat-head .names { min-width: 0; }
.chat-head .title { font-weight: 700; font-size: 15px; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }
.chat-head .app-language { margin-left: auto; font-size: 12.5px; max-width: 11em; }
.chat-head .subtitle { color: var(--muted); font-size: 12.5px; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
.wall {
  flex: 1;
  min-height: 0;
  position: relative;
  background-color: #b9d3a2;
  background-image:
    radial-gradient(circle at 20% 15%, rgba(255,255,255,.35) 0 2px, transparent 3px),
    radial-gradient(circle at 70% 60%, rgba(255,255,255,.25) 0 2px, transparent 3px),
    linear-gradient(160deg, #d0e3b3 0%, #a8cc9a 55%, #8fbf98 100%);
  background-size: 46px 46px, 62px 62px, 100% 100%;
}
.messages { position: absolute; inset: 0; overflow-y: auto; padding: 10px 10px 14px;
  display: flex; flex-direction: column; gap: 6px; scroll-behavior: auto; }
.messages .empty { margin: auto; max-width: 80%; text-align: center; color: #fff;
  background: rgba(0,0,0,.22); padding: 8px 12px; border-radius: 12px; font-size: 13px; }
.msg { display: flex; flex-direction: column; align-items: flex-start; max-width: 100%; }
.msg.out { align-items: flex-end; }
.bubble { position: relative; max-width: min(100%, 560px); background: var(--bubble-in);
  border-radius: 12px; padding: 6px 9px 5px; box-shadow: 0 1px 1.5px rgba(0,0,0,.16);
  overflow-wrap: anywhere; }
.msg.out .bubble { background: var(--bubble-out); }
.msg.has-kb .bubble { width: 100%; }
.msg.photo .bubble { padding: 3px; }
.bubble .sender { font-weight: 700; font-size: 13px; margin-bottom: 1px; }
.bubble .text { white-space: pre-wrap; }
.msg.photo .bubble .text, .msg.photo .bubble .sender { padding: 3px 6px 0; }
.bubble img { display: block; max-width: 100%; height: auto; border-radius: 9px;
  cursor: zoom-in; background: #fff; }
.bubble .meta { float: right; margin: 6px 0 -3px 10px; font-size: 11px; color: #8a9a8a;
  user-select: none; }
.msg.out .bubble .meta { color: #5fa35f; }
.bubble code { font: 13px/1.3 ui-monospace, "DejaVu Sans Mono", monospace; background: #f1f3f5;
  padding: 0 3px; border-radius: 4px; }
.bubble pre { margin: 4px 0; padding: 6px 8px; background: #f1f3f5; border-radius: 6px;
  overflow-x: auto; white-space: pre; }
.bubble pre code { background: none; padding: 0; }
.bubble blockquote { margin: 3px 0; padding: 2px 8px; border-left: 3px solid var(--accent);
  background: #eef5fd; border-radius: 4px; }
.bubble a { color: #168acd; text-decoration: none; }
.bubble a:hover { text-decoration: underline; }
.bubble a.cmd { cursor: pointer; }
.bubble .spoiler { background: #888; color: transparent; border-radius: 3px; cursor: pointer; }
.bubble .spoiler.shown { background: none; color: inherit; }
.service { align-self: center; color: #fff; background: rgba(0,0,0,.25); border-radius: 12px;
  padding: 3px 10px; font-size: 12.5px; }
.kb { width: min(100%, 560px); display: flex; flex-direction: column; gap: 4px; margin-top: 4px; }
.kb-row { display: flex; gap: 4px; }
.kb-btn { flex: 1 1 0; min-width: 0; position: relative; border: 0; border-radius: 9px;
  padding: 8px 6px; font: inherit; font-weight: 600; font-size: 13.5px; color: #fff;
  background: rgba(44, 88, 52, .42); cursor: pointer; overflow-wrap: anywhere;
  backdrop-filter: blur(3px); transition: background .12s; }
.kb-btn:hover { background: rgba(34, 70, 42, .58); }
.kb-btn:active { transform: translateY(1px); }
.kb-btn.link::after { content: "↗"; position: absolute; top: 2px; right: 5px; font-size: 10px;
  opacity: .9; }
.kb-btn.card { white-space: nowrap; color: #1b1b1b; background: #fffdf8; font-size: 16.5px;
  font-weight: 700;
  padding: 9px 2px; border: 1px solid rgba(0,0,0,.12); box-shadow: 0 1px 2px rgba(0,0,0,.18);
  letter-spacing: -.2px; }
.kb-btn.card:hover { background: #fff; box-shadow: 0 3px 6px rgba(0,0,0,.22);
  transform: translateY(-1px); }
.kb-btn.card.red { color: var(--red); }
.kb-btn.card.barred { opacity: .45; }
.kb-btn.card.chosen { background: #ffe59a; border-color: #e0a800;
  box-shadow: 0 0 0 2px #f2c12e inset; }
.kb-btn.card.received { border-color: #65aadd; box-shadow: 0 0 0 2px #9fcdef inset; }
.kb-btn.pending::before { content: ""; position: absolute; top: 4px; right: 4px; width: 9px;
  height: 9px; border-radius: 50%; border: 2px solid currentColor; border-right-color:
  transparent; animation: spin .7s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
.toasts { position: absolute; top: 10px; left: 0; right: 0; display: flex;
  flex-direction: column; align-items: center; gap: 6px; pointer-events: none; z-index: 5; }
.toast { max-width: 88%; background: rgba(24, 30, 36, .86); color: #fff; padding: 8px 14px;
  border-radius: 10px; font-size: 13.5px; box-shadow: 0 4px 14px rgba(0,0,0,.25);
  animation: toast-in .15s ease-out; text-align: center; }
.toast.error { background: rgba(170, 30, 45, .92); }
.toast.leaving { opacity: 0; transition: opacity .3s; }
@keyframes toast-in { from { opacity: 0; transform: translateY(-6px); } }
.alert-back { position: absolute; inset: 0; background: rgba(0,0,0,.3); display: grid;
  place-items: center; z-index: 6; }
.alert { background: #fff; border-radius: 12px; padding: 16px 18px 10px; width: min(86%, 320px);
  box-shadow: 0 8px 30px rgba(0,0,0,.3); white-space: pre-wrap; }
.picker { display: flex; flex-direction: column; gap: 6px; }
.picker .title { font-weight: 700; }
.picker button.choice { display: block; width: 100%; margin: 0; text-align: left; border: 1px
  solid var(--line); border-radius: 8px; padding: 8px 10px; background: #f7f8fa; color: inherit;
  font-weight: 600; white-space: normal; }
.picker button.choice small { display: block; font-weight: 400; color: #707579; }
.alert button { display: block; margin: 12px 0 0 auto; border: 0; background: none;
  color: var(--accent); font: inherit; font-weight: 700; cursor: pointer; padding: 6px 8px; }
form.composer { flex: none; display: flex; align-items: center; gap: 6px; padding: 8px;
  border-top: 1px solid var(--line); background: #fff; }
form.composer select { flex: none; max-width: 92px; font: inherit; font-size: 13px;
  padding: 7px 4px; border: 1px solid var(--line); border-radius: 8px; background: #f7f8fa; }
form.composer input { flex: 1; min-width: 0; font: inherit; padding: 8px 11px;
  border: 1px solid var(--line); border-radius: 18px; outline: none; background: #f7f8fa; }
form.composer input:focus { border-color: var(--accent); background: #fff; }
form.composer button { flex: none; border: 0; width: 36px; height: 36px; border-radius: 50%;
  background: var(--accent); color: #fff; font-size: 16px; cursor: pointer; }
.start-bar { flex: none; padding: 8px; border-top: 1px solid var(--line); background: #fff; }
.start-bar button { width: 100%; border: 0; border-radius: 10px; padding: 11px;
  background: var(--accent); color: #fff; font: inherit; font-weight: 700; letter-spacing: .6px;
  cursor: pointer; }
.hint { color: var(--muted); font-size: 12px; padding: 0 10px 8px; background: #fff; }
.hint code { background: #f1f3f5; padding: 0 3px; border-radius: 4px; }
@media (max-width: 1279px) {
  main.chats { grid-template-columns: minmax(340px, 1.3fr) repeat(4, minmax(200px, 1fr)); }
  .kb-btn.card { font-size: 15px; }
}
@media (max-width: 1099px) {
  nav.tabs { display: flex; }
  main.chats { display: flex; }
  section.panel { display: none; flex: 1; }
  section.panel.active { display: flex; }
  header.top .about { display: none; }
}
</style>
</head>
<body>
<header class="top">
  <div class="logo"><span>♥</span> Hearts sandbox</div>
  <div class="about" id="about">A pretend Telegram on your computer: the real bot, no token.
    Open a table with <b>/newgame</b> in the group.</div>
  <div class="live" id="live">connecting…</div>
</header>
<nav class="tabs" id="tabs"></nav>
<main class="chats" id="chats"></main>
<script>
"use strict";
const COLORS = ["#e17076", "#7bc862", "#65aadd", "#a695e7", "#ee7aae", "#6ec9cb", "#faa774"];
// A card's label: [Q♠] chosen, •Q♠ received, Q̶♠ (its rank struck) not playable now.
const CARD_RE = /^(\[|•)?((?:1\u03360\u0336|[2-9JQKA]\u0336)|10|[2-9JQKA])([♠♥♦♣])\]?$/u;
const app = {
  version: -1, bot: {name: "Hearts", username: "bot"}, people: [], languages: [], panels: new Map(),
  order: [], active: null, groupAs: null, started: false,
};

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}
function esc(s) {
  return String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;"}[c]));
}
function colorFor(id) { return COLORS[Math.abs(Number(id)) % COLORS.length]; }
function clock(date) {
  const d = new Date(date * 1000);
  return String(d.getHours()).padStart(2, "0") + ":" + String(d.getMinutes()).padStart(2, "0");
}

// Telegram entities (offsets in UTF-16 units, which is how JavaScript indexes strings).
const SIMPLE = {bold: "b", italic: "i", underline: "u", strikethrough: "s", code: "code",
  blockquote: "blockquote", expandable_blockquote: "blockquote"};
function openTag(e, text) {
  if (SIMPLE[e.type]) return "<" + SIMPLE[e.type] + ">";
  const part = text.substr(e.offset, e.length);
  switch (e.type) {
    case "pre": return "<pre><code>";
    case "spoiler": return '<span class="spoiler" title="Spoiler">';
    case "text_link":
      return '<a href="' + esc(e.url || "#") + '" target="_blank" rel="noopener">';
    case "url": {
      const href = /^[a-z]+:\/\//i.test(part) ? part : "https://" + part;
      return '<a href="' + esc(href) + '" target="_blank" rel="noopener">';
    }
    case "bot_command": return '<a class="cmd" data-command="' + esc(part) + '">';
    case "mention": case "hashtag": case "cashtag": case "text_mention":
      return '<a class="mention">';
    default: return "";
  }
}
function closeTag(e) {
  if (SIMPLE[e.type]) return "</" + SIMPLE[e.type] + ">";
  switch (e.type) {
    case "pre": return "</code></pre>";
    case "spoiler": return "</span>";
    case "text_link": case "url": case "bot_command": case "mention": case "hashtag":
    case "cashtag": case "text_mention": return "</a>";
    default: return "";
  }
}
function renderText(text, entities) {
  const ents = (entities || []).filter(e => e.length > 0 && openTag(e, text) !== "")
    .sort((a, b) => a.offset - b.offset || b.length - a.length);
  let out = "", k = 0;
  const stack = [];
  for (let i = 0; i <= text.length; i++) {
    for (;;) {
      const idx = stack.findIndex(e => e.offset + e.length <= i);
      if (idx < 0) break;
      const above = stack.splice(idx + 1);
      const ended = stack.pop();
      for (let j = above.length - 1; j >= 0; j--) out += closeTag(above[j]);
      out += closeTag(ended);
      for (const e of above) { out += openTag(e, text); stack.push(e); }
    }
    while (k < ents.length && ents[k].offset === i) {
      out += openTag(ents[k], text); stack.push(ents[k]); k++;
    }
    if (i < text.length) out += esc(text[i]);
  }
  return out;
}

// ------------------------------------------------------------------ panels

function makePanel(chat) {
  const isGroup = chat.kind === "group";
  const panel = {
    id: chat.id, kind: chat.kind, personId: chat.person_id, title: chat.title,
    items: new Map(), unread: 0, lastCount: null, el: null, list: null, toasts: null,
  };
  const avatar = h("div", {class: "avatar", text: (chat.title || "?").slice(0, 1)});
  avatar.style.background = isGroup ? "#e17076" : colorFor(chat.person_id);
  const subtitle = h("div", {class: "subtitle"});
  const head = h("div", {class: "chat-head"}, avatar,
    h("div", {class: "names"}, h("div", {class: "title", text: chat.title}), subtitle));
  panel.subtitle = subtitle;
  if (!isGroup) {
    // The language of this person's Telegram app: the bot writes their DM in it (until
    // they choose one with /language), and the group's first table takes its opener's.
    const language = h("select", {class: "app-language", "data-person-id": chat.person_id,
      title: "The language of " + chat.title + "'s Telegram app"});
    for (const l of app.languages) {
      language.append(h("option", {value: l.code, text: "🌐 " + l.name}));
    }
    language.value = chat.language_code || "en";
    language.addEventListener("change", async () => {
      const r = await post("/api/language",
        {person_id: chat.person_id, language_code: language.value});
      if (r.ok) toast(panel, chat.title + "'s app now speaks " +
        language.selectedOptions[0].text.slice(3) + ": the bot follows from their next message.");
      else toast(panel, r.error || "That did not work.", "error");
    });
    head.append(language);
  }
  panel.list = h("div", {class: "messages"});
  panel.toasts = h("div", {class: "toasts"});
  const wall = h("div", {class: "wall"}, panel.list, panel.toasts);
  panel.el = h("section", {class: "panel", "data-chat-id": chat.id, "data-kind": chat.kind});
  panel.el.append(head, wall);
  panel.list.addEventListener("click", ev => onChatClick(panel, ev));
  const input = h("input", {name: "text", autocomplete: "off",
    placeholder: isGroup ? "Message the group…" : "Message " + app.bot.name + "…"});
  const form = h("form", {class: "composer", onsubmit: ev => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    send(panel, text);
  }});
  if (isGroup) {
    panel.select = h("select", {class: "as", title: "Who is typing and pressing buttons"});
    panel.select.addEventListener("change", () => {
      app.groupAs = Number(panel.select.value);
      panel.el.dataset.person = personName(app.groupAs);
      redraw(panel);
    });
    form.append(panel.select);
  }
  form.append(input, h("button", {class: "send", type: "submit", title: "Send", text: "➤"}));
  panel.form = form;
  panel.input = input;
  panel.startBar = h("div", {class: "start-bar"}, h("button", {type: "button", text: "START",
    onclick: () => send(panel, "/start")}));
  panel.el.append(form);
  if (isGroup) {
    panel.el.append(h("div", {class: "hint"},
      "Try ", h("code", {text: "/newgame"}), ", then 🤖 Add computer ×3 and ▶ Start."));
  }
  return panel;
}

function personName(id) {
  const p = app.people.find(p => p.id === id);
  return p ? p.name : "";
}
function actorOf(panel) { return panel.kind === "group" ? app.groupAs : panel.personId; }

function setupPanels(state) {
  const main = document.getElementById("chats");
  const tabs = document.getElementById("tabs");
  for (const chat of state.chats) {
    const panel = makePanel(chat);
    app.panels.set(chat.id, panel);
    app.order.push(panel);
    main.append(panel.el);
    panel.tab = h("button", {type: "button", "data-chat-id": chat.id,
      onclick: () => activate(panel)}, chat.kind === "group" ? "👥 " + chat.title : chat.title);
    panel.badge = h("span", {class: "badge"});
    tabs.append(panel.tab);
  }
  const group = app.order[0];
  app.groupAs = state.people.length ? state.people[0].id : null;
  for (const p of state.people) {
    group.select.append(h("option", {value: p.id, text: "as " + p.name}));
  }
  group.el.dataset.person = personName(app.groupAs);
  activate(group);
}

function activate(panel) {
  app.active = panel;
  for (const p of app.order) {
    p.el.classList.toggle("active", p === panel);
    p.tab.classList.toggle("active", p === panel);
  }
  panel.unread = 0;
  updateBadge(panel);
  scrollToEnd(panel);
}
function updateBadge(panel) {
  if (panel.unread > 0 && app.active !== panel) {
    panel.badge.textContent = panel.unread;
    panel.tab.append(panel.badge);
  } else panel.badge.remove();
}
function flash(panel) {
  panel.el.classList.remove("flash");
  void panel.el.offsetWidth;
  panel.el.classList.add("flash");
}

// ------------------------------------------------------------------ drawing messages

function isOutgoing(panel, m) {
  if (m.from_bot) return false;
  return panel.kind === "dm" ? m.sender_id === panel.personId : m.sender_id === app.groupAs;
}

function drawMessage(panel, m) {
  if (m.service) return h("div", {class: "service", "data-message-id": m.id, text: m.service});
  const out = isOutgoing(panel, m);
  const hasKb = m.buttons && m.buttons.length > 0;
  const node = h("div", {class: "msg" + (out ? " out" : "") + (hasKb ? " has-kb" : "") +
    (m.photo ? " photo" : ""), "data-message-id": m.id});
  const bubble = h("div", {class: "bubble"});
  if (panel.kind === "group" && !out) {
    const who = h("div", {class: "sender", text: m.sender});
    who.style.color = m.from_bot ? "#3a8fd9" : colorFor(m.sender_id);
    bubble.append(who);
  }
  if (m.photo) {
    const img = h("img", {src: m.photo, alt: m.text || "photo", loading: "lazy"});
    if (m.photo_size) { img.width = m.photo_size[0]; img.height = m.photo_size[1]; }
    img.addEventListener("click", () => window.open(m.photo, "_blank"));
    img.addEventListener("load", () => stickIfNeeded(panel));
    bubble.append(img);
  }
  const meta = h("span", {class: "meta", text: (m.edited ? "edited " : "") + clock(m.date)});
  if (m.text) {
    // dir=auto: a Persian message reads right to left, as Telegram lays it out.
    const text = h("div", {class: "text", dir: "auto"});
    text.innerHTML = renderText(m.text, m.entities);
    text.append(meta);
    bubble.append(text);
  } else if (!m.photo) bubble.append(meta);
  node.append(bubble);
  if (hasKb) {
    const kb = h("div", {class: "kb"});
    for (const row of m.buttons) {
      const r = h("div", {class: "kb-row"});
      for (const b of row) {
        const card = CARD_RE.exec(b.label);
        let cls = "kb-btn";
        if (b.url) cls += " link";
        if (card) cls += " card" + ("♥♦".includes(card[3]) ? " red" : "") +
          (card[1] === "[" ? " chosen" : card[1] === "•" ? " received" : "") +
          (card[2].includes("\u0336") ? " barred" : "");
        r.append(h("button", {class: cls, type: "button", title: b.url || b.label,
          "data-callback": b.data, "data-url": b.url, "data-copy": b.copy_text,
          "data-inline": b.inline, text: b.label}));
      }
      kb.append(r);
    }
    node.append(kb);
  }
  return node;
}

function nearEnd(panel) {
  const l = panel.list;
  return l.scrollHeight - l.scrollTop - l.clientHeight < 80;
}
function scrollToEnd(panel) { panel.list.scrollTop = panel.list.scrollHeight; }
function stickIfNeeded(panel) { if (panel.stick) scrollToEnd(panel); }

function redraw(panel) {
  for (const item of panel.items.values()) item.sig = null;
  if (panel.chat) drawChat(panel, panel.chat);
}

function drawChat(panel, chat) {
  panel.chat = chat;
  const stick = nearEnd(panel) || panel.lastCount === null;
  panel.stick = stick;
  const seen = new Set();
  let prev = null;
  for (const m of chat.messages) {
    seen.add(m.id);
    const sig = JSON.stringify(m) + (isOutgoing(panel, m) ? "o" : "");
    let item = panel.items.get(m.id);
    if (!item || item.sig !== sig) {
      const node = drawMessage(panel, m);
      if (item) item.node.replaceWith(node);
      item = {sig, node};
      panel.items.set(m.id, item);
    }
    const want = prev ? prev.nextSibling : panel.list.firstChild;
    if (item.node !== want) panel.list.insertBefore(item.node, want);
    prev = item.node;
  }
  for (const [id, item] of panel.items) {
    if (!seen.has(id)) { item.node.remove(); panel.items.delete(id); }
  }
  const empty = panel.list.querySelector(".empty");
  if (!chat.messages.length && !empty) {
    panel.list.append(h("div", {class: "empty", text: panel.kind === "group"
      ? "No messages here yet. Type /newgame to open a table of Hearts."
      : "No messages yet."}));
  } else if (chat.messages.length && empty) empty.remove();
  if (panel.lastCount !== null && chat.messages.length > panel.lastCount) {
    if (app.active !== panel) { panel.unread += chat.messages.length - panel.lastCount; }
  }
  panel.lastCount = chat.messages.length;
  updateBadge(panel);
  if (panel.kind === "group") {
    const names = chat.members.map(personName).join(", ");
    panel.subtitle.textContent = "group · " + names + " and " + app.bot.name + " (bot)";
  } else {
    panel.subtitle.textContent = "DM with " + app.bot.name + " (bot)";
    const open = chat.dm_open;
    panel.form.style.display = open ? "" : "none";
    if (!open && !panel.startBar.isConnected) panel.el.append(panel.startBar);
    if (open && panel.startBar.isConnected) panel.startBar.remove();
    panel.el.dataset.person = chat.title;
  }
  if (stick) scrollToEnd(panel);
}

function applyState(state) {
  app.version = state.version;
  app.bot = state.bot;
  app.people = state.people;
  app.languages = state.languages || [];
  if (!app.started) { setupPanels(state); app.started = true; }
  for (const chat of state.chats) {
    const panel = app.panels.get(chat.id);
    if (panel) drawChat(panel, chat);
  }
}

// ------------------------------------------------------------------ acting

async function post(path, body) {
  try {
    const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body)});
    const data = await r.json().catch(() => ({ok: false, error: "HTTP " + r.status}));
    if (!r.ok && data.ok === undefined) data.ok = false;
    return data;
  } catch (err) {
    return {ok: false, error: "The sandbox is not reachable (is it still running?)"};
  }
}

function toast(panel, text, kind) {
  const t = h("div", {class: "toast" + (kind ? " " + kind : ""), role: "status", text});
  panel.toasts.append(t);
  while (panel.toasts.children.length > 3) panel.toasts.firstChild.remove();
  setTimeout(() => t.classList.add("leaving"), 2600);
  setTimeout(() => t.remove(), 2950);
}
function showAlert(panel, text) {
  const back = h("div", {class: "alert-back"});
  const box = h("div", {class: "alert", role: "alertdialog", text});
  box.append(h("button", {type: "button", text: "OK", onclick: () => back.remove()}));
  back.append(box);
  panel.el.append(back);
}

async function send(panel, text) {
  const r = await post("/api/send", {person_id: actorOf(panel), chat_id: panel.id, text});
  if (!r.ok) toast(panel, r.error || "Could not send.", "error");
  panel.stick = true;
}

async function press(panel, messageId, btn) {
  if (btn.dataset.url !== undefined) return openLink(panel, btn.dataset.url);
  if (btn.dataset.copy !== undefined) return copyText(panel, btn.dataset.copy);
  if (btn.dataset.inline !== undefined) return pickInline(panel, btn.dataset.inline);
  if (btn.classList.contains("pending")) return;
  btn.classList.add("pending");
  const r = await post("/api/press", {person_id: actorOf(panel), chat_id: panel.id,
    message_id: messageId, data: btn.dataset.callback});
  btn.classList.remove("pending");
  if (!r.ok) toast(panel, r.error || "Could not press that.", "error");
  else if (!r.answered) toast(panel, "The bot did not answer in time.", "error");
  else if (r.toast && r.show_alert) showAlert(panel, r.toast);
  else if (r.toast) toast(panel, r.toast);
}

async function copyText(panel, text) {
  // A copy_text button: Telegram copies without asking the bot, and says so.
  try {
    await navigator.clipboard.writeText(text);
    toast(panel, "Copied to clipboard: " + text);
  } catch (err) {
    showAlert(panel, "Copy this:\n" + text);
  }
}

function closeModal(back) { back.remove(); }
function modal(panel, title) {
  const back = h("div", {class: "alert-back"});
  const box = h("div", {class: "alert picker", role: "dialog"}, h("div", {class: "title",
    text: title}));
  back.append(box);
  panel.el.append(back);
  return {back, box};
}

async function pickInline(panel, query) {
  // A switch_inline_query button: pick a chat, then one of the bot's inline results, which
  // is sent there by the person, as Telegram's inline mode does.
  const person = actorOf(panel);
  const chats = app.order.filter(p => (p.kind === "group") || p.personId === person);
  const {back, box} = modal(panel, "Send via @" + app.bot.username + " to…");
  for (const target of chats) {
    box.append(h("button", {class: "choice", type: "button", text: (target.kind === "group" ?
      "👥 " : "") + target.title, onclick: () => { closeModal(back);
        chooseResult(panel, target, person, query); }}));
  }
  box.append(h("button", {type: "button", text: "Cancel", onclick: () => closeModal(back)}));
}

async function chooseResult(panel, target, person, query) {
  const r = await post("/api/inline", {person_id: person, query});
  if (!r.ok) { toast(panel, r.error || "The bot offered nothing.", "error"); return; }
  if (!r.results.length) { toast(panel, "The bot offered nothing to send.", "error"); return; }
  const {back, box} = modal(panel, "@" + app.bot.username + " " + query);
  for (const result of r.results) {
    box.append(h("button", {class: "choice", type: "button", onclick: async () => {
      closeModal(back);
      const sent = await post("/api/inline_send", {person_id: person, chat_id: target.id, query,
        result_id: result.id});
      if (!sent.ok) toast(panel, sent.error || "Could not send that.", "error");
      else { target.stick = true; toast(panel, "Sent to " + target.title); }
    }}, result.title, h("small", {text: result.description})));
  }
  box.append(h("button", {type: "button", text: "Cancel", onclick: () => closeModal(back)}));
}

async function openLink(panel, url) {
  const r = await post("/api/open_link", {person_id: actorOf(panel), url});
  if (!r.ok) { toast(panel, r.error || "Could not open that link.", "error"); return; }
  if (r.external) { window.open(r.external, "_blank", "noopener"); return; }
  const target = app.panels.get(r.chat_id);
  if (target) {
    if (getComputedStyle(document.getElementById("tabs")).display !== "none") activate(target);
    flash(target);
    target.stick = true;
  }
}

function onChatClick(panel, ev) {
  const btn = ev.target.closest(".kb-btn");
  if (btn) {
    const msg = btn.closest("[data-message-id]");
    press(panel, Number(msg.dataset.messageId), btn);
    return;
  }
  const cmd = ev.target.closest("a.cmd");
  if (cmd) { send(panel, cmd.dataset.command); return; }
  const spoiler = ev.target.closest(".spoiler");
  if (spoiler) spoiler.classList.add("shown");
}

// ------------------------------------------------------------------ live updates

function setLive(on) {
  const live = document.getElementById("live");
  live.classList.toggle("on", on);
  live.textContent = on ? "live · @" + app.bot.username : "reconnecting…";
}
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
async function poll() {
  for (;;) {
    try {
      const r = await fetch("/api/state?since=" + app.version + "&wait=20", {cache: "no-store"});
      if (!r.ok) throw new Error("HTTP " + r.status);
      const state = await r.json();
      applyState(state);
      setLive(true);
    } catch (err) {
      setLive(false);
      await sleep(1000);
    }
  }
}
poll();
</script>
</body>
</html>
"""
