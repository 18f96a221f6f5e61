/** The page's style: one sheet, dark by default, light when the system (or the toggle) asks. */
export const css = `
:root { color-scheme: dark; --bg:#0f1115; --panel:#161a21; --panel2:#1d222b; --line:#2a303b; --text:#e6e9ef;
  --muted:#8b94a5; --accent:#7aa2f7; --ok:#5fd38d; --warn:#e0af68; --err:#f7768e; --in:#7dcfff; --out:#bb9af7;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
:root[data-theme=light] { color-scheme: light; --bg:#f6f7f9; --panel:#ffffff; --panel2:#eef1f5; --line:#d9dee6;
  --text:#1b1f27; --muted:#5b6474; --accent:#2f5bd3; --ok:#1a8f4c; --warn:#a66a00; --err:#c4314b; --in:#0b7fa8; --out:#7a3fc4; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--text); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
button, input, select, textarea { font: inherit; color: inherit; }
button { background:var(--panel2); border:1px solid var(--line); border-radius:6px; padding:5px 12px; cursor:pointer; }
button:hover { border-color: var(--accent); }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button.danger { border-color: var(--err); color: var(--err); }
button:disabled { opacity:.5; cursor:default; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
input, select, textarea { background:var(--bg); border:1px solid var(--line); border-radius:6px; padding:5px 8px; width:100%; }
textarea { font-family: var(--mono); font-size: 12px; }
.app { display:grid; grid-template-columns: 260px 1fr; grid-template-rows: 48px 1fr; height:100vh; }
header { grid-column: 1 / 3; display:flex; align-items:center; gap:16px; padding:0 16px; border-bottom:1px solid var(--line); background:var(--panel); }
header h1 { font-size:15px; margin:0; font-weight:600; letter-spacing:.2px; }
header h1 span { color: var(--accent); }
header .spacer { flex:1; }
aside { border-right:1px solid var(--line); background:var(--panel); padding:12px; overflow:auto; display:flex; flex-direction:column; gap:12px; }
aside h2, .section h2 { font-size:11px; text-transform:uppercase; letter-spacing:.8px; color:var(--muted); margin:4px 0; }
.server-item { display:flex; flex-direction:column; gap:2px; padding:8px 10px; border-radius:8px; border:1px solid transparent; cursor:pointer; text-align:left; background:none; width:100%; }
.server-item[aria-current=true] { background:var(--panel2); border-color:var(--line); }
.server-item .name { font-weight:600; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.status { display:inline-flex; align-items:center; gap:6px; font-size:12px; color:var(--muted); }
.status::before { content:""; width:8px; height:8px; border-radius:50%; background:var(--warn); }
.status[data-status=connected]::before { background:var(--ok); }
.status[data-status=error]::before { background:var(--err); }
main { display:flex; flex-direction:column; min-width:0; min-height:0; }
nav.tabs { display:flex; gap:2px; padding:0 12px; border-bottom:1px solid var(--line); background:var(--panel); overflow-x:auto; }
nav.tabs button { border:none; border-bottom:2px solid transparent; border-radius:0; background:none; padding:10px 12px; color:var(--muted); }
nav.tabs button[aria-selected=true] { color:var(--text); border-bottom-color:var(--accent); }
.content { flex:1; overflow:auto; padding:16px; min-height:0; }
.split { display:grid; grid-template-columns: minmax(220px, 320px) 1fr; gap:16px; height:100%; min-height:0; }
.list { display:flex; flex-direction:column; gap:4px; overflow:auto; }
.list-item { text-align:left; padding:8px 10px; border-radius:8px; background:var(--panel); border:1px solid var(--line); width:100%; }
.list-item[aria-selected=true] { border-color: var(--accent); }
.list-item .desc { color:var(--muted); font-size:12px; display:-webkit-box; -webkit-line-clamp:2; -webkit-box-orient:vertical; overflow:hidden; }
.card { background:var(--panel); border:1px solid var(--line); border-radius:10px; padding:14px 16px; }
.cards { display:grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap:16px; }
.badge { display:inline-block; font-size:11px; padding:1px 7px; border-radius:999px; border:1px solid var(--line); color:var(--muted); margin-right:4px; }
.badge.era { color: var(--accent); border-color: var(--accent); }
.badge.warn { color: var(--warn); border-color: var(--warn); }
.kv { display:grid; grid-template-columns: 120px 1fr; gap:4px 12px; font-size:13px; }
.kv dt { color:var(--muted); }
.kv dd { margin:0; overflow-wrap:anywhere; }
pre { font-family:var(--mono); font-size:12px; background:var(--bg); border:1px solid var(--line); border-radius:8px; padding:10px; overflow:auto; max-height:420px; margin:6px 0; white-space:pre-wrap; overflow-wrap:anywhere; }
.field { display:flex; flex-direction:column; gap:4px; margin-bottom:10px; }
.field label { font-size:12px; color:var(--muted); }
.field label b { color: var(--text); font-weight:600; }
.row { display:flex; gap:8px; align-items:center; flex-wrap:wrap; }
progress { width:100%; height:8px; accent-color: var(--accent); }
.result[data-status=error] { border-color: var(--err); }
.result[data-status=ok] { border-color: var(--ok); }
.pending { border:1px dashed var(--warn); border-radius:10px; padding:12px; margin:10px 0; background: color-mix(in srgb, var(--warn) 7%, transparent); }
.msg { display:grid; grid-template-columns: 22px 80px 1fr 70px; gap:8px; align-items:baseline; padding:4px 8px; border-bottom:1px solid var(--line); font-family:var(--mono); font-size:12px; cursor:pointer; }
.msg[data-direction=in] .dir { color: var(--in); }
.msg[data-direction=out] .dir { color: var(--out); }
.msg .time { color:var(--muted); text-align:right; }
.group { border:1px solid var(--line); border-radius:8px; margin-bottom:8px; background:var(--panel); overflow:hidden; }
.group > .head { padding:6px 10px; font-size:12px; color:var(--muted); background:var(--panel2); display:flex; gap:10px; }
.log { font-family:var(--mono); font-size:12px; padding:3px 0; border-bottom:1px solid var(--line); }
.log .lvl { display:inline-block; width:80px; color:var(--warn); }
.muted { color:var(--muted); }
.error-text { color: var(--err); white-space: pre-wrap; }
.empty { color:var(--muted); padding:24px; text-align:center; }
.connect-form { display:flex; flex-direction:column; gap:6px; }

.app-container iframe { width:100%; min-height:360px; border:1px solid var(--line); border-radius:8px; background:#fff; margin:8px 0; }
img.content-image { max-width: 100%; border-radius:6px; border:1px solid var(--line); background: repeating-conic-gradient(#8883 0 25%, transparent 0 50%) 0 0/16px 16px; }
`
