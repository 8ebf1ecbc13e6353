/* app.js - the vmmprof web UI: login, host and node view, sessions, live factors, charts, diagnosis.
 *
 * Plain modern JavaScript, no build step, no external resources.  Every
 * request carries "Authorization: Bearer TOKEN"; the token lives in this
 * tab's sessionStorage.  Live streams (server-sent events) are read with
 * fetch() and a ReadableStream because EventSource cannot send that header.
 * Unknown numbers are JSON null and are shown as "n/a" with their reason,
 * never as 0.  Data from the host (VM names, reasons) is only ever put into
 * the page as text (textContent), never as HTML.
 */
'use strict';

const API = '/api/v1';
const FACTORS = [
  ['locality', 'Data locality'],
  ['llc', 'LLC contention'],
  ['sharing', 'Sharing'],
  ['imc', 'Memory controller'],
  ['queue', 'Queue trackers'],
];
const COLOURS = { locality: '#2457a6', llc: '#b3261e', sharing: '#7b3fa8', imc: '#1e7a3a', queue: '#c47a00' };
const MAX_FRAMES = 600;      /* what the history endpoint keeps */
const SESSIONS_POLL_MS = 5000;

const st = {
  token: null,
  me: null,                  /* whoami */
  info: null,
  models: null,
  vms: null,
  sessions: [],
  cur: null,                 /* the open session (object from the list) */
  frames: [],                /* its frames, oldest first, unique by seq */
  lastSeq: -1,
  selKey: null,              /* row key charted */
  metric: null,              /* metric charted */
  streamAbort: null,
  topAbort: null,
  pollTimer: null,
  drawPending: false,
};

/* ---------- small helpers ---------- */

const $ = (id) => document.getElementById(id);

/* el('td', {class: 'num', title: 'x'}, 'text', childNode, ...) */
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'dataset') Object.assign(e.dataset, v);
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
  }
  for (const k of kids) {
    if (k === undefined || k === null || k === false) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}

function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/* A number for display, or "n/a" (null, NaN and missing are all unknown, never 0). */
function fmt(v, digits = 2, unit = '') {
  if (!isNum(v)) return 'n/a';
  return v.toFixed(digits) + unit;
}

function fmtBig(v, unit = '') {
  if (!isNum(v)) return 'n/a';
  const a = Math.abs(v);
  const p = a >= 1e12 ? [1e12, 'T'] : a >= 1e9 ? [1e9, 'G'] : a >= 1e6 ? [1e6, 'M'] : a >= 1e3 ? [1e3, 'k'] : [1, ''];
  return (v / p[0]).toFixed(p[0] === 1 ? (Number.isInteger(v) ? 0 : 2) : 2) + ' ' + p[1] + unit;
}

function fmtBytes(v) {
  if (!isNum(v)) return 'n/a';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return v.toFixed(i ? 1 : 0) + ' ' + u[i];
}

function fmtTime(t) {
  if (!isNum(t)) return 'n/a';
  return new Date(t * 1000).toLocaleTimeString();
}

/* The session's start time: epoch seconds or an ISO string, whichever the daemon sends. */
function fmtStarted(s) {
  if (isNum(s)) return new Date(s * 1000).toLocaleString();
  if (typeof s === 'string') { const d = new Date(s); return isNaN(d) ? s : d.toLocaleString(); }
  return 'n/a';
}

/* "n/a" with its reason beside it (and in the tooltip). */
function naWithReason(reason) {
  const r = reason || 'not reported';
  return el('span', { class: 'na-wrap', title: r }, el('span', { class: 'na' }, 'n/a'), el('span', { class: 'reason' }, r));
}

function banner(msg) {
  const b = $('banner');
  b.textContent = msg || '';
  b.hidden = !msg;
}

/* ---------- HTTP ---------- */

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function apiError(r) {
  let msg = r.status + ' ' + (r.statusText || '');
  try {
    const j = await r.json();
    if (j && j.error && j.error.message) msg = r.status + ': ' + j.error.message;
  } catch (_) { /* not JSON */ }
  return new ApiError(r.status, msg);
}

async function api(method, path, body) {
  const headers = { Authorization: 'Bearer ' + st.token };
  const init = { method, headers, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(API + path, init);
  if (!r.ok) {
    const e = await apiError(r);
    if (e.status === 401 && path !== '/whoami') logout('Your token was refused (' + e.message + '): log in again.');
    throw e;
  }
  if (r.status === 204) return null;
  return r.json();
}

/*
 * Read a server-sent event stream with fetch(): calls onEvent(type, data)
 * per event and onAlive() on every chunk (keepalive comments included).
 * Resolves when the server ends the stream; rejects on errors (an aborted
 * signal rejects with an AbortError).
 */
async function readSSE(path, signal, onEvent, onAlive) {
  const r = await fetch(API + path, {
    headers: { Authorization: 'Bearer ' + st.token, Accept: 'text/event-stream' },
    cache: 'no-store', signal,
  });
  if (!r.ok) throw await apiError(r);
  if (!r.body) throw new Error('this browser cannot stream a response body');
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '', type = '', data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    if (onAlive) onAlive();
    buf += value;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      let line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (data.length) onEvent(type || 'message', data.join('\n'));
        type = ''; data = [];
        continue;
      }
      if (line.startsWith(':')) continue;          /* comment: keepalive */
      const c = line.indexOf(':');
      const field = c < 0 ? line : line.slice(0, c);
      let val = c < 0 ? '' : line.slice(c + 1);
      if (val.startsWith(' ')) val = val.slice(1);
      if (field === 'event') type = val;
      else if (field === 'data') data.push(val);
    }
  }
}

const sleep = (ms, signal) => new Promise((res) => {
  const t = setTimeout(res, ms);
  if (signal) signal.addEventListener('abort', () => { clearTimeout(t); res(); }, { once: true });
});

/* ---------- login ---------- */

