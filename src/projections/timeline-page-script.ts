/**
 * The timeline page's script: one time axis for the whole session with zoom and pan, rows drawn
 * lazily (only those in view exist in the DOM, so 10⁴ calls open as fast as 10), filters, and
 * selection. Browser JavaScript as a constant string; see timeline-page-detail.ts for the rest.
 */
import { TIMELINE_SCRIPT_DETAIL } from './timeline-page-detail.js'
import { TIMELINE_SCRIPT_HISTORY } from './timeline-page-history.js'

const CHART = String.raw`
var ROW = 24, LABEL = 280, MIN_SPAN = 0.05;
var rowsEl = document.getElementById('rows'), visibleEl = document.getElementById('visible');
var spacerEl = document.getElementById('spacer'), gridEl = document.getElementById('grid');
var axisEl = document.getElementById('axis'), shownEl = document.getElementById('shown');
var pad = Math.max(model.span * 0.01, 0.5);
var full = { start: -pad, end: model.span + pad };
var view = { start: full.start, end: full.end };
var items = [], selected = null, selectedTurn = null, scheduled = false, drag = null;
var filters = { tool: document.getElementById('f-tool'), outcome: document.getElementById('f-outcome'),
  turn: document.getElementById('f-turn'), errorClass: document.getElementById('f-class'),
  text: document.getElementById('f-text') };

function laneWidth() { return Math.max(50, rowsEl.clientWidth - LABEL); }
function xOf(t, w) { return ((t - view.start) / (view.end - view.start)) * w; }
function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(function () { scheduled = false; render(); });
}
function render() { renderAxis(); renderRows(); }

function tickStep(span, w) {
  var raw = span / Math.max(2, Math.floor(w / 90));
  var pow = Math.pow(10, Math.floor(Math.log10(raw)));
  var m = [1, 2, 5, 10].find(function (k) { return k * pow >= raw; });
  return m * pow;
}
function tickLabel(t, step) {
  if (step >= 100) return (t / 1000).toFixed(Math.max(0, -Math.floor(Math.log10(step / 1000)))) + ' s';
  return t.toFixed(Math.max(0, -Math.floor(Math.log10(step)))) + ' ms';
}
function renderAxis() {
  var w = laneWidth(), step = tickStep(view.end - view.start, w);
  var ticks = document.createDocumentFragment(), lines = document.createDocumentFragment();
  for (var t = Math.ceil(view.start / step) * step; t <= view.end; t += step) {
    var x = xOf(t, w) + 'px';
    var tick = add(el('div', 'tick'), el('span', null, tickLabel(Math.abs(t) < step / 1e6 ? 0 : t, step)));
    tick.style.left = x;
    ticks.appendChild(tick);
    var line = el('div');
    line.style.left = x;
    lines.appendChild(line);
  }
  axisEl.replaceChildren(ticks);
  gridEl.replaceChildren(lines);
}

function renderRows() {
  var w = laneWidth(), top = rowsEl.scrollTop, h = rowsEl.clientHeight;
  var first = Math.max(0, Math.floor(top / ROW) - 4), last = Math.min(items.length, Math.ceil((top + h) / ROW) + 4);
  var rows = document.createDocumentFragment();
  for (var i = first; i < last; i++) {
    rows.appendChild(items[i].call ? callRow(items[i].call, i, w) : turnRow(items[i].turn, i, w));
  }
  if (!items.length) {
    rows.appendChild(none(model.calls.length ? 'No call matches the filters.' : 'This log has no tool calls.'));
  }
  visibleEl.replaceChildren(rows);
}
function rowAt(i, cls) {
  var row = el('div', 'row ' + cls);
  row.style.top = i * ROW + 'px';
  return row;
}
function callRow(call, i, w) {
  var row = rowAt(i, 'call' + (call === selected ? ' selected' : ''));
  row.dataset.n = call.n;
  row.dataset.call = call.id;
  row.dataset.outcome = call.outcome;
  var label = add(el('div', 'label'), el('span', 'tool', call.tool), document.createTextNode(' '),
    el('span', 'id', call.id));
  // A child session's call sits under the call it ran under (docs/subagents.md).
  if (call.depth > 0) label.style.paddingLeft = 8 + call.depth * 14 + 'px';
  label.title = call.tool + ' ' + call.id + ' (turn ' + (call.turn + 1) + ')';
  return add(row, label, add(el('div', 'lane'), bar(call, w)));
}
function bar(call, w) {
  var x0 = xOf(call.start, w), x1 = xOf(call.end, w);
  if (x1 < -2 || x0 > w + 2) return null;
  var left = Math.max(-2, x0), right = Math.min(w + 2, x1);
  var b = el('div', 'bar');
  b.dataset.outcome = call.outcome;
  b.style.left = left + 'px';
  b.style.width = Math.max(2, right - left) + 'px';
  b.title = call.tool + ' · ' + call.outcome + ' · ' + fmtMs(call.end - call.start);
  call.segments.forEach(function (s) {
    var s0 = Math.max(left, xOf(s.start, w)), s1 = Math.min(right, xOf(s.end, w));
    if (s1 < s0) return;
    var seg = el('div', 'seg');
    seg.dataset.kind = s.kind;
    seg.style.left = s0 - left + 'px';
    seg.style.width = Math.max(1, s1 - s0) + 'px';
    seg.title = s.kind + ': ' + s.doing + ' · ' + fmtMs(s.end - s.start);
    b.appendChild(seg);
  });
  return b;
}
function turnRow(turn, i, w) {
  var row = rowAt(i, 'turn' + (turn === selectedTurn ? ' current' : ''));
  row.dataset.turn = turn.id;
  var words = ['Turn ' + (turn.n + 1), turn.id, turn.calls + ' call(s)', fmtMs(turn.end - turn.start)];
  if (turn.mode) words.push(turn.mode);
  if (turn.stopReason) words.push('stop ' + turn.stopReason);
  if (turn.parent) words.push('under ' + turn.parent);
  var label = el('div', 'label', words.join(' · '));
  if (turn.depth > 0) label.style.paddingLeft = 8 + turn.depth * 14 + 'px';
  label.title = words.join(' · ') + ' — click to zoom to this turn';
  var lane = el('div', 'lane');
  var x0 = Math.max(-2, xOf(turn.start, w)), x1 = Math.min(w + 2, xOf(turn.end, w));
  if (x1 >= x0) {
    var span = el('div', 'turnspan');
    span.style.left = x0 + 'px';
    span.style.width = Math.max(1, x1 - x0) + 'px';
    lane.appendChild(span);
  }
  return add(row, label, lane);
}

function setView(start, end) {
  var span = Math.min(Math.max(end - start, MIN_SPAN), full.end - full.start);
  start = Math.min(Math.max(start, full.start), full.end - span);
  view = { start: start, end: start + span };
  schedule();
}
function zoomAt(factor, clientX) {
  var w = laneWidth(), span = view.end - view.start;
  var fraction = clientX === undefined ? 0.5 : (clientX - rowsEl.getBoundingClientRect().left - LABEL) / w;
  var anchor = view.start + Math.min(1, Math.max(0, fraction)) * span;
  setView(anchor - (anchor - view.start) * factor, anchor + (view.end - anchor) * factor);
}
function panBy(fraction) {
  var shift = (view.end - view.start) * fraction;
  setView(view.start + shift, view.end + shift);
}
function zoomTo(start, end) {
  var margin = Math.max((end - start) * 0.1, MIN_SPAN);
  setView(start - margin, end + margin);
}

function applyFilters() {
  var tool = filters.tool.value, outcome = filters.outcome.value, turn = filters.turn.value;
  var errorClass = filters.errorClass.value, needle = filters.text.value.trim().toLowerCase();
  var byTurn = model.turns.map(function () { return []; }), shown = 0;
  model.calls.forEach(function (c) {
    if ((tool && c.tool !== tool) || (outcome && c.outcome !== outcome)) return;
    if (turn !== '' && String(c.turn) !== turn) return;
    if (errorClass && c.errorClass !== errorClass) return;
    if (needle && c.id.toLowerCase().indexOf(needle) < 0 && c.tool.toLowerCase().indexOf(needle) < 0) return;
    byTurn[c.turn].push(c);
    shown++;
  });
  var narrowed = tool || outcome || errorClass || needle;
  items = [];
  // A child turn is listed right under the call it ran under, at any depth.
  var under = {};
  model.turns.forEach(function (t) { if (t.parent !== null) (under[t.parent] = under[t.parent] || []).push(t); });
  function list(t) {
    if ((turn !== '' && String(t.n) !== turn) || (narrowed && !byTurn[t.n].length)) return;
    items.push({ turn: t });
    byTurn[t.n].forEach(function (c) {
      items.push({ call: c });
      (under[c.id] || []).forEach(list);
    });
  }
  model.turns.forEach(function (t) { if (t.parent === null || turn !== '') list(t); });
  spacerEl.style.height = items.length * ROW + 'px';
  // A new filter shows its matches from the top, wherever the old list was scrolled to.
  rowsEl.scrollTop = 0;
  shownEl.textContent = 'showing ' + shown + ' of ' + model.calls.length + ' calls';
  render();
}
function select(call, reveal) {
  selected = call;
  selectedTurn = null;
  showDetail(call);
  setFragment(call ? 'call=' + encodeURIComponent(call.id) : '');
  if (call && reveal) {
    var i = items.findIndex(function (it) { return it.call === call; });
    var top = i * ROW, h = rowsEl.clientHeight;
    if (i >= 0 && (top < rowsEl.scrollTop || top > rowsEl.scrollTop + h - ROW)) rowsEl.scrollTop = top - h / 2;
    if (call.end < view.start || call.start > view.end) zoomTo(call.start, call.end);
  }
  schedule();
}

function option(selectEl, value, label) {
  var o = el('option', null, label);
  o.value = value;
  selectEl.appendChild(o);
}
function fillFilters() {
  var s = model.summary;
  option(filters.tool, '', 'all tools');
  s.byTool.forEach(function (t) { option(filters.tool, t[0], t[0] + ' (' + t[1] + ')'); });
  option(filters.outcome, '', 'all outcomes');
  s.byOutcome.forEach(function (o) { option(filters.outcome, o[0], o[0] + ' (' + o[1] + ')'); });
  option(filters.turn, '', 'all turns');
  model.turns.forEach(function (t) { option(filters.turn, String(t.n), 'Turn ' + (t.n + 1) + ' · ' + t.id); });
  option(filters.errorClass, '', 'all error classes');
  s.errorClasses.forEach(function (e) { option(filters.errorClass, e[0], e[0] + ' (' + e[1] + ')'); });
  ['tool', 'outcome', 'errorClass'].forEach(function (k) { filters[k].addEventListener('change', applyFilters); });
  filters.text.addEventListener('input', applyFilters);
  filters.turn.addEventListener('change', function () {
    var t = model.turns[Number(filters.turn.value)];
    if (filters.turn.value === '' || !t) setView(full.start, full.end);
    else zoomTo(t.start, t.end);
    applyFilters();
  });
}
function legend() {
  var box = document.getElementById('legend');
  model.kinds.forEach(function (k) {
    var s = el('span', null, k === 'running' ? 'running (outcome colour)' : k === 'permission' ? 'permission wait' : k);
    s.style.setProperty('--c', k === 'running' ? 'var(--ok)' : 'var(--' + k + ')');
    box.appendChild(s);
  });
  [['success', 'ok'], ['error', 'err'], ['cancelled', 'cancel'], ['open', 'open']].forEach(function (o) {
    var s = el('span', null, o[0] === 'open' ? 'no result' : o[0]);
    s.style.setProperty('--c', 'var(--' + o[1] + ')');
    box.appendChild(s);
  });
}
`

