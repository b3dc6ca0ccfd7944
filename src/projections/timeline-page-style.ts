/**
 * The timeline page's style sheet. A constant (no text from the log), so its CSP hash is too.
 * Segment kinds have their own colours; the running segment and the bar's underline take the
 * call's outcome colour, so a failed call reads red however little of it ran.
 */
export const TIMELINE_STYLE = `
:root{--label:280px;--row:24px;--ok:#2e7d32;--err:#c62828;--cancel:#ef6c00;--open:#757575;
--queued:#cfd8dc;--checks:#90a4ae;--hooks:#7e57c2;--permission:#f9a825;--budget:#00838f;--finishing:#b0bec5}
*{box-sizing:border-box}
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#fff;
height:100vh;display:flex;flex-direction:column}
header,#summary,#tabs,#toolbar,#legend{flex:none}
header{padding:12px 16px 4px}h1{font-size:17px;margin:0}#subtitle{margin:2px 0 0;color:#57606a}
#summary{display:flex;flex-wrap:wrap;gap:8px 24px;padding:6px 16px 8px;border-bottom:1px solid #d0d7de}
#summary section{min-width:160px}#summary h2{font-size:12px;text-transform:uppercase;color:#57606a;margin:4px 0}
#summary ol,#summary ul{margin:0;padding-left:18px}#summary li{white-space:nowrap}
#summary button{font:inherit;border:0;background:none;color:#0969da;cursor:pointer;padding:0;text-align:left}
#toolbar{display:flex;flex-wrap:wrap;align-items:center;gap:6px 12px;padding:8px 16px;background:#f6f8fa;
border-bottom:1px solid #d0d7de}
#toolbar select,#toolbar input,#toolbar button{font:inherit}#toolbar .zoom{margin-left:auto;display:flex;gap:4px}
#toolbar button{min-width:30px;border:1px solid #d0d7de;border-radius:4px;background:#fff;cursor:pointer}
#legend{display:flex;flex-wrap:wrap;gap:4px 12px;padding:6px 16px;font-size:12px;color:#57606a}
#legend span::before{content:"";display:inline-block;width:12px;height:10px;margin-right:4px;border-radius:2px;
background:var(--c)}
#main{flex:1;min-height:320px;display:flex;align-items:stretch}
#chart{flex:1;min-width:0;display:flex;flex-direction:column}
#axis{position:relative;flex:none;height:26px;margin-left:var(--label);border-bottom:1px solid #8c959f;cursor:zoom-in;
overflow:hidden;user-select:none}
.tick{position:absolute;bottom:0;height:8px;border-left:1px solid #57606a}
.tick span{position:absolute;bottom:8px;left:3px;font-size:11px;white-space:nowrap;color:#57606a}
#frame{position:relative;flex:1;min-height:0}
#grid{position:absolute;top:0;bottom:0;left:var(--label);right:0;pointer-events:none;overflow:hidden}
#grid div{position:absolute;top:0;bottom:0;border-left:1px solid #eaeef2}
#rows{position:absolute;top:0;right:0;bottom:0;left:0;overflow-y:auto;overflow-x:hidden;
cursor:grab;user-select:none}
#rows.dragging{cursor:grabbing}#spacer{width:1px}
.row{position:absolute;left:0;right:0;height:var(--row);display:flex}
.row:hover{background:rgba(9,105,218,.06)}.row.selected{background:rgba(9,105,218,.14)}
.label{width:var(--label);flex:none;padding:0 8px;line-height:var(--row);white-space:nowrap;overflow:hidden;
text-overflow:ellipsis;cursor:pointer}
.label .id{color:#57606a;font-family:ui-monospace,monospace;font-size:11px}
.row.turn{border-top:1px solid #d0d7de;background:#f6f8fa}.row.turn .label{font-weight:600;cursor:zoom-in}
.lane{position:relative;flex:1;overflow:hidden}
.turnspan{position:absolute;top:8px;height:8px;border:1px solid #8c959f;border-top:0}
.bar{position:absolute;top:4px;height:16px;min-width:2px;border-radius:2px;background:var(--finishing);
overflow:hidden;box-shadow:inset 0 -3px 0 var(--oc)}
.bar[data-outcome=success]{--oc:var(--ok)}.bar[data-outcome=error]{--oc:var(--err)}
.bar[data-outcome=cancelled]{--oc:var(--cancel)}.bar[data-outcome=open]{--oc:var(--open)}
.seg{position:absolute;top:0;bottom:3px;min-width:1px}
.seg[data-kind=queued]{background:repeating-linear-gradient(135deg,var(--queued) 0 4px,#eceff1 4px 8px)}
.seg[data-kind=checks]{background:var(--checks)}.seg[data-kind=hooks]{background:var(--hooks)}
.seg[data-kind=permission]{background:var(--permission)}.seg[data-kind=running]{background:var(--oc)}
.seg[data-kind=budget]{background:var(--budget)}.seg[data-kind=finishing]{background:var(--finishing)}
#detail{width:460px;flex:none;border-left:1px solid #d0d7de;padding:8px 14px 24px;overflow:auto}
#detail h2{font-size:15px;margin:4px 0 8px;word-break:break-all}#detail h3{font-size:13px;margin:14px 0 4px}
#detail dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0}
#detail dt{color:#57606a}#detail dd{margin:0;word-break:break-word}
#detail pre{margin:0;padding:6px 8px;background:#f6f8fa;border-radius:4px;max-height:260px;overflow:auto;
white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,monospace}
#detail table{border-collapse:collapse;width:100%;font-size:12px}
#detail td,#detail th{text-align:left;padding:1px 6px 1px 0;vertical-align:top}
#detail td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
#detail .tools{display:flex;gap:6px;justify-content:flex-end;flex-wrap:wrap}
#detail .tools button{font:inherit;border:1px solid #d0d7de;border-radius:4px;background:#fff;cursor:pointer}
.hook{border-left:3px solid var(--hooks);padding-left:8px;margin:6px 0}
.hook.block,.hook.error{border-color:var(--err)}
.empty{color:#57606a;padding:24px}
.row.turn.current{background:#ddf4ff}
#tabs{display:flex;align-items:center;gap:4px;padding:6px 16px 0;border-bottom:1px solid #d0d7de}
#tabs>button{font:inherit;border:1px solid #d0d7de;border-bottom:0;border-radius:6px 6px 0 0;background:#f6f8fa;
padding:3px 12px;cursor:pointer;margin-bottom:-1px}
#tabs>button[aria-selected=true]{background:#fff;font-weight:600}
#notice{margin-left:12px;padding:2px 8px;background:#fff8c5;border:1px solid #d4a72c;border-radius:4px}
#notice[hidden]{display:none}#notice button{font:inherit;border:0;background:none;cursor:pointer}
body[data-tab=history] #toolbar,body[data-tab=history] #legend,body[data-tab=history] #main{display:none}
#history:not([hidden]){flex:1;min-height:320px;display:flex;flex-direction:column}
#h-toolbar{display:flex;flex-wrap:wrap;align-items:center;gap:6px 12px;padding:8px 16px;background:#f6f8fa;
border-bottom:1px solid #d0d7de}#h-toolbar select,#h-toolbar input{font:inherit}#h-text{min-width:320px}
#h-scroll{flex:1;min-height:0;overflow:auto}
#h-table{border-collapse:collapse;width:100%;font-size:12px}
#h-table th{position:sticky;top:0;background:#fff;text-align:left;padding:4px 8px;border-bottom:1px solid #8c959f}
#h-table td{padding:2px 8px;vertical-align:top;border-bottom:1px solid #eaeef2}
#h-table td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
#h-table td.type,#h-table td.who{font-family:ui-monospace,monospace;white-space:nowrap}
#h-table td.what{word-break:break-word}
#h-table tr.ev{cursor:pointer}#h-table tr.ev:hover{background:rgba(9,105,218,.06)}
#h-table tr.ev td:first-child::before{content:"▸ ";color:#57606a}
#h-table tr.ev.open td:first-child::before{content:"▾ "}
#h-table tr.ev.open{background:rgba(9,105,218,.08)}#h-table tr.ev.target{outline:2px solid #0969da}
#h-table tr.json td{background:#f6f8fa}
#h-table pre{margin:0;white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,monospace}
.json-tools{float:right}
#h-table tr.more td{text-align:center}
button.link{font:inherit;border:0;background:none;color:#0969da;cursor:pointer;padding:0;text-align:left}
#detail .messages .note{color:#57606a;margin:4px 0}
#detail .block{border-left:3px solid var(--checks);padding-left:8px;margin:6px 0}
#detail .block.tool_result{border-color:var(--ok)}
#detail .block-head{margin-bottom:2px}
`
