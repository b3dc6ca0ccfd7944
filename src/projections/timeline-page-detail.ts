/**
 * The first half of the timeline page's script: reading the embedded model, small DOM helpers,
 * the session summary and a call's detail. Browser JavaScript kept as a constant string (the page
 * is one file); every text from the log goes into the page through `textContent` or a DOM
 * property, never through markup.
 */
/** The model, DOM helpers, the summary and the detail panel (joined with the chart in timeline-page-script.ts). */
export const TIMELINE_SCRIPT_DETAIL = String.raw`
var data = JSON.parse(document.getElementById('timeline-data').textContent);
var model = data.model;
var detailEl = document.getElementById('detail');

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function add(parent) {
  for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
  return parent;
}
function button(text, onClick) {
  var b = el('button', null, text);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}
function fmtMs(ms) {
  var a = Math.abs(ms);
  if (a >= 10000) return (ms / 1000).toFixed(1) + ' s';
  if (a >= 1000) return (ms / 1000).toFixed(2) + ' s';
  if (a >= 10 || a === 0) return Math.round(ms) + ' ms';
  if (a >= 1) return ms.toFixed(1) + ' ms';
  return ms.toFixed(2) + ' ms';
}
function text(value) {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}
function pre(value) { return el('pre', null, text(value)); }
function facts(pairs) {
  var dl = el('dl');
  pairs.forEach(function (p) {
    if (p[1] === null || p[1] === undefined || p[1] === '') return;
    add(dl, el('dt', null, p[0]), el('dd', null, p[1]));
  });
  return dl;
}
function section(box, title, content) { add(box, el('h3', null, title), content); }
function none(what) { return el('p', 'empty', what); }

function segmentsTable(call) {
  if (!call.segments.length) return none('all of it in the same millisecond');
  var table = el('table');
  call.segments.forEach(function (s) {
    var tr = add(el('tr'), el('td', null, s.kind), el('td', null, s.doing));
    add(tr, el('td', 'num', '+' + fmtMs(s.start - call.start)), el('td', 'num', fmtMs(s.end - s.start)));
    table.appendChild(tr);
  });
  return table;
}

function hooksView(call) {
  if (!call.hooks.length && !call.verdicts.length) return none('no hook matched this call');
  var box = el('div');
  call.hooks.forEach(function (h) {
    var head = h.phase + '-hook ' + h.hook + ': ' + h.outcome + (h.decision ? ' (' + h.decision + ')' : '');
    if (h.exitCode !== undefined && h.exitCode !== null) head += ', exit ' + h.exitCode;
    var div = add(el('div', 'hook ' + h.outcome), el('div', null, head + ', answered at +' + fmtMs(h.t - call.start)));
    div.appendChild(facts([['reason', h.reason], ['context', h.additionalContext], ['for the user', h.systemMessage],
      ['stop reason', h.stopReason], ['error', h.error],
      ['rewrote input', h.updatedInput === undefined ? null : text(h.updatedInput)]]));
    box.appendChild(div);
  });
  call.verdicts.forEach(function (v) {
    var line = 'combined ' + v.phase + '-hook verdict: ' + v.outcome + (v.decision ? ' (' + v.decision + ')' : '');
    add(box, el('p', null, line + (v.reason ? ' — ' + v.reason : '')));
  });
  return box;
}

function permissionView(call) {
  var p = call.permission, q = call.asked, g = call.granted;
  if (!p && !q) return none('no permission decision: the call ended before the permission step');
  var box = el('div');
  if (p) box.appendChild(facts([['decision', p.behavior],
    ['decided by', p.source === 'user' ? 'user (canUseTool)' : p.source],
    ['reason', p.reason], ['decided at', '+' + fmtMs(p.t - call.start)],
    ['edited input', p.updatedInput === undefined ? null : text(p.updatedInput)]]));
  if (q) box.appendChild(facts([['asked the user', q.reason], ['suggested rules', q.suggestions.join(', ')],
    ['asked at', '+' + fmtMs(q.t - call.start)], ['waited', p ? fmtMs(p.t - q.t) : 'no answer in the log']]));
  if (g) box.appendChild(facts([['granted', g.scope === 'rule' ? 'rule ' + g.rule : g.tool + ' (' + g.scope + ')']]));
  return box;
}

function eventsTable(rows, start, what) {
  var table = el('table');
  add(table, add(el('tr'), el('th', null, 'seq'), el('th', null, 'session'), el('th', null, what),
    el('th', null, 'event')));
  rows.forEach(function (e) {
    var tr = add(el('tr'), el('td', 'num', e[0]), el('td', 'num', '+' + fmtMs(e[1])),
      el('td', 'num', '+' + fmtMs(e[1] - start)));
    var what = add(el('td'), el('div', null, e[2]), el('div', 'id', e[3]));
    table.appendChild(add(tr, what));
  });
  return table;
}

function showDetail(call) {
  if (!call) {
    detailEl.replaceChildren(none('Click a call to see its input, output, hooks, permission and events; click a turn for its messages.'));
    return;
  }
  var turn = model.turns[call.turn];
  var box = document.createDocumentFragment();
  add(box, add(el('div', 'tools'), button('Zoom to call', function () { zoomTo(call.start, call.end); }),
    turn ? button('Turn messages', function () { showTurn(turn); }) : null,
    button('Close', function () { select(null); })));
  add(box, el('h2', null, call.tool + ' · ' + call.id));
  box.appendChild(facts([
    ['outcome', call.outcome + (call.errorClass ? ' (' + call.errorClass + ')' : '')],
    ['resolved to', call.resolved],
    ['turn', 'Turn ' + (call.turn + 1) + ' · ' + (turn ? turn.id : '')],
    ['position', '#' + call.index + ' in its message'],
    ['batch', call.batch === null ? 'never started' : String(call.batch)],
    ['scheduling', call.safe === null ? null : (call.safe ? 'concurrency-safe' : 'exclusive') +
      (call.queueReason ? ' — ' + call.queueReason : '')],
    ['requested at', '+' + fmtMs(call.start)],
    ['total', fmtMs(call.end - call.start)],
    ['progress', call.progress ? call.progress + ' update(s)' : null],
    ['cascade', call.cascaded ? 'stopped ' + call.cascaded.join(', ') : null]]));
  section(box, 'Segments', segmentsTable(call));
  section(box, 'Input' + (call.inputError ? ' (unreadable: ' + call.inputError + ')' : ''), pre(call.input));
  if (call.updatedInput !== undefined) section(box, 'Input as rewritten', pre(call.updatedInput));
  if (call.error !== null) section(box, 'Error', pre(call.error));
  if (call.output !== undefined) section(box, 'Output', pre(call.output));
  if (call.persisted) section(box, 'Output persisted', facts([['path', call.persisted.path],
    ['characters', call.persisted.chars]]));
  section(box, 'Result for the model', call.result === null ? none('no tool_result in the log') : pre(call.result));
  section(box, 'Hooks', hooksView(call));
  section(box, 'Permission', permissionView(call));
  section(box, 'Events', eventsTable(call.events, call.start, 'call'));
  detailEl.replaceChildren(box);
  detailEl.scrollTop = 0;
}

function summaryList(title, entries) {
  var list = el('ul');
  entries.forEach(function (entry) {
    list.appendChild(typeof entry === 'string' ? el('li', null, entry) : add(el('li'), entry));
  });
  return add(el('section'), el('h2', null, title), list);
}
function filterLink(label, select, value) {
  return button(label, function () { select.value = value; applyFilters(); });
}
function renderSummary(filters) {
  var s = model.summary;
  var total = s.timeByKind.reduce(function (sum, k) { return sum + k[1]; }, 0) || 1;
  var slowest = el('ol');
  s.slowest.forEach(function (n) {
    var c = model.calls[n];
    var label = fmtMs(c.end - c.start) + ' · ' + c.tool + ' · ' + c.id;
    slowest.appendChild(add(el('li'), button(label, function () { select(c, true); })));
  });
  document.getElementById('summary').replaceChildren(
    summaryList('Session', [s.calls + ' call(s) in ' + s.turns + ' turn(s)', s.events + ' events',
      fmtMs(model.span) + ' first to last event']),
    summaryList('Outcomes', s.byOutcome.map(function (o) {
      return filterLink(o[0] + ' ' + o[1], filters.outcome, o[0]);
    })),
    summaryList('Tools', s.byTool.slice(0, 8).map(function (t) {
      return filterLink(t[0] + ' ' + t[1], filters.tool, t[0]);
    })),
    summaryList('Error classes', s.errorClasses.length ? s.errorClasses.map(function (e) {
      return filterLink(e[0] + ' ' + e[1], filters.errorClass, e[0]);
    }) : ['none']),
    summaryList('Where the time went', s.timeByKind.filter(function (k) { return k[1] > 0; }).map(function (k) {
      return k[0] + ' ' + fmtMs(k[1]) + ' (' + Math.round((k[1] / total) * 100) + ' %)';
    })),
    add(el('section'), el('h2', null, 'Slowest calls'), slowest));
}
`