async function login(token) {
  st.token = token;
  let me;
  try {
    me = await api('GET', '/whoami');
  } catch (e) {
    st.token = null;
    sessionStorage.removeItem('vmmprof.token');
    $('login-error').textContent = e.status === 401 ? 'This token is not valid here (401).' : 'Cannot log in: ' + e.message;
    showLogin();
    return;
  }
  sessionStorage.setItem('vmmprof.token', token);
  st.me = me;
  $('login-error').textContent = '';
  showApp();
}

function logout(msg) {
  stopStream();
  if (st.topAbort) { st.topAbort.abort(); st.topAbort = null; }
  if (st.pollTimer) { clearInterval(st.pollTimer); st.pollTimer = null; }
  sessionStorage.removeItem('vmmprof.token');
  Object.assign(st, { token: null, me: null, cur: null, frames: [], lastSeq: -1, sessions: [] });
  $('login-error').textContent = msg || '';
  showLogin();
}

function showLogin() {
  $('login-view').hidden = false;
  $('app-view').hidden = true;
  $('who').hidden = true;
  $('logout').hidden = true;
  $('session-view').hidden = true;
  $('token').value = '';
  $('token').focus();
}

const canStart = () => st.me && (st.me.role === 'operator' || st.me.role === 'admin');
const canStop = (s) => st.me && s.state === 'running' &&
  (st.me.role === 'admin' || (st.me.role === 'operator' && s.owner === st.me.user));

/* An ended session stays listed (with its history) until its owner or an admin deletes it. */
const canRemove = (s) => st.me && s.state !== 'running' &&
  (st.me.role === 'admin' || (st.me.role === 'operator' && s.owner === st.me.user));

function showApp() {
  $('login-view').hidden = true;
  $('app-view').hidden = false;
  const who = clear($('who'));
  who.append(el('span', { id: 'who-user' }, st.me.user), el('span', { id: 'who-role', class: 'role' }, st.me.role));
  const lim = st.me.limits || {};
  const parts = [];
  /* 0 (or absent) is no limit */
  if (lim.max_sessions > 0) parts.push(lim.max_sessions + ' sessions');
  if (lim.max_events > 0) parts.push(lim.max_events + ' events');
  if (lim.min_interval_ms > 0) parts.push('interval \u2265 ' + lim.min_interval_ms + ' ms');
  who.title = parts.length ? 'limits: ' + parts.join(', ') : '';
  $('limits').textContent = parts.length ? 'Your limits: at most ' + parts.join(', ') + '.' : '';
  who.hidden = false;
  $('logout').hidden = false;

  /* Viewers see the form greyed out, with the reason; the daemon refuses anyway (403). */
  const ro = !canStart();
  $('start-fields').disabled = ro;
  $('start-note').hidden = !ro;
  $('start-note').textContent = ro ? 'Your role \u2018' + st.me.role +
    '\u2019 is read-only: starting and stopping sessions needs the operator or admin role.' : '';
  if (isNum(lim.min_interval_ms)) {
    $('interval').min = lim.min_interval_ms;
    if (+$('interval').value < lim.min_interval_ms) $('interval').value = lim.min_interval_ms;
  }

  loadHost();
  loadChoices();
  refreshSessions();
  if (st.pollTimer) clearInterval(st.pollTimer);
  st.pollTimer = setInterval(refreshSessions, SESSIONS_POLL_MS);
  startTopStream();
}

/* ---------- host and nodes ---------- */

async function loadHost() {
  try {
    st.info = await api('GET', '/info');
  } catch (e) {
    $('host-summary').textContent = 'Cannot read the host description: ' + e.message;
    return;
  }
  const i = st.info, cpu = i.cpu || {}, virt = i.virtualization || {}, topo = i.topology || {}, pm = i.pmus || {};
  $('host').textContent = [cpu.model_name, topo.n_cpus && topo.n_cpus + ' CPUs',
    topo.nodes && topo.nodes.length + ' node' + (topo.nodes.length === 1 ? '' : 's')].filter(Boolean).join(' \u00b7 ');
  const dl = el('table', { class: 'grid', id: 'host-table' });
  const row = (k, v) => dl.append(el('tr', null, el('th', null, k), el('td', null, v)));
  row('CPU', [cpu.vendor, cpu.model_name, cpu.pfm_pmu && '(' + cpu.pfm_pmu + ')'].filter(Boolean).join(' ') || 'n/a');
  row('role', (virt.role || 'unknown') + (virt.role_evidence ? ': ' + virt.role_evidence : ''));
  row('hypervisor', virt.hypervisor || 'n/a');
  row('core PMU', pm.core_pmu ? (pm.core_pmu_name || 'yes') : 'none' + (pm.core_pmu_reason ? ': ' + pm.core_pmu_reason : ''));
  if (i.coverage) row('coverage', (i.coverage.model ? 'model ' + i.coverage.model + ': ' : '') +
    (i.coverage.verdict || i.coverage.summary || ''));
  clear($('host-summary')).append(dl);

  const cov = clear($('coverage'));
  for (const f of (i.coverage && i.coverage.factors) || []) {
    const li = el('li', { dataset: { factor: f.factor } }, el('b', null, f.factor), ': ', el('span', { class: 'q q-' + f.quality }, f.quality),
      ' ', f.source && f.source !== 'none' ? f.source : '', f.note ? ' \u2014 ' + f.note : '');
    if (f.reads && f.reads.length)
      li.append(el('div', { class: 'muted' }, 'reads: ' +
        f.reads.map((r) => r.name + (r.present ? '' : ' (absent)')).join(', ')));
    if (f.instead) li.append(el('div', { class: 'muted' }, 'instead: ' + f.instead));
    cov.append(li);
  }
  renderNodes(null);
  renderMap(null);
}

function nodeCpus(id) {
  const n = ((st.info && st.info.topology && st.info.topology.nodes) || []).find((x) => x.id === id);
  return n ? n.cpus : 'n/a';
}

