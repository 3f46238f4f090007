/** The pages' CSS, inlined into each page: no external assets, no build step. */

export const BASE_CSS = `
*,*::before,*::after{box-sizing:border-box}
:root{--ink:#1b2430;--muted:#5d6b7e;--line:#dfe4ec;--bg:#f3f5f9;--card:#fff;--accent:#2f5bea;--accent-ink:#fff;
--ok:#157347;--ok-bg:#e3f4ea;--warn:#8a5a00;--warn-bg:#fff3d6;--bad:#b42318;--bad-bg:#fdecea;--off:#4d5866;--off-bg:#eceff3;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
body{margin:0;line-height:1.45;-webkit-text-size-adjust:100%}
h1,h2,h3{line-height:1.2;margin:0}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
/* A URL, a path or an id has no space to break at: it wraps anywhere rather than pushing its panel sideways. */
.mono{overflow-wrap:break-word}
.sandbox-ribbon{background:#1b2430;color:#f3f5f9;text-align:center;font-size:.8rem;padding:.35rem .75rem;letter-spacing:.02em}
.sandbox-ribbon strong{color:#ffd166}
.badge{display:inline-flex;align-items:center;gap:.35rem;border-radius:999px;padding:.15rem .65rem;font-size:.85rem;font-weight:600;white-space:nowrap}
.badge .code{font-family:ui-monospace,Menlo,Consolas,monospace;opacity:.8}
.st-P,.st-W{background:var(--warn-bg);color:var(--warn)}
.st-A{background:var(--ok-bg);color:var(--ok)}
.st-F{background:var(--bad-bg);color:var(--bad)}
.st-E,.st-V{background:var(--off-bg);color:var(--off)}
.notice{border-radius:10px;padding:.75rem 1rem;margin:0 0 1rem;font-size:.95rem}
.notice.error{background:var(--bad-bg);color:var(--bad);border:1px solid #f5c2bd}
.notice.info{background:#e8efff;color:#1d3f9e;border:1px solid #c9d7ff}
button,.button{font:inherit;border-radius:10px;border:1px solid transparent;padding:.7rem 1rem;cursor:pointer;font-weight:600}
button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #9db4ff;outline-offset:2px}
button.primary{background:var(--accent);color:var(--accent-ink)}
button.primary:hover{background:#234bd0}
button.secondary{background:#fff;color:var(--ink);border-color:#c5cdd9}
button.secondary:hover{background:#f5f7fb}
button:disabled{opacity:.55;cursor:default}
input,select{font:inherit;border:1px solid #c5cdd9;border-radius:8px;padding:.5rem .65rem;background:#fff;color:var(--ink)}
`;

export const PAYER_CSS = `
main.payer{max-width:440px;margin:0 auto;padding:1.25rem 1rem 2rem}
.card{background:var(--card);border-radius:18px;box-shadow:0 1px 2px rgba(16,24,40,.06),0 8px 24px rgba(16,24,40,.08);padding:1.5rem 1.25rem}
.merchant{display:flex;align-items:center;gap:.85rem;margin-bottom:1.25rem}
.avatar{flex:none;width:48px;height:48px;border-radius:14px;background:#e8efff;color:var(--accent);display:grid;place-items:center;font-weight:700;font-size:1.3rem}
.merchant h1{font-size:1.15rem}
.merchant .where{color:var(--muted);font-size:.9rem}
.amount{text-align:center;padding:1rem 0 .75rem;border-top:1px solid var(--line)}
.amount .label{color:var(--muted);font-size:.85rem;text-transform:uppercase;letter-spacing:.06em}
.amount .value{font-size:2.4rem;font-weight:700;letter-spacing:-.01em;font-variant-numeric:tabular-nums}
.amount .currency{font-size:1.1rem;font-weight:600;color:var(--muted)}
.amount .paid-as{color:var(--muted);font-size:.9rem}
.state{text-align:center;margin:.25rem 0 1rem}
.state .headline{display:block;margin-top:.6rem;font-size:1.05rem;font-weight:600}
.state .sub{display:block;color:var(--muted);font-size:.9rem}
.qr{display:flex;flex-direction:column;align-items:center;gap:.35rem;margin:.5rem 0 1rem}
.qr img{width:200px;height:200px;image-rendering:pixelated;border:1px solid var(--line);border-radius:12px;padding:6px;background:#fff}
.qr .payment-code{color:var(--muted);font-size:.8rem}
.qr.done img{opacity:.25;filter:grayscale(1)}
dl.details{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0 0 1.25rem;padding:1rem 0 0;border-top:1px solid var(--line);font-size:.92rem}
dl.details dt{color:var(--muted)}
dl.details dd{margin:0;text-align:right;overflow-wrap:anywhere}
.actions{display:grid;gap:.6rem}
.actions form{margin:0}
.actions button{width:100%;padding:.9rem 1rem;font-size:1.05rem}
.fineprint{color:var(--muted);font-size:.8rem;text-align:center;margin-top:1rem}
.not-found{text-align:center}
.not-found h1{font-size:1.3rem;margin-bottom:.5rem}
.not-found p{color:var(--muted)}
`;

