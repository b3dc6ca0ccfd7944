/**
 * The timeline page's event history, a turn's messages, and links into the page: the third part
 * of its script (see timeline-page-script.ts). The history lists every event of the log; its
 * data sits in its own element and is parsed the first time it is needed, and rows are drawn in
 * chunks of 200 (more on demand), so a log of 10⁵ events opens as fast as before. Fragments
 * `#call=ID`, `#event=SEQ` and `#turn=ID` open a call, an event or a turn, and the page keeps the
 * fragment in step with what is open (docs/decisions/timeline.md, 150–152). Log text reaches the
 * page only through `textContent` and DOM properties.
 */
export const TIMELINE_SCRIPT_HISTORY = String.raw`
var CHUNK = 200;
var tabEls = { timeline: document.getElementById('tab-timeline'), history: document.getElementById('tab-history') };
var historyEl = document.getElementById('history'), hRowsEl = document.getElementById('h-rows');
var hScrollEl = document.getElementById('h-scroll'), hTypeEl = document.getElementById('h-type');
var hTextEl = document.getElementById('h-text'), hShownEl = document.getElementById('h-shown');
var noticeEl = document.getElementById('notice'), noticeTextEl = document.getElementById('notice-text');
var logRows = null, hHay = null, hMatches = null, hLo = 0, hHi = 0, hOpen = new Set(), hTarget = -1;
var turnById = new Map();
model.turns.forEach(function (t) { if (!turnById.has(t.id)) turnById.set(t.id, t); });

function notice(message) {
  noticeTextEl.textContent = message;
  noticeEl.hidden = false;
}
function hideNotice() { noticeEl.hidden = true; }
function setFragment(fragment) {
  var url = location.href.split('#')[0] + (fragment ? '#' + fragment : '');
  if (url === location.href) return;
  // replaceState, not location.hash: no history entry per click, and no hashchange of our own.
  try { history.replaceState(null, '', url); } catch (err) { /* the URL stays as it was */ }
}

function showTab(name) {
  document.body.dataset.tab = name;
  tabEls.timeline.setAttribute('aria-selected', String(name === 'timeline'));
  tabEls.history.setAttribute('aria-selected', String(name === 'history'));
  historyEl.hidden = name !== 'history';
  if (name === 'history' && hMatches === null) filterHistory();
  if (name === 'timeline') schedule();
}

function historyRows() {
  if (logRows !== null) return logRows;
  logRows = JSON.parse(document.getElementById('timeline-events').textContent);
  var counts = new Map();
  logRows.forEach(function (r) { counts.set(r[1].type, (counts.get(r[1].type) || 0) + 1); });
  option(hTypeEl, '', 'all types (' + logRows.length + ')');
  Array.from(counts.keys()).sort().forEach(function (k) { option(hTypeEl, k, k + ' (' + counts.get(k) + ')'); });
  return logRows;
}
function filterHistory() {
  var rows = historyRows(), type = hTypeEl.value, needle = hTextEl.value.trim().toLowerCase();
  // The text filter looks through each event's whole JSON: built once, the first time it is used.
  if (needle && hHay === null) {
    hHay = rows.map(function (r) { return (r[0] + '\n' + JSON.stringify(r[1])).toLowerCase(); });
  }
  hMatches = [];
  for (var i = 0; i < rows.length; i++) {
    if (type && rows[i][1].type !== type) continue;
    if (needle && hHay[i].indexOf(needle) < 0) continue;
    hMatches.push(i);
  }
  hShownEl.textContent = 'showing ' + hMatches.length + ' of ' + rows.length + ' events';
  drawHistory(0);
  hScrollEl.scrollTop = 0;
}

function eventRow(i) {
  var r = logRows[i], e = r[1], turn = turnById.get(e.turnId);
  var tr = el('tr', 'ev' + (hOpen.has(i) ? ' open' : '') + (i === hTarget ? ' target' : ''));
  tr.dataset.i = i;
  tr.dataset.seq = e.seq;
  tr.dataset.type = e.type;
  tr.tabIndex = 0;
  tr.setAttribute('aria-expanded', String(hOpen.has(i)));
  var who = add(el('td', 'who'), el('span', null, turn ? 'T' + (turn.n + 1) : e.turnId));
  who.title = 'turn ' + e.turnId + (e.toolUseId === undefined ? '' : ' · call ' + e.toolUseId);
  if (e.toolUseId !== undefined) {
    var open = button(e.toolUseId, function (ev) { ev.stopPropagation(); openCall(e.toolUseId, e.turnId); });
    open.className = 'link';
    open.title = 'open this call on the timeline';
    add(who, document.createTextNode(' · '), open);
  }
  return add(tr, el('td', 'num', e.seq), el('td', 'num', '+' + fmtMs(e.at - model.origin)),
    add(el('td', 'type'), el('span', null, e.type)), who, el('td', 'what', r[0]));
}
function jsonRow(i) {
  var td = el('td');
  td.colSpan = 5;
  var link = el('a', null, 'link to this event');
  link.href = '#event=' + logRows[i][1].seq;
  add(td, add(el('div', 'json-tools'), link), pre(logRows[i][1]));
  var tr = add(el('tr', 'json'), td);
  tr.dataset.i = i;
  return tr;
}
function eventRows(parent, from, to) {
  for (var k = from; k < to; k++) {
    parent.appendChild(eventRow(hMatches[k]));
    if (hOpen.has(hMatches[k])) parent.appendChild(jsonRow(hMatches[k]));
  }
  return parent;
}
function moreRow(cls, count, onClick) {
  var td = el('td');
  td.colSpan = 5;
  td.appendChild(button(cls === 'earlier' ? '▲ ' + count + ' earlier event(s)' : '▼ ' + count + ' later event(s)', onClick));
  return add(el('tr', 'more ' + cls), td);
}
function drawHistory(from) {
  hLo = Math.max(0, Math.min(from, hMatches.length - 1));
  hHi = Math.min(hMatches.length, hLo + CHUNK);
  var body = document.createDocumentFragment();
  if (hLo > 0) body.appendChild(moreRow('earlier', hLo, earlier));
  eventRows(body, hLo, hHi);
  if (hHi < hMatches.length) body.appendChild(moreRow('later', hMatches.length - hHi, later));
  if (!hMatches.length) {
    var td = add(el('td'), none(logRows.length ? 'No event matches the filter.' : 'This log has no events.'));
    td.colSpan = 5;
    body.appendChild(add(el('tr'), td));
  }
  hRowsEl.replaceChildren(body);
}
function earlier() {
  var from = Math.max(0, hLo - CHUNK), height = hScrollEl.scrollHeight, top = hScrollEl.scrollTop;
  var first = hRowsEl.firstChild;
  var rows = eventRows(document.createDocumentFragment(), from, hLo);
  if (from > 0) rows.insertBefore(moreRow('earlier', from, earlier), rows.firstChild);
  hRowsEl.replaceChild(rows, first);
  hLo = from;
  // The rows added above the view must not move what is in view.
  hScrollEl.scrollTop = top + hScrollEl.scrollHeight - height;
}
function later() {
  var to = Math.min(hMatches.length, hHi + CHUNK), last = hRowsEl.lastChild;
  var rows = eventRows(document.createDocumentFragment(), hHi, to);
  if (to < hMatches.length) rows.appendChild(moreRow('later', hMatches.length - to, later));
  hRowsEl.replaceChild(rows, last);
  hHi = to;
}
function toggleEvent(tr) {
  var i = Number(tr.dataset.i);
  if (hOpen.has(i)) {
    hOpen.delete(i);
    var next = tr.nextSibling;
    if (next && next.classList.contains('json')) next.remove();
  } else {
    hOpen.add(i);
    tr.after(jsonRow(i));
    setFragment('event=' + logRows[i][1].seq);
  }
  tr.classList.toggle('open', hOpen.has(i));
  tr.setAttribute('aria-expanded', String(hOpen.has(i)));
}
function openEvent(seq) {
  var rows = historyRows(), i = rows.findIndex(function (r) { return r[1].seq === seq; });
  if (i < 0) return false;
  showTab('history');
  var k = hMatches.indexOf(i);
  if (k < 0) {
    hTypeEl.value = '';
    hTextEl.value = '';
    filterHistory();
    k = hMatches.indexOf(i);
  }
  hOpen.add(i);
  hTarget = i;
  drawHistory(k - 20);
  var tr = hRowsEl.querySelector('tr.ev.target');
  if (tr) { tr.scrollIntoView({ block: 'center' }); tr.focus({ preventScroll: true }); }
  return true;
}

function findCall(id, turnId) {
  return model.calls.find(function (c) { return c.id === id && (turnId === undefined || model.turns[c.turn].id === turnId); }) ||
    model.calls.find(function (c) { return c.id === id; });
}
/** Opens a call on the timeline: clears filters that hide it, scrolls to it, opens its detail. */
function openCall(id, turnId) {
  var call = typeof id === 'string' ? findCall(id, turnId) : id;
  if (!call) return false;
  showTab('timeline');
  if (!items.some(function (it) { return it.call === call; })) {
    ['tool', 'outcome', 'turn', 'errorClass', 'text'].forEach(function (k) { filters[k].value = ''; });
    applyFilters();
  }
  select(call, true);
  return true;
}

function blocksView(turn, blocks, kind) {
  if (!blocks.length) return none(kind === 'tool_use' ? 'no tool_use in the log for this turn' : 'no tool_result yet');
  var box = el('div', 'blocks');
  blocks.forEach(function (b) {
    var head = el('div', 'block-head');
    if (typeof b === 'string') head.appendChild(el('span', null, kind + ' (too long for the page: its start)'));
    else {
      var id = kind === 'tool_use' ? b.id : b.tool_use_id;
      var words = kind + ' · ' + id + (b.name !== undefined ? ' · ' + b.name : '') + (b.is_error ? ' · is_error' : '');
      var open = button(words, function () { openCall(id, turn.id); });
      open.className = 'link';
      head.appendChild(open);
    }
    var block = add(el('div', 'block ' + kind), head, pre(b));
    if (typeof b !== 'string') block.dataset.id = kind === 'tool_use' ? b.id : b.tool_use_id;
    box.appendChild(block);
  });
  return box;
}
/** A turn in the detail panel: its facts, the messages the log has of it, its own events. */
function showTurn(turn) {
  selected = null;
  selectedTurn = turn;
  schedule();
  var m = turn.messages, box = document.createDocumentFragment();
  add(box, add(el('div', 'tools'), button('Zoom to turn', function () { zoomTo(turn.start, turn.end); }),
    turn.parent ? button('Parent call', function () { openCall(turn.parent); }) : null,
    button('Close', function () { select(null); })));
  add(box, el('h2', null, 'Turn ' + (turn.n + 1) + ' · ' + turn.id));
  box.appendChild(facts([['mode', turn.mode], ['at most', turn.maxConcurrency === null ? null : turn.maxConcurrency + ' at once'],
    ['calls', String(turn.calls)], ['stop reason', turn.stopReason], ['under call', turn.parent],
    ['started at', '+' + fmtMs(turn.start)], ['total', fmtMs(turn.end - turn.start)]]));
  var messages = el('div', 'messages');
  add(messages, el('p', 'note', 'The log records the assistant message\'s tool_use blocks (one tool.requested each), ' +
    'not its text or thinking blocks: the app keeps those. Below, the message as far as the log has it, ' +
    'and the tool_result message the turn sent back.'));
  section(messages, 'Assistant message (tool_use blocks)', blocksView(turn, m.assistant.content, 'tool_use'));
  if (m.unreadable.length) add(messages, el('p', 'note', 'Input the model wrote that is not JSON (kept as text): ' +
    m.unreadable.join(', ')));
  section(messages, 'tool_result message (what the model read next)', m.discarded !== null
    ? none('discarded: ' + m.discarded + ' — the model got nothing from this turn')
    : blocksView(turn, m.toolResults.content, 'tool_result'));
  section(box, 'Messages', messages);
  section(box, 'Events', eventsTable(turn.events, turn.start, 'turn'));
  detailEl.replaceChildren(box);
  detailEl.scrollTop = 0;
  setFragment('turn=' + encodeURIComponent(turn.id));
}

function openFragment() {
  var hash = location.hash.slice(1);
  if (!hash) return;
  var eq = hash.indexOf('='), key = eq < 0 ? hash : hash.slice(0, eq), value = null;
  try { value = decodeURIComponent(hash.slice(eq + 1)); } catch (err) { value = null; }
  hideNotice();
  if (value === null || eq < 0) {
    notice('This page cannot open #' + hash + ': it opens #call=<tool_use id>, #event=<seq> and #turn=<turn id>.');
  } else if (key === 'call') {
    if (!openCall(value)) notice('No call with the id ' + value + ' in this log.');
  } else if (key === 'event') {
    if (!/^\d+$/.test(value) || !openEvent(Number(value))) notice('No event with the seq ' + value + ' in this log.');
  } else if (key === 'turn') {
    var turn = turnById.get(value);
    if (turn) { showTab('timeline'); zoomTo(turn.start, turn.end); showTurn(turn); }
    else notice('No turn with the id ' + value + ' in this log.');
  } else {
    notice('This page cannot open #' + hash + ': it opens #call=<tool_use id>, #event=<seq> and #turn=<turn id>.');
  }
}

tabEls.timeline.addEventListener('click', function () { showTab('timeline'); });
tabEls.history.addEventListener('click', function () { showTab('history'); });
document.getElementById('notice-close').addEventListener('click', hideNotice);
hTypeEl.addEventListener('change', filterHistory);
// Keystrokes that come faster than frames filter once per frame: 10⁵ events are searched per run.
var hPending = false;
hTextEl.addEventListener('input', function () {
  if (hPending) return;
  hPending = true;
  requestAnimationFrame(function () { hPending = false; filterHistory(); });
});
hRowsEl.addEventListener('click', function (e) {
  var tr = e.target && e.target.closest ? e.target.closest('tr.ev') : null;
  if (tr && !(e.target.closest('button') || e.target.closest('a'))) toggleEvent(tr);
});
hRowsEl.addEventListener('keydown', function (e) {
  if ((e.key === 'Enter' || e.key === ' ') && e.target.classList && e.target.classList.contains('ev')) {
    e.preventDefault();
    toggleEvent(e.target);
  }
});
hScrollEl.addEventListener('scroll', function () {
  if (hMatches !== null && hHi < hMatches.length &&
    hScrollEl.scrollTop + hScrollEl.clientHeight > hScrollEl.scrollHeight - 400) later();
});
window.addEventListener('hashchange', openFragment);
`