/* One `top --json` sample's nodes, or the topology alone before the first sample. */
function renderNodes(sample) {
  const tb = clear($('nodes-table').tBodies[0]);
  const first = 'rates need two samples';
  let nodes = sample && sample.nodes;
  if (!nodes) {
    nodes = ((st.info && st.info.topology && st.info.topology.nodes) || []).map((n) => ({
      node: n.id, mem_total_bytes: n.mem_total_bytes,
      mem_used_bytes: isNum(n.mem_total_bytes) && isNum(n.mem_free_bytes) ? n.mem_total_bytes - n.mem_free_bytes : null,
    }));
  }
  for (const n of nodes) {
    const rate = (v) => el('td', { class: 'num' }, isNum(v) ? fmt(v, 0) : naWithReason(sample ? first : 'waiting for the live node view'));
    tb.append(el('tr', null,
      el('td', null, String(n.node)),
      el('td', null, nodeCpus(n.node)),
      el('td', { class: 'num' }, fmtBytes(n.mem_used_bytes) + ' / ' + fmtBytes(n.mem_total_bytes)),
      rate(n.local_pages_per_s), rate(n.remote_pages_per_s), rate(n.miss_pages_per_s),
      el('td', { class: 'num' }, isNum(n.cpu_load) ? fmt(100 * n.cpu_load, 0, ' %') : naWithReason(sample ? first : 'waiting for the live node view')),
      el('td', { class: 'num' }, isNum(n.vcpus) ? String(n.vcpus) : 'n/a')));
  }
}

async function startTopStream() {
  if (st.topAbort) st.topAbort.abort();
  const ac = new AbortController();
  st.topAbort = ac;
  const live = $('nodes-live');
  while (!ac.signal.aborted) {
    try {
      live.className = 'live-state on';
      live.textContent = 'live';
      await readSSE('/top/stream?interval_ms=2000', ac.signal, (type, data) => {
        if (type !== 'sample') return;
        let sample = null;
        try { sample = JSON.parse(data); } catch (_) { return; /* a bad line: keep the last view */ }
        renderNodes(sample);
        renderMap(sample);
      });
    } catch (e) {
      if (ac.signal.aborted) return;
      live.className = 'live-state retry';
      live.textContent = 'node view unavailable: ' + e.message;
      if (e.status === 401 || e.status === 403 || e.status === 404) return;
    }
    if (ac.signal.aborted) return;
    live.className = 'live-state retry';
    if (!live.textContent.startsWith('node view')) live.textContent = 'reconnecting';
    await sleep(3000, ac.signal);
  }
}

/* ---------- choosers ---------- */

async function loadChoices() {
  const sel = $('model');
  try {
    st.models = await api('GET', '/models');
  } catch (e) {
    $('start-error').textContent = 'Cannot list the models: ' + e.message;
  }
  clear(sel);
  const ms = (st.models && st.models.models) || [];
  for (const m of ms) {
    const o = el('option', { value: m.name, disabled: !!m.error }, m.name + (m.error ? ' (broken)' : ''));
    if (m.name === st.models.chosen) o.selected = true;
    sel.append(o);
  }
  const desc = () => {
    const m = ms.find((x) => x.name === sel.value);
    $('model-desc').textContent = m ? (m.description || '') + (m.name === st.models.chosen ? ' \u2014 the one that fits this CPU' : '') : '';
  };
  sel.onchange = desc;
  desc();

  const box = clear($('vm-choices'));
  try {
    st.vms = await api('GET', '/vms');
  } catch (e) {
    box.textContent = 'Cannot list the VMs: ' + e.message;
    return;
  }
  const vms = (st.vms && st.vms.vms) || [];
  if (!vms.length) {
    box.append(el('span', { class: 'muted' }, 'No VMs run on this host' + (st.vms && st.vms.notes ? ' (' + st.vms.notes + ')' : '') + ': give process ids instead.'));
  }
  for (const v of vms) {
    box.append(el('label', { class: 'inline', title: (v.hypervisor || '') + (v.pid ? ' pid ' + v.pid : '') },
      el('input', { type: 'checkbox', name: 'vm', value: v.name }), v.name));
  }
}

/* ---------- sessions ---------- */

async function refreshSessions() {
  if (!st.token) return;
  let j;
  try {
    j = await api('GET', '/sessions');
  } catch (e) {
    if (e.status !== 401) banner('Cannot list the sessions: ' + e.message);
    return;
  }
  st.sessions = (j && j.sessions) || [];
  renderSessions();
  refreshCollector();
  refreshRecordings();
  if (st.cur) {
    /* the daemon forgets a session once it is stopped: gone from the list means stopped */
    const s = st.sessions.find((x) => x.id === st.cur.id) || Object.assign({}, st.cur, { state: 'stopped' });
    const ended = st.cur.state === 'running' && s.state !== 'running';
    st.cur = s;
    renderSessionHead();
    if (ended && st.streamAbort) endStream(s.id);
  }
}

/* The open session stopped: take the frames the stream may not have delivered, then stop following it. */
async function endStream(id) {
  stopStream();
  const ac = new AbortController();
  st.streamAbort = ac;
  try { await fetchHistory(id, ac.signal); } catch (_) { /* keep what we have */ }
  if (st.cur && st.cur.id === id) {
    $('sv-live').className = 'live-state';
    $('sv-live').textContent = 'ended';
  }
}

/* The one collector's merged counter set: each event once, with the sessions that asked for it. */
async function refreshCollector() {
  let j;
  try {
    j = await api('GET', '/collector');
  } catch (e) {
    $('collector-targets').textContent = e.status === 401 ? '' : '(' + e.message + ')';
    return;
  }
  const tb = clear($('collector-table').tBodies[0]);
  const ev = (j && j.events) || [];
  $('collector-targets').textContent = isNum(j && j.targets) ? '(' + j.targets + (j.targets === 1 ? ' thread' : ' threads') + ' counted)' : '';
  for (const e of ev) {
    tb.append(el('tr', null, el('td', null, e.name), el('td', null, el('code', null, e.encoding || '')),
      el('td', null, (e.sessions || []).join(', ')),
      el('td', { class: 'num' }, isNum(e.running_pct) ? fmt(e.running_pct, 1, ' %') : naWithReason(e.why || 'not counted yet')),
      el('td', null, e.open ? 'yes' : 'no: ' + (e.why || 'no reason given'))));
  }
  if (!ev.length) tb.append(el('tr', null, el('td', { colspan: 5, class: 'muted' }, 'No session is running: nothing is counted.')));
}

