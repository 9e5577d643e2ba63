// The page's style sheet, inline (the page loads nothing). Light and dark, from the reader's setting;
// colours carry meaning only together with a word (outcome, kind), never alone.
// A string here rather than a .css file: the build (tsc) ships only what it compiles, so a style sheet
// beside this file would not reach dist/.

export const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;
--ok:#1a7f37;--bad:#cf222e;--skip:#9a6700;--err:#8250df;--focus:#0969da;--del:#ffebe9;--del-strong:#ffcecb;--add:#dafbe1;
--add-strong:#aceebb;--cause:#ddf4ff;--none:repeating-linear-gradient(135deg,transparent 0 6px,rgba(127,127,127,.12) 6px 12px)}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#151b23;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#1b222c;
--ok:#3fb950;--bad:#f85149;--skip:#d29922;--err:#ab7df8;--focus:#4493f8;--del:#3c1618;--del-strong:#6e2a2c;--add:#12261e;
--add-strong:#1f4a2e;--cause:#0c2d4a}}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
.wrap{max-width:1360px;margin:0 auto;padding:0 24px}
header.top{background:var(--card);border-bottom:1px solid var(--line);padding:14px 0 10px}
h1{margin:0;font-size:20px}.meta{color:var(--muted);margin:2px 0 0}
h2{font-size:17px;margin:22px 0 8px}h3{font-size:14px;margin:16px 0 6px}h4{font-size:12px;margin:10px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
code,pre{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}pre{margin:0;white-space:pre-wrap;word-break:break-word}
a{color:var(--focus)}.muted,.lead{color:var(--muted)}.lead{margin:0 0 8px;max-width:100ch}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
.summary{display:flex;gap:16px;align-items:stretch;flex-wrap:wrap;margin-top:16px}
.verdict{flex:1 1 520px;border-radius:10px;padding:12px 16px;background:var(--card);border:1px solid var(--line);border-left:6px solid var(--muted)}
.verdict p{margin:0}.verdict p.proposed{margin-top:6px;font-weight:600}.verdict .headline{font-size:20px;font-weight:650;margin-bottom:4px}
.verdict-fail{border-left-color:var(--bad)}.verdict-fail .headline{color:var(--bad)}
.verdict-pass{border-left-color:var(--ok)}.verdict-pass .headline{color:var(--ok)}
.verdict-partial{border-left-color:var(--skip)}.verdict-partial .headline{color:var(--skip)}
.totals{display:flex;flex-wrap:wrap;gap:8px;margin:0;align-content:flex-start}
.total{border:1px solid var(--line);border-radius:10px;padding:6px 14px;min-width:92px;background:var(--card)}
.total dt{color:var(--muted);font-size:11px;text-transform:uppercase;letter-spacing:.05em}.total dd{margin:0;font-size:24px;font-weight:650;font-variant-numeric:tabular-nums}
.total-identical dd{color:var(--ok)}.total-different dd{color:var(--bad)}.total-skipped dd{color:var(--skip)}.total-errors dd{color:var(--err)}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
thead th{font-size:12px;color:var(--muted);font-weight:600}caption{text-align:left;color:var(--muted);padding-bottom:4px}
.num,.methods td{text-align:right;font-variant-numeric:tabular-nums}
.groups-table,.methods,.extras{background:var(--card);border:1px solid var(--line);border-radius:10px;border-collapse:separate;border-spacing:0;overflow:hidden}
.groups-table tr:last-child td,.methods tr:last-child>*,.extras tr:last-child>*{border-bottom:0}
.groups-table{table-layout:fixed}.groups-table td{vertical-align:middle}
.c-method{width:130px}.c-path{width:30%}.c-kind{width:96px}.c-share{width:210px}.c-diffs{width:96px}.c-show{width:70px}
.example>div{display:flex;gap:6px;align-items:baseline;min-width:0}.example code{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;min-width:0;flex:0 1 auto}.groups-table tr.active td{background:var(--cause)}
.g-method{font-weight:600;white-space:nowrap}.g-path code{word-break:break-all}
.g-share{white-space:nowrap}.g-count{font-weight:650;font-variant-numeric:tabular-nums}.g-pct{display:inline-block;min-width:3.2em;text-align:right;color:var(--muted)}
.bar{display:inline-block;vertical-align:middle;width:72px;height:8px;border-radius:4px;background:var(--panel);border:1px solid var(--line);margin-right:8px;overflow:hidden}
.bar>span{display:block;height:100%;background:var(--bad)}.caused .bar>span{background:var(--focus)}
.example code{background:var(--panel);border-radius:4px;padding:0 4px}.arrow{color:var(--muted)}
.show-group{white-space:nowrap;font-weight:600}
.more-groups>summary{cursor:pointer;margin:8px 0;color:var(--focus)}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:20px;align-items:start}
@media (max-width:900px){.cols{grid-template-columns:1fr}}
.kinds,.skips,.rules,.seen{margin:0;padding-left:18px}.kinds li{display:inline-block;margin-right:12px}.kinds{padding:0}
.warn{color:var(--bad);font-weight:600}.rules .unmatched{color:var(--bad)}
.filters{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding:6px 0 0;z-index:2;margin-top:18px}
.filters form{display:flex;flex-wrap:wrap;gap:6px 8px}
fieldset{border:1px solid var(--line);border-radius:8px;margin:0;padding:0 8px 3px;background:var(--card)}legend{color:var(--muted);font-size:11px;padding:0 2px}
label{margin-right:8px;white-space:nowrap}input,select{font:inherit}#filter-url{width:180px}
.filters .kind{font-size:11px;padding:0 6px}
.shown-line{margin:2px 0 4px;color:var(--muted)}#group-filter strong{color:var(--fg)}
.entries{list-style:none;padding:0;margin:0}
/* Blocks, not list items: hiding a thousand list items makes Chromium renumber them, for seconds. */
.entries>li{display:block}
.entry{border:1px solid var(--line);border-radius:10px;margin:10px 0;background:var(--card)}
/* A page of a thousand replies lays out only the entries on screen. */
.entry{content-visibility:auto;contain-intrinsic-size:auto 44px}
.entry:target{box-shadow:0 0 0 2px var(--focus)}
.entry summary{cursor:pointer;padding:8px 12px;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.entry details[open]>summary{border-bottom:1px solid var(--line)}
.call{word-break:break-all;font-weight:600}.count,.status{color:var(--muted)}
.index{margin-left:auto;color:var(--muted);text-decoration:none;font-variant-numeric:tabular-nums}.index:hover{text-decoration:underline}
.entry-body{padding:4px 12px 12px}
.request .req-line{margin:0 0 4px}.req-body{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin:4px 0}
.curl{display:flex;gap:8px;align-items:flex-start;margin-top:4px}.curl pre{flex:1;background:var(--panel);border:1px dashed var(--line);border-radius:6px;padding:6px 8px}
button.copy{font:inherit;font-size:12px;padding:3px 10px;border-radius:6px;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer}
.diffs th{font-size:12px;color:var(--muted)}.diffs td:nth-child(3),.diffs td:nth-child(4){width:34%}.diffs tr.in-group td{background:var(--cause)}
.absent{color:var(--muted)}.note{margin:8px 0;color:var(--muted)}
.badge,.kind,.tag{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.tag{color:var(--muted);font-weight:500}.cause-tag{color:var(--focus)}
.outcome-identical{color:var(--ok)}.outcome-different{color:var(--bad)}.outcome-skipped{color:var(--skip)}.outcome-error{color:var(--err)}
.kind-type,.kind-status{color:var(--bad)}.kind-value,.kind-missing,.kind-extra{color:var(--err)}.kind-format,.kind-order,.kind-key-order{color:var(--skip)}
.sev{font-weight:600}.badge.sev{border-radius:3px}.sev-money{color:#fff;background:var(--bad);border-color:var(--bad);padding:0 6px}.sev-status{color:var(--bad)}.sev-shape{color:var(--err)}.sev-value{color:var(--err)}.sev-order{color:var(--skip)}
.severities strong{color:var(--bad)}
.sbs{border:1px solid var(--line);border-radius:8px;overflow:hidden;margin-top:10px}
.sbs-head,.ln{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
.sbs-head>div{padding:4px 10px;font-size:12px;font-weight:600;background:var(--panel);border-bottom:1px solid var(--line)}
.sbs-head>div+div,.ln>pre+pre{border-left:1px solid var(--line)}
.ln>pre{padding:0 10px 0 calc(10px + var(--d,0) * 2ch);min-height:1.45em}
.ln.ctx>pre{font-weight:600}
.ln.chg>pre.l{background:var(--del)}.ln.chg>pre.r{background:var(--add)}
.ln.chg[id]>pre.l{background:var(--del-strong)}.ln.chg[id]>pre.r{background:var(--add-strong)}
.ln>pre.no,.ln.chg>pre.no,.ln.chg[id]>pre.no{background:var(--none)}
.ln.cause-replay>pre.l,.ln.cause-replay>pre.r{background:var(--cause)}
.ln.in-group{outline:2px solid var(--focus);outline-offset:-2px}
.ln:target{outline:2px solid var(--focus);outline-offset:-2px}
.fold>summary{cursor:pointer;list-style:none;padding:1px 10px;font-size:12px;color:var(--muted);background:var(--panel);border-top:1px dashed var(--line);border-bottom:1px dashed var(--line)}
.fold>summary::before{content:"⋯ "}.fold[open]>summary::before{content:"▾ "}
.fold>summary::-webkit-details-marker{display:none}
[hidden]{display:none!important}`;