const INPUT = String.raw`
function rowTarget(target) {
  var row = target && target.closest ? target.closest('.row') : null;
  if (!row) return;
  if (row.dataset.n !== undefined) select(model.calls[Number(row.dataset.n)]);
  else if (row.dataset.turn !== undefined) {
    var t = model.turns.find(function (x) { return x.id === row.dataset.turn; });
    if (t) { zoomTo(t.start, t.end); showTurn(t); }
  }
}
rowsEl.addEventListener('scroll', schedule);
window.addEventListener('resize', schedule);
function wheel(e, always) {
  if (always || e.ctrlKey || e.metaKey || e.altKey) {
    e.preventDefault();
    zoomAt(e.deltaY > 0 ? 1.25 : 0.8, e.clientX);
  } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
    e.preventDefault();
    panBy((e.shiftKey ? e.deltaY : e.deltaX) / laneWidth());
  }
}
rowsEl.addEventListener('wheel', function (e) { wheel(e, false); }, { passive: false });
axisEl.addEventListener('wheel', function (e) { wheel(e, true); }, { passive: false });
rowsEl.addEventListener('mousedown', function (e) {
  if (e.button === 0) drag = { x: e.clientX, start: view.start, end: view.end, moved: false };
});
window.addEventListener('mousemove', function (e) {
  if (!drag) return;
  var dx = e.clientX - drag.x;
  if (Math.abs(dx) > 3) { drag.moved = true; rowsEl.classList.add('dragging'); }
  if (!drag.moved) return;
  var shift = (-dx / laneWidth()) * (drag.end - drag.start);
  setView(drag.start + shift, drag.end + shift);
});
window.addEventListener('mouseup', function (e) {
  if (!drag) return;
  var clicked = !drag.moved;
  drag = null;
  rowsEl.classList.remove('dragging');
  if (clicked) rowTarget(e.target);
});
document.getElementById('z-in').addEventListener('click', function () { zoomAt(0.5); });
document.getElementById('z-out').addEventListener('click', function () { zoomAt(2); });
document.getElementById('z-fit').addEventListener('click', function () { setView(full.start, full.end); });
document.getElementById('p-left').addEventListener('click', function () { panBy(-0.25); });
document.getElementById('p-right').addEventListener('click', function () { panBy(0.25); });
document.addEventListener('keydown', function (e) {
  var tag = e.target && e.target.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || e.ctrlKey || e.metaKey || e.altKey) return;
  var keys = { '+': function () { zoomAt(0.5); }, '=': function () { zoomAt(0.5); }, '-': function () { zoomAt(2); },
    '0': function () { setView(full.start, full.end); }, ArrowLeft: function () { panBy(-0.25); },
    ArrowRight: function () { panBy(0.25); }, Escape: function () { select(null); } };
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});

document.getElementById('title').textContent = data.title;
document.title = data.title;
document.getElementById('subtitle').textContent = model.calls.length + ' call(s) in ' + model.turns.length +
  ' turn(s) on one time axis · drag or Shift+wheel to pan, Ctrl+wheel (or wheel over the axis) to zoom, click a call (or a turn for its messages)';
fillFilters();
legend();
renderSummary(filters);
showDetail(null);
applyFilters();
showTab('timeline');
openFragment();
render();
document.body.dataset.ready = 'true';
performance.mark('timeline-ready');
`

/** The whole script, run once when the page loads. A constant: its CSP hash is computed once. */
export const TIMELINE_SCRIPT = `(function () {\n'use strict';\n${TIMELINE_SCRIPT_DETAIL}${CHART}${TIMELINE_SCRIPT_HISTORY}${INPUT}})();\n`