async function refreshRecordings() {
  const tb = $('recordings-table').tBodies[0];
  let j;
  try {
    j = await api('GET', '/recordings');
  } catch (e) {
    if (e.status !== 401) clear(tb).append(el('tr', null, el('td', { colspan: 5, class: 'muted' }, 'Cannot list the recordings: ' + e.message)));
    return;
  }
  const recs = (j && j.recordings) || [];
  const sig = JSON.stringify(recs);
  if (tb.dataset.sig === sig) return;          /* unchanged: keep the buttons' state */
  tb.dataset.sig = sig;
  clear(tb);
  for (const r of recs) {
    const btn = el('button', { type: 'button', class: 'download', onclick: () => downloadRecording(r.name, btn) }, 'Download');
    const viewer = st.me && st.me.role === 'viewer';
    const rb = el('button', { type: 'button', class: 'replay', disabled: viewer ? true : null,
      title: viewer ? 'a viewer cannot start sessions' : 'a session whose frames and diagnosis are this recording\u2019s',
      onclick: () => replayRecording(r.name, rb) }, 'Replay');
    tb.append(el('tr', { dataset: { name: r.name } }, el('td', null, el('code', null, r.name)), el('td', null, r.owner || ''),
      el('td', { class: 'num' }, fmtBytes(r.size)), el('td', null, fmtStarted(r.mtime)), el('td', null, btn, ' ', rb)));
  }
  if (!recs.length) tb.append(el('tr', null, el('td', { colspan: 5, class: 'muted' }, 'No recordings' + (j && j.dir ? ' in ' + j.dir : '') + '.')));
}

/* A recording as a session: its frames, charts and diagnosis, read from the file by the daemon. */
async function replayRecording(name, btn) {
  btn.disabled = true;
  try {
    const s = await api('POST', '/sessions', { recording: name });
    await refreshSessions();
    openSession(s);
  } catch (e) {
    banner('Cannot replay ' + name + ': ' + e.message);
  } finally {
    btn.disabled = false;
  }
}

/* A download needs the Authorization header: fetch it, then save the blob. */
async function downloadRecording(name, btn) {
  btn.disabled = true;
  try {
    const r = await fetch(API + '/recordings/' + encodeURIComponent(name),
      { headers: { Authorization: 'Bearer ' + st.token }, cache: 'no-store' });
    if (!r.ok) throw await apiError(r);
    const blob = await r.blob();
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    btn.textContent = 'Downloaded (' + blob.size + ' bytes)';
  } catch (e) {
    banner('Cannot download ' + name + ': ' + e.message);
  } finally {
    btn.disabled = false;
  }
}

function targetsText(s) {
  if (s.replay) return 'recording ' + s.replay;
  const t = [];
  if (s.vms && s.vms.length) t.push('VMs ' + s.vms.join(', '));
  if (s.pids && s.pids.length) t.push('pids ' + s.pids.join(', '));
  return t.length ? t.join('; ') : 'every VM';
}

function renderSessions() {
  const tb = clear($('sessions-table').tBodies[0]);
  $('sessions-empty').hidden = st.sessions.length > 0;
  for (const s of st.sessions) {
    const acts = el('td', null,
      el('button', { type: 'button', class: 'open', onclick: () => openSession(s) }, 'Open'));
    if (canStop(s)) {
      acts.append(' ', el('button', { type: 'button', class: 'danger stop', onclick: () => stopSession(s) }, 'Stop'));
    } else if (canRemove(s)) {
      acts.append(' ', el('button', { type: 'button', class: 'remove', title: s.ended_because || '', onclick: () => stopSession(s) }, 'Remove'));
    }
    tb.append(el('tr', { dataset: { id: s.id }, class: st.cur && st.cur.id === s.id ? 'selected' : null },
      el('td', null, s.id), el('td', null, s.owner || ''), el('td', null, s.model || ''),
      el('td', null, targetsText(s)), el('td', { class: 'num' }, isNum(s.interval_ms) ? s.interval_ms + ' ms' : 'n/a'),
      el('td', null, fmtStarted(s.started)),
      el('td', null, el('span', { class: 'badge ' + (s.state || '') }, s.state || '?')), acts));
  }
}

async function startSession(ev) {
  ev.preventDefault();
  const err = $('start-error');
  err.textContent = '';
  const body = { model: $('model').value, interval_ms: Math.round(+$('interval').value), record: $('record').checked };
  const vms = [...document.querySelectorAll('#vm-choices input[name=vm]:checked')].map((x) => x.value);
  const ptxt = $('pids').value.trim();
  const pids = ptxt ? ptxt.split(/[\s,]+/).filter(Boolean).map(Number) : [];
  if (pids.some((p) => !Number.isInteger(p) || p <= 0)) {
    err.textContent = 'Process ids are positive whole numbers, separated by commas.';
    return;
  }
  if (vms.length) body.vms = vms;
  if (pids.length) body.pids = pids;
  if (!vms.length && !pids.length && !((st.vms && st.vms.vms) || []).length) {
    err.textContent = 'No VMs run here: give the process ids to profile.';
    return;
  }
  $('start').disabled = true;
  try {
    const s = await api('POST', '/sessions', body);
    await refreshSessions();
    openSession(s);
  } catch (e) {
    err.textContent = e.status === 403
      ? 'Not allowed (403): ' + e.message.replace(/^403: /, '') + ' (your role is \u2018' + st.me.role + '\u2019)'
      : 'Cannot start the session: ' + e.message;
  } finally {
    $('start').disabled = false;
  }
}

async function stopSession(s) {
  try {
    const r = await api('DELETE', '/sessions/' + encodeURIComponent(s.id));
    banner('');
    if (st.cur && st.cur.id === s.id) {
      st.cur = Object.assign({}, st.cur, { state: (r && r.state) || 'stopped' });
      renderSessionHead();
      endStream(s.id);
    }
  } catch (e) {
    banner(e.status === 403 ? 'Not allowed to stop ' + s.id + ' (403): ' + e.message.replace(/^403: /, '')
      : 'Cannot stop ' + s.id + ': ' + e.message);
  }
  await refreshSessions();
}