export const DASHBOARD_CSS = `
header.top{display:flex;align-items:center;justify-content:space-between;gap:1rem;flex-wrap:wrap;padding:1rem 1.5rem;background:#fff;border-bottom:1px solid var(--line)}
header.top h1{font-size:1.15rem}
header.top .who{color:var(--muted);font-size:.9rem;display:flex;gap:.75rem;align-items:center;flex-wrap:wrap;min-width:0}
main.dashboard{max-width:1180px;margin:0 auto;padding:1.25rem 1.5rem 3rem}
nav.sections{display:flex;flex-wrap:wrap;gap:.35rem .9rem;margin:0 0 1rem;font-size:.92rem}
nav.sections a{color:var(--accent);text-decoration:none;font-weight:600}
nav.sections a:focus-visible,a:focus-visible,summary:focus-visible,pre:focus-visible,textarea:focus-visible{outline:3px solid #9db4ff;outline-offset:2px}
section.panel{background:#fff;border:1px solid var(--line);border-radius:14px;padding:1rem 1.25rem;margin-bottom:1.25rem;min-width:0}
section.panel>h2{font-size:1.05rem;margin-bottom:.75rem;display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap}
section.panel h3{font-size:.95rem;margin:1rem 0 .4rem}
section.panel>h2 .count{color:var(--muted);font-weight:400;font-size:.9rem}
.login{max-width:520px;margin:3rem auto}
.login form{display:flex;gap:.5rem;flex-wrap:wrap;margin:.75rem 0}
.login input{flex:1 1 220px;min-width:0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.hint{color:var(--muted);font-size:.88rem}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.toolbar .sep{width:1px;height:1.8rem;background:var(--line);margin:0 .25rem}
.filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end;margin:0 0 .75rem}
.form-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:.75rem;margin:0 0 .75rem}
.field{display:flex;flex-direction:column;gap:.25rem;min-width:0}
.field.grow{flex:1 1 240px}
.field.wide{grid-column:1/-1}
.field label{font-size:.85rem;font-weight:600}
.field input,.field select,.field textarea{width:100%;min-width:0}
textarea{font:inherit;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88rem;border:1px solid #c5cdd9;border-radius:8px;padding:.5rem .65rem}
[aria-invalid=true]{border-color:var(--bad);background:var(--bad-bg)}
.field-error{color:var(--bad);font-size:.82rem}
.filters button,.form-grid button{padding:.5rem .9rem}
.field-error:empty{display:none}
.check-label{display:inline-flex;gap:.35rem;align-items:center;font-size:.88rem;color:var(--muted)}
.toolbar button,.row-actions button,.small{padding:.4rem .7rem;font-size:.88rem;border-radius:8px}
button.danger{background:#fff;color:var(--bad);border-color:#f0b4ae}
button.danger:hover{background:var(--bad-bg)}
#message,#payments-message,#detail-message,#create-message,#webhook-message,#journal-message,#faults-message,#golive-message{margin:.5rem 0}
#message .notice,[id$=-message] .notice{margin:0;overflow-wrap:anywhere}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th{text-align:left;color:var(--muted);font-weight:600;font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;padding:.5rem;border-bottom:1px solid var(--line)}
td{padding:.55rem .5rem;border-bottom:1px solid var(--line);vertical-align:middle}
tr:last-child td{border-bottom:none}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.qr img{width:56px;height:56px;image-rendering:pixelated;border:1px solid var(--line);border-radius:6px;background:#fff;display:block}
.ref{font-weight:600;overflow-wrap:anywhere}
.sub{color:var(--muted);font-size:.8rem;overflow-wrap:anywhere}
td .sub.mono{font-size:.74rem}
td.path{overflow-wrap:anywhere}
.row-actions{display:flex;flex-wrap:wrap;gap:.4rem}
.row-actions button{background:#fff;border-color:#c5cdd9;color:var(--ink);font-weight:500}
.row-actions button:hover{background:#f0f4ff;border-color:#9db4ff}
.empty{color:var(--muted);padding:1rem 0;text-align:center}
.pager{display:flex;gap:.75rem;align-items:center;justify-content:flex-end;margin-top:.75rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fb;border-radius:8px;padding:.6rem .75rem;margin:.35rem 0 0;font-size:.82rem;max-height:420px;overflow-y:auto}
tr.detail-row>td{background:#fbfcfe;padding:.75rem}
.entry-detail{display:grid;gap:.5rem;width:100%}
.entry-detail h4{margin:0;font-size:.82rem;color:var(--muted)}
.detail-grid{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:1rem}
.detail-part{min-width:0}
dl.fields{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem .9rem;margin:0;font-size:.88rem}
dl.fields dt{color:var(--muted);font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.82rem}
dl.fields dd{margin:0;overflow-wrap:anywhere;min-width:0}
dl.fields dd pre{margin:0}
.qr-part img{width:200px;height:200px;max-width:100%;image-rendering:pixelated;border:1px solid var(--line);border-radius:10px;background:#fff;display:block;margin-bottom:.5rem}
ol.timeline{list-style:none;margin:0;padding:0 0 0 1rem;border-left:2px solid var(--line)}
ol.timeline li{position:relative;padding:.15rem 0 .6rem .4rem;font-size:.88rem}
ol.timeline li::before{content:"";position:absolute;left:-1.45rem;top:.45rem;width:.6rem;height:.6rem;border-radius:50%;background:var(--accent)}
ol.timeline .when{display:block;color:var(--muted);font-size:.78rem}
details.absent li{font-size:.85rem;margin:.2rem 0}
ul.deliveries,ul.rules,ul.checks{list-style:none;margin:0;padding:0}
li.delivery,li.rule{border:1px solid var(--line);border-radius:10px;padding:.6rem .75rem;margin:0 0 .5rem}
.delivery-head{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
ol.attempts{font-size:.84rem;margin:.4rem 0;padding-left:1.3rem}
li.check{margin:.4rem 0}
ul.evidence{font-size:.8rem;overflow-wrap:anywhere}
.copy{display:flex;gap:.5rem;align-items:flex-start;margin:.35rem 0}
.copy pre{flex:1 1 auto;min-width:0;margin:0}
.status-code{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600}
.status-code.ok{color:var(--ok)}.status-code.bad{color:var(--bad)}
[hidden]{display:none!important}
@media (max-width:720px){
main.dashboard{padding:.75rem .5rem}header.top{padding:.75rem}
section.panel{padding:.75rem}
.detail-grid{grid-template-columns:minmax(0,1fr)}
dl.fields dd:has(> pre){grid-column:1/-1}
table,thead,tbody,tr,td{display:block;width:100%}
thead{display:none}
tr{border-bottom:1px solid var(--line);padding:.4rem 0}
td{border:none;padding:.2rem .25rem}
td.num{text-align:left}
td.qr img{width:44px;height:44px}
.copy{flex-direction:column}
#payments tbody tr{display:grid;grid-template-columns:48px minmax(0,1fr) auto;column-gap:.6rem;align-items:center}
#payments td{width:auto}
#payments td.qr{grid-row:1/5}
#payments td.status,#payments td.when{grid-column:2/4}
#payments td.when{font-size:.82rem;color:var(--muted)}
#payments td.empty{grid-column:1/-1}
}
`;