/* ---------- one session: stream, table, charts ---------- */

function stopStream() {
  if (st.streamAbort) { st.streamAbort.abort(); st.streamAbort = null; }
}

function openSession(s) {
  stopStream();
  st.cur = s;
  st.frames = [];
  st.lastSeq = -1;
  st.selKey = null;
  st.metric = null;
  $('session-view').hidden = false;
  $('sv-error').textContent = '';
  clear($('diagnosis')).append(el('p', { class: 'muted' }, 'Ask for the diagnosis of the session so far.'));
  renderSessions();
  renderSessionHead();
  renderFrame();
  runStream(s.id);
}

function renderSessionHead() {
  const s = st.cur;
  $('sv-id').textContent = s.id;
  const b = $('sv-state');
  b.textContent = s.state || '?';
  b.className = 'badge ' + (s.state || '');
  const last = st.frames[st.frames.length - 1];
  $('sv-meta').textContent = [
    'owner ' + (s.owner || '?'), 'model ' + (s.model || '?'), targetsText(s),
    'every ' + (isNum(s.interval_ms) ? s.interval_ms + ' ms' : 'n/a'),
    'started ' + fmtStarted(s.started),
    s.recording ? 'recording ' + s.recording : null,
    s.ended_because ? 'ended: ' + s.ended_because : null,
    last ? 'frame ' + last.seq + ' at ' + fmtTime(last.time) : 'no frame yet',
  ].filter(Boolean).join(' \u00b7 ');
}

function addFrames(list) {
  let added = false;
  for (const f of list) {
    if (!f || !isNum(f.seq) || f.seq <= st.lastSeq) continue;
    st.frames.push(f);
    st.lastSeq = f.seq;
    added = true;
  }
  if (st.frames.length > MAX_FRAMES) st.frames.splice(0, st.frames.length - MAX_FRAMES);
  if (added) scheduleRender();
}

function scheduleRender() {
  if (st.drawPending) return;
  st.drawPending = true;
  requestAnimationFrame(() => { st.drawPending = false; renderFrame(); renderSessionHead(); });
}

async function fetchHistory(id, signal) {
  const q = st.lastSeq >= 0 ? '?since=' + st.lastSeq : '';
  const j = await api('GET', '/sessions/' + encodeURIComponent(id) + '/history' + q);
  if (signal.aborted) return;
  addFrames(((j && j.frames) || []).slice().sort((a, b) => a.seq - b.seq));
}

/* History first, then the live stream; after a drop, history fills the gap and the stream resumes. */
async function runStream(id) {
  const ac = new AbortController();
  st.streamAbort = ac;
  const live = $('sv-live');
  let backoff = 1000;
  if (st.cur && st.cur.state && st.cur.state !== 'running') {
    try { await fetchHistory(id, ac.signal); } catch (e) { $('sv-error').textContent = 'Cannot read the history: ' + e.message; }
    live.className = 'live-state';
    live.textContent = 'ended';
    return;
  }
  while (!ac.signal.aborted) {
    try {
      await fetchHistory(id, ac.signal);
      if (ac.signal.aborted) return;
      live.className = 'live-state on';
      live.textContent = 'live';
      await readSSE('/sessions/' + encodeURIComponent(id) + '/stream', ac.signal, (type, data) => {
        if (type === 'end') {                 /* stopped, or ended on its own (its targets are gone) */
          let e = {};
          try { e = JSON.parse(data) || {}; } catch (_) { /* keep the defaults */ }
          if (st.cur && st.cur.id === id) {
            st.cur = Object.assign({}, st.cur, { state: e.state || 'ended', ended_because: e.why || st.cur.ended_because });
            renderSessionHead();
            endStream(id);
          }
          return;
        }
        if (type !== 'frame') return;
        try { addFrames([JSON.parse(data)]); } catch (_) { /* ignore a malformed frame */ }
        backoff = 1000;
      });
    } catch (e) {
      if (ac.signal.aborted) return;
      if (e.status === 403 || e.status === 404 || e.status === 401) {
        $('sv-error').textContent = 'Cannot follow ' + id + ': ' + e.message;
        live.className = 'live-state';
        live.textContent = '';
        return;
      }
    }
    if (ac.signal.aborted) return;
    /* The stream ended: the session stopped, or the connection dropped. */
    await refreshSessions();           /* ends this loop (endStream) when the session stopped */
    if (ac.signal.aborted) return;
    if (st.cur && st.cur.id === id && st.cur.state && st.cur.state !== 'running') {
      try { await fetchHistory(id, ac.signal); } catch (_) { /* keep what we have */ }
      live.className = 'live-state';
      live.textContent = 'ended';
      return;
    }
    live.className = 'live-state retry';
    live.textContent = 'reconnecting';
    await sleep(backoff, ac.signal);
    backoff = Math.min(backoff * 2, 8000);
  }
}

function factorCell(fv) {
  const td = el('td', { class: 'factor' });
  if (!fv) {
    td.append(naWithReason('this frame has no value for it'));
    return td;
  }
  const q = fv.quality || 'unknown';
  if (isNum(fv.score)) {
    td.append(el('span', { class: 'fscore' }, fmt(fv.score, 2)));
    // the cost stage's cost (docs/method.md "Costs"): its own quality, or why it is n/a
    const cwhy = fv.cost_why || fv.reason;
    td.append(el('span', { class: 'fcost', title: isNum(fv.cost_cycles) ? fmtBig(fv.cost_cycles, 'cycles') + (fv.cost_quality ? ' (' + fv.cost_quality + ')' : '') : 'cost not known' + (cwhy ? ': ' + cwhy : '') },
      'cost ' + (isNum(fv.cost_pct) ? fmt(fv.cost_pct, 1, ' %') : 'n/a')));
    // every quality word on the page is the daemon's (the words of docs/method.md), never
    // one of the page's own: the cost's where it differs from the score's
    if (isNum(fv.cost_pct) && fv.cost_quality && fv.cost_quality !== q)
      td.append(el('span', { class: 'q cq q-' + fv.cost_quality, title: 'the cost is ' + fv.cost_quality }, fv.cost_quality));
    td.append(el('span', { class: 'q q-' + q }, q));
    if (!isNum(fv.cost_pct) && cwhy) td.append(el('span', { class: 'reason' }, 'cost n/a: ' + cwhy));
  } else {
    td.append(naWithReason(fv.reason || (q === 'unavailable' ? 'not measurable here' : 'not known in this interval')));
    td.append(el('span', { class: 'q q-' + q }, q));
  }
  return td;
}

/* vCPU rows belong to a VM row, thread rows (native mode) to a process row. */
const isChild = (r) => r.kind === 'vcpu' || r.kind === 'thread';
const isId = (v) => isNum(v) && v >= 0;

function rowLabel(r, frame) {
  if (isChild(r)) {
    const vm = frame.rows[r.vm_row];
    const of = vm && vm.name ? ' of ' + vm.name : '';
    return (r.kind === 'thread' ? 'thread ' + (isId(r.tid) ? r.tid : r.index) : 'vCPU ' + r.index) + of;
  }
  return r.name || r.key;
}

function renderFrame() {
  const f = st.frames[st.frames.length - 1];
  const thead = clear($('factors-table').tHead);
  const tb = clear($('factors-table').tBodies[0]);
  thead.append(el('tr', null, el('th', null, 'VM / vCPU (process / thread)'), el('th', null, 'pid / tid'), el('th', null, 'CPU'),
    el('th', null, 'node'), ...FACTORS.map(([k, n]) => el('th', { title: k }, n))));
  if (!f) {
    tb.append(el('tr', null, el('td', { colspan: 4 + FACTORS.length, class: 'muted' },
      st.cur && st.cur.state !== 'running' ? 'This session has no frames.' : 'Waiting for the first interval\u2026')));
    drawCharts();
    renderNotMeasured(null);
    clear($('scaling-table').tBodies[0]);
    clear($('metrics-table').tBodies[0]);
    return;
  }
  const rows = f.rows || [];
  if (!st.selKey || !rows.some((r) => r.key === st.selKey)) {
    const vm = rows.find((r) => !isChild(r)) || rows[0];
    st.selKey = vm ? vm.key : null;
  }
  for (const r of rows) {
    const vc = isChild(r);
    const tr = el('tr', { class: (vc ? 'vcpu' : 'vm') + (r.key === st.selKey ? ' selected' : ''), dataset: { key: r.key },
      onclick: () => { st.selKey = r.key; renderFrame(); } },
      el('td', null, rowLabel(r, f)),
      el('td', { class: 'num' }, vc ? (isId(r.tid) ? String(r.tid) : 'n/a') : (isId(r.pid) ? String(r.pid) : (isId(r.domid) ? 'dom ' + r.domid : 'n/a'))),
      el('td', { class: 'num' }, vc ? (isId(r.cpu) ? String(r.cpu) : 'n/a') : ''),
      el('td', { class: 'num' }, vc ? (isId(r.node) ? String(r.node) : 'n/a') : ''),
      ...FACTORS.map(([k]) => factorCell(r.factors && r.factors[k])));
    tb.append(tr);
  }
  if (!rows.length) {
    tb.append(el('tr', null, el('td', { colspan: 4 + FACTORS.length, class: 'muted' }, 'No VM or process is being counted.')));
  }

  const sel = rows.find((r) => r.key === st.selKey);
  const label = sel ? rowLabel(sel, f) : 'n/a';
  $('chart-target').textContent = label;
  $('metrics-target').textContent = label;
  const mt = clear($('metrics-table').tBodies[0]);
  const metrics = (sel && sel.metrics) || {};
  for (const [k, v] of Object.entries(metrics)) {
    mt.append(el('tr', null, el('th', null, k), el('td', { class: 'num' }, isNum(v) ? fmtBig(v) : naWithReason(metricReason(k)))));
  }
  if (!Object.keys(metrics).length) mt.append(el('tr', null, el('td', { class: 'muted' }, 'This model has no metrics for this row.')));
  const pick = $('metric-pick');
  const names = Object.keys(metrics);
  if (!st.metric || !names.includes(st.metric)) st.metric = names.includes('cpu_util') ? 'cpu_util' : names[0] || null;
  if ([...pick.options].map((o) => o.value).join() !== names.join()) {
    clear(pick);
    for (const n of names) pick.append(el('option', { value: n }, n));
  }
  if (st.metric) pick.value = st.metric;

  const sc = clear($('scaling-table').tBodies[0]);
  for (const s of f.scaling || []) {
    sc.append(el('tr', null, el('td', null, s.event),
      el('td', { class: 'num' }, isNum(s.running_pct) ? fmt(s.running_pct, 1, ' %') : naWithReason(s.reason || s.why || 'not opened'))));
  }
  if (!(f.scaling || []).length) sc.append(el('tr', null, el('td', { colspan: 2, class: 'muted' }, 'No hardware or software counters in this frame.')));
  renderNotMeasured(f);
  drawCharts();
}

/* A metric's null: say why from the frame's notes when one names it. */
function metricReason(name) {
  const f = st.frames[st.frames.length - 1];
  const n = f && f.notes ? f.notes.split(/;\s*|\n/).find((x) => x.includes(name)) : null;
  return n || 'its inputs were not counted (see below)';
}

/* The factors no row could evaluate, with their reasons, and the frame's notes. */
function renderNotMeasured(f) {
  const ul = clear($('not-measured'));
  if (!f) return;
  const seen = new Map();
  for (const r of f.rows || []) {
    for (const [k] of FACTORS) {
      const fv = r.factors && r.factors[k];
      if (fv && !isNum(fv.score) && !seen.has(k)) seen.set(k, fv.reason || fv.quality || 'no value');
    }
  }
  for (const [k, n] of FACTORS) {
    if (seen.has(k)) ul.append(el('li', { dataset: { factor: k } }, el('b', null, n), ' (' + k + '): ', seen.get(k)));
  }
  for (const line of (f.notes || '').split(/\n|;\s+/).map((x) => x.trim()).filter(Boolean)) {
    ul.append(el('li', { class: 'note' }, line));
  }
  if (!ul.firstChild) ul.append(el('li', { class: 'muted' }, 'Everything the model asks for was measured.'));
}

/* ---------- charts (canvas, own code) ---------- */

function series(get) {
  const out = [];
  for (const f of st.frames) {
    const r = (f.rows || []).find((x) => x.key === st.selKey);
    const v = r ? get(r) : null;
    out.push([f.time, isNum(v) ? v : null]);
  }
  return out;
}

/* Draw lines [{name, colour, pts: [[t, v|null]]}] on a canvas; nulls break a line. */
function drawChart(canvas, lines, opts) {
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth || canvas.width, cssH = canvas.clientHeight || canvas.height;
  if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
  }
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, cssW, cssH);
  g.font = '11px system-ui, sans-serif';
  const L = 46, R = 10, T = 10, B = 24;
  const w = cssW - L - R, h = cssH - T - B;
  let t0 = Infinity, t1 = -Infinity, lo = opts.min, hi = opts.max;
  for (const l of lines) {
    for (const [t, v] of l.pts) {
      if (isNum(t)) { t0 = Math.min(t0, t); t1 = Math.max(t1, t); }
      if (v === null) continue;
      if (opts.min === undefined) lo = lo === undefined ? v : Math.min(lo, v);
      if (opts.max === undefined) hi = hi === undefined ? v : Math.max(hi, v);
    }
  }
  const any = lines.some((l) => l.pts.some((p) => p[1] !== null));
  g.strokeStyle = '#d6dbe1';
  g.fillStyle = '#5f6b7a';
  g.lineWidth = 1;
  g.strokeRect(L + 0.5, T + 0.5, w, h);
  if (!any) {
    g.textAlign = 'center';
    g.fillText(opts.empty || 'n/a: no values yet', L + w / 2, T + h / 2);
    return;
  }
  if (lo === undefined) lo = 0;
  if (hi === undefined || hi === lo) hi = lo + (Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1);
  if (t1 <= t0) { t0 -= 1; t1 += 1; }
  const X = (t) => L + (t - t0) / (t1 - t0) * w;
  const Y = (v) => T + h - (v - lo) / (hi - lo) * h;
  g.textAlign = 'right';
  g.textBaseline = 'middle';
  for (let i = 0; i <= 4; i++) {
    const v = lo + (hi - lo) * i / 4, y = Y(v);
    g.strokeStyle = '#eef0f3';
    g.beginPath(); g.moveTo(L, y + 0.5); g.lineTo(L + w, y + 0.5); g.stroke();
    g.fillText(opts.tick ? opts.tick(v) : fmtBig(v), L - 4, y);
  }
  g.textAlign = 'center';
  g.textBaseline = 'top';
  g.fillText(fmtTime(t0), L + 30, T + h + 6);
  g.fillText(fmtTime(t1), L + w - 30, T + h + 6);
  for (const l of lines) {
    g.strokeStyle = l.colour;
    g.fillStyle = l.colour;
    g.lineWidth = 2;
    let pen = false, prev = null;
    g.beginPath();
    for (const [t, v] of l.pts) {
      if (v === null) { pen = false; continue; }
      const x = X(t), y = Y(Math.min(Math.max(v, lo), hi));
      if (pen) g.lineTo(x, y); else g.moveTo(x, y);
      pen = true;
      prev = [x, y];
    }
    g.stroke();
    if (prev) { g.beginPath(); g.arc(prev[0], prev[1], 2.5, 0, 2 * Math.PI); g.fill(); }
  }
}

function drawCharts() {
  const sel = st.selKey;
  const lines = (get) => FACTORS.map(([k, n]) => ({ name: n, key: k, colour: COLOURS[k], pts: sel ? series((r) => get(r.factors && r.factors[k])) : [] }));
  const scores = lines((fv) => fv && fv.score);
  const costs = lines((fv) => fv && fv.cost_pct);
  drawChart($('chart-score'), scores, { min: 0, max: 1, tick: (v) => v.toFixed(2), empty: 'n/a: no factor has a score yet' });
  drawChart($('chart-cost'), costs, { min: 0, tick: (v) => v.toFixed(1) + ' %', empty: 'n/a: no factor has a cost yet (see the reasons below)' });
  const m = st.metric;
  drawChart($('chart-metric'), m ? [{ name: m, colour: '#2457a6', pts: series((r) => r.metrics && r.metrics[m]) }] : [],
    { empty: m ? 'n/a: ' + m + ' has no value yet' : 'n/a: no metric' });

  const leg = clear($('chart-legend'));
  const last = st.frames[st.frames.length - 1];
  const r = last && (last.rows || []).find((x) => x.key === sel);
  for (const [k, n] of FACTORS) {
    const fv = r && r.factors && r.factors[k];
    leg.append(el('li', { dataset: { factor: k } }, el('span', { class: 'sw', style: 'background:' + COLOURS[k] }), n,
      fv && !isNum(fv.score) ? el('span', { class: 'muted' }, ' \u2014 n/a: ' + (fv.reason || fv.quality)) : null));
  }
}

/* ---------- diagnosis ---------- */

async function diagnose() {
  if (!st.cur) return;
  const box = clear($('diagnosis'));
  box.append(el('p', { class: 'muted' }, 'Diagnosing\u2026'));
  const btn = $('diagnose');
  btn.disabled = true;
  try {
    const d = await api('GET', '/sessions/' + encodeURIComponent(st.cur.id) + '/diagnosis');
    renderDiagnosis(d);
  } catch (e) {
    clear(box).append(el('p', { class: 'error' }, 'Cannot diagnose: ' + e.message));
  } finally {
    btn.disabled = false;
  }
}

function sevClass(s) { return 'sev-' + String(s || 'na').toLowerCase().replace(/[^a-z]/g, ''); }

function renderDiagnosis(d) {
  const box = clear($('diagnosis'));
  const dg = (d && d.diagnosis) || {};
  box.append(el('p', { class: 'muted', id: 'diag-meta' }, [
    'model ' + (d.model || '?'), 'over ' + fmt(d.duration_s, 1, ' s'),
    isNum(d.targets) ? d.targets + ' thread(s) counted' : null].filter(Boolean).join(' \u00b7 ')));
  if (d.calibration) box.append(el('p', { class: 'muted' }, 'Calibration: ' + d.calibration));

  box.append(el('h4', null, 'Bottlenecks'));
  const bn = dg.bottlenecks || [];
  if (!bn.length) {
    box.append(el('p', { id: 'diag-no-bottleneck' }, 'No bottleneck found among the factors that could be measured.'));
  } else {
    const t = el('table', { class: 'grid', id: 'diag-bottlenecks' },
      el('thead', null, el('tr', null, ...['#', 'where', 'factor', 'cost', 'severity', 'quality', 'evidence'].map((x) => el('th', null, x)))));
    const tb = el('tbody');
    for (const b of bn) {
      const where = b.scope === 'node' ? 'node ' + b.node : (b.vm || '') + (b.scope === 'vcpu' && b.vcpu !== undefined && b.vcpu !== null ? ' vCPU ' + b.vcpu : '');
      tb.append(el('tr', null, el('td', null, String(b.rank)), el('td', null, where), el('td', null, b.factor),
        el('td', { class: 'num' }, fmt(b.cost_pct, 1, ' %')), el('td', { class: sevClass(b.severity) }, b.severity || 'n/a'),
        el('td', null, b.quality || ''), el('td', null, b.evidence || '')));
    }
    t.append(tb);
    box.append(t);
  }

  const vms = dg.vms || [];
  if (vms.length) {
    box.append(el('h4', null, 'Per VM'));
    const t = el('table', { class: 'grid', id: 'diag-vms' },
      el('thead', null, el('tr', null, el('th', null, 'VM'), el('th', null, 'cycles'), ...FACTORS.map(([, n]) => el('th', null, n)))));
    const tb = el('tbody');
    for (const v of vms) {
      const cells = FACTORS.map(([k]) => {
        const fv = (v.factors || {})[k] || {};
        const td = el('td', { class: 'factor' });
        if (isNum(fv.score)) {
          td.append(el('span', { class: 'fscore' }, fmt(fv.score, 2)), el('span', { class: 'fcost' }, 'cost ' + fmt(fv.cost_pct, 1, ' %')),
            el('span', { class: 'q q-' + fv.quality }, fv.quality), ' ', el('span', { class: sevClass(fv.severity) }, fv.severity || ''));
        } else {
          td.append(naWithReason((d.unavailable && d.unavailable[k]) || fv.reason || 'not measured'));
        }
        return td;
      });
      tb.append(el('tr', null, el('td', null, v.vm), el('td', { class: 'num' }, fmtBig(v.cycles) + (v.cycles_estimated ? ' (estimated)' : '')), ...cells));
    }
    t.append(tb);
    box.append(t);
  }

  const nodes = dg.nodes || [];
  if (nodes.length) {
    box.append(el('h4', null, 'Nodes'));
    const ul = el('ul', { class: 'reasons', id: 'diag-nodes' });
    for (const n of nodes) {
      ul.append(el('li', null, 'node ' + n.node + ': bandwidth ' + fmt(n.bw_gbs, 2, ' GB/s') + ' of ' + fmt(n.peak_gbs, 2, ' GB/s') +
        ', queue full ' + (isNum(n.queue_full_frac) ? fmt(100 * n.queue_full_frac, 1, ' %') : 'n/a') + (n.note ? ' \u2014 ' + n.note : '')));
    }
    box.append(ul);
  }
  box.append(el('p', null, 'Imbalance between nodes: ' + (isNum(dg.imbalance) ? fmt(dg.imbalance, 2) : 'n/a')));

  box.append(el('h4', null, 'Advice'));
  const adv = dg.advice || [];
  if (!adv.length) box.append(el('p', { id: 'diag-no-advice' }, 'No change to advise.'));
  for (const a of adv) {
    const div = el('div', { class: 'advice' + (a.conflict ? ' conflict' : '') },
      el('div', null, el('b', null, '#' + a.rank + ' '), a.action || a.rule || ''),
      a.evidence ? el('div', { class: 'muted' }, 'why: ' + a.evidence) : null,
      a.effect ? el('div', { class: 'muted' }, 'expected: ' + a.effect + (isNum(a.gain_pct) ? ' (gain ' + fmt(a.gain_pct, 1, ' %') + ')' : '')) : null,
      a.survives_restart ? el('div', { class: 'muted' }, 'after a restart: ' + a.survives_restart) : null,
      a.needs ? el('div', { class: 'muted' }, 'needs: ' + a.needs) : null,
      a.warning ? el('div', { class: 'error' }, 'warning: ' + a.warning) : null,
      a.command ? el('pre', { class: 'cmd' }, a.command) : null,
      a.conflict ? el('div', { class: 'error' }, 'conflict: ' + (a.conflict_note || a.conflict)) : null);
    box.append(div);
  }

  box.append(el('h4', null, 'Not measured, and why'));
  const ul = el('ul', { class: 'reasons', id: 'diag-unavailable' });
  for (const [k, why] of Object.entries(d.unavailable || {})) ul.append(el('li', null, el('b', null, k), ': ', why));
  for (const [k, why] of Object.entries(d.inputs_not_counted || {})) ul.append(el('li', null, 'input ', el('b', null, k), ': ', why));
  if (d.notes) ul.append(el('li', null, d.notes));
  if (!ul.firstChild) ul.append(el('li', null, 'Everything was measured.'));
  box.append(ul);
}

/* ---------- start ---------- */

function init() {
  $('login-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = $('token').value.trim();
    if (t) login(t);
  });
  $('logout').addEventListener('click', () => logout(''));
  $('start-form').addEventListener('submit', startSession);
  $('diagnose').addEventListener('click', diagnose);
  $('metric-pick').addEventListener('change', (ev) => { st.metric = ev.target.value; drawCharts(); });
  window.addEventListener('resize', () => { if (st.cur) drawCharts(); });
  const saved = sessionStorage.getItem('vmmprof.token');
  if (saved) login(saved); else showLogin();
}

document.addEventListener('DOMContentLoaded', init);
