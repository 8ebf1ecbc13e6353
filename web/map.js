/* map.js - the placement map of the web UI: a picture of the host from what the daemon sends.
 *
 * Each NUMA node is a box (one SVG per node) holding its last-level cache domains, in them
 * its cores (SMT siblings side by side) and in those its CPUs; each vCPU is a square on the
 * CPU it last ran on, coloured by the chosen factor's severity; below, each VM's memory is a
 * bar split by node, the part off its home node outlined as remote.  Everything comes from
 * /api/v1/info (topology: nodes, llc, cpus) and one `top --json` sample of the top stream
 * (vms, vcpus, their factors with value, quality, severity and reason): this file only lays
 * them out.  A severity the daemon calls "n/a" is grey and dashed, never the colour of "ok".
 *
 * Many VMs (more than MAP_DETAIL_VMS): each CPU shows one square with the number of vCPUs on
 * it, coloured by the worst severity among them, and the memory bars of the first
 * MAP_BARS VMs (worst severity first); the focus chooser drills down to one node (its vCPUs
 * one by one, its VMs' bars) or one VM (its vCPUs one by one, the rest still counted).
 * Host data goes into the page as text and attributes only.
 */
'use strict';

const MAP_DETAIL_VMS = 16;    /* up to this many VMs every vCPU is drawn on its own */
const MAP_BARS = 24;          /* memory bars shown before "N more" */
const MAP_NODE_COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#bab0ac'];
const MAP_SEV_RANK = { critical: 3, warning: 2, 'n/a': 1, ok: 0 };
const CW = 30, CH = 18, VQ = 8;   /* CPU cell, vCPU square */

const mapSt = { factor: 'locality', focus: 'all', sample: null };

/* SVG's namespace as the HTML parser gives it to an inline <svg> (no URL written here) */
const SVG_NS = new DOMParser().parseFromString('<svg></svg>', 'text/html').querySelector('svg').namespaceURI;

function svgEl(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'class') e.setAttribute('class', v);
    else e.setAttribute(k, String(v));
  }
  for (const k of kids) if (k !== undefined && k !== null) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

/* "0-3,8-11" -> [0, 1, 2, 3, 8, 9, 10, 11]; anything else -> [] */
function parseCpuList(s) {
  const out = [];
  for (const part of String(s || '').split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) continue;
    const a = +m[1], b = m[2] === undefined ? a : +m[2];
    for (let c = a; c <= b && c - a < 65536; c++) out.push(c);
  }
  return out;
}

/* The nodes with their LLC domains, cores and CPUs, from the topology of /api/v1/info. */
function mapTopology(topo) {
  const byCpu = new Map(((topo && topo.cpus) || []).map((c) => [c.cpu, c]));
  const llcs = ((topo && topo.llc) || []).map((l) => new Set(parseCpuList(l.cpus)));
  return ((topo && topo.nodes) || []).map((n, ni) => {
    const cpus = parseCpuList(n.cpus);
    const groups = new Map();   /* LLC index (-1 none known) -> Map core key -> [cpu] */
    for (const c of cpus) {
      const li = llcs.findIndex((s) => s.has(c));
      const t = byCpu.get(c);
      /* SMT siblings share package and core; without ids each CPU is its own core */
      const key = t && t.package >= 0 && t.core >= 0 ? t.package + ':' + t.core : 'cpu' + c;
      if (!groups.has(li)) groups.set(li, new Map());
      const g = groups.get(li);
      if (!g.has(key)) g.set(key, []);
      g.get(key).push(c);
    }
    return { id: n.id, index: ni, cpus, smtKnown: byCpu.size > 0,
      llcs: [...groups.entries()].map(([li, cores]) => ({ llc: li, cores: [...cores.values()] })) };
  });
}

function factorOf(row, f) { return (row && row.factors && row.factors[f]) || null; }

function sevOf(fv) {
  const s = fv && typeof fv.severity === 'string' ? fv.severity : 'n/a';
  return s in MAP_SEV_RANK ? s : 'n/a';
}

function sevClassOf(s) { return 'sev-' + (s === 'n/a' ? 'na' : s); }

/* A factor cell in words: "0.25 estimate, severity ok" or "n/a: reason". */
function factorWords(f, fv) {
  if (!fv || fv.value === null || fv.value === undefined)
    return f + ' n/a: ' + ((fv && fv.why) || 'not reported');
  const v = typeof fv.value === 'number' ? (Math.abs(fv.value) >= 1000 ? fv.value.toExponential(2) : fv.value.toFixed(2)) : String(fv.value);
  return f + ' ' + v + ' ' + (fv.quality || '') + ', severity ' + sevOf(fv) +
    (fv.cost_pct !== null && fv.cost_pct !== undefined ? ', cost ' + fv.cost_pct.toFixed(1) + ' % (' + (fv.cost_quality || '') + ')' : '');
}

function worstSev(list) {
  let w = null;
  for (const s of list) if (w === null || MAP_SEV_RANK[s] > MAP_SEV_RANK[w]) w = s;
  return w || 'n/a';
}

function fmtMiB(b) { return typeof b === 'number' && Number.isFinite(b) ? (b / 1048576).toFixed(0) + ' MiB' : 'n/a'; }

/* One node's box: LLC domains stacked, cores in rows of four, vCPUs on their CPUs. */
function drawNode(node, info, byCpu, opts) {
  const COLS = 4, PAD = 6, HEAD = 30;
  const coreW = (cores) => Math.max(1, ...cores.map((c) => c.length)) * CW + 4;
  let maxStack = 1;
  if (opts.detail) for (const c of node.cpus) maxStack = Math.max(maxStack, (byCpu.get(c) || []).filter(opts.individual).length);
  const perRow = Math.max(1, Math.floor((CW - 4) / (VQ + 1)));
  const cellH = opts.detail ? CH + Math.ceil(maxStack / perRow) * (VQ + 1) + 2 : CH + 14;
  const width = Math.max(220, ...node.llcs.map((l) => Math.min(COLS, l.cores.length) * (coreW(l.cores) + 4) + 2 * PAD + 8));
  const kids = [];
  let y = HEAD;
  for (const l of node.llcs) {
    const rows = Math.ceil(l.cores.length / COLS);
    const h = rows * (cellH + 8) + 18;
    const g = svgEl('g', { class: 'map-llc', dataset: { llc: String(l.llc) } },
      svgEl('rect', { x: PAD, y, width: width - 2 * PAD, height: h, rx: 4, class: 'llc-box' }),
      svgEl('text', { x: PAD + 4, y: y + 12, class: 'map-small' }, l.llc >= 0 ? 'L3 ' + l.llc : 'LLC not known'));
    l.cores.forEach((cpus, i) => {
      const cx = PAD + 4 + (i % COLS) * (coreW(l.cores) + 4), cy = y + 16 + Math.floor(i / COLS) * (cellH + 8);
      const core = svgEl('g', { class: 'map-core' },
        svgEl('rect', { x: cx, y: cy, width: cpus.length * CW + 4, height: cellH + 4, rx: 3, class: 'core-box' }));
      cpus.forEach((c, k) => {
        const x = cx + 2 + k * CW, yy = cy + 2;
        const here = byCpu.get(c) || [];
        const cell = svgEl('g', { class: 'map-cpu', dataset: { cpu: String(c) } },
          svgEl('rect', { x, y: yy, width: CW - 2, height: cellH, class: 'cpu-box' }),
          svgEl('text', { x: x + 2, y: yy + 11, class: 'map-small' }, String(c)),
          svgEl('title', null, 'CPU ' + c + ' (node ' + node.id + '): ' + here.length + ' vCPU' + (here.length === 1 ? '' : 's')));
        const one = here.filter(opts.individual), rest = here.filter((v) => !opts.individual(v));
        one.forEach((v, j) => {
          const fv = factorOf(v, mapSt.factor), s = sevOf(fv);
          cell.append(svgEl('rect', {
            x: x + 2 + (j % perRow) * (VQ + 1), y: yy + CH - 4 + Math.floor(j / perRow) * (VQ + 1), width: VQ, height: VQ,
            class: 'map-vcpu ' + sevClassOf(s),
            dataset: { vm: v.vm, vcpu: String(v.vcpu), cpu: String(c), sev: s, q: fv && fv.value !== null ? fv.quality || '' : 'n/a' },
          }, svgEl('title', null, v.vm + ' vCPU ' + v.vcpu + ' on CPU ' + c + ' (node ' + node.id + '): ' + factorWords(mapSt.factor, fv))));
        });
        if (rest.length) {
          const s = worstSev(rest.map((v) => sevOf(factorOf(v, mapSt.factor))));
          cell.append(svgEl('g', { class: 'map-agg', dataset: { cpu: String(c), count: String(rest.length), sev: s } },
            svgEl('rect', { x: x + 2, y: yy + CH - 4, width: CW - 6, height: 14, class: sevClassOf(s) }),
            svgEl('text', { x: x + CW / 2 - 1, y: yy + CH + 7, class: 'map-count', 'text-anchor': 'middle' }, String(rest.length)),
            svgEl('title', null, rest.length + ' vCPUs on CPU ' + c + ', worst ' + mapSt.factor + ' severity ' + s + ': ' +
              rest.map((v) => v.vm + '/' + v.vcpu).join(', '))));
        }
        core.append(cell);
      });
      g.append(core);
    });
    kids.push(g);
    y += h + 6;
  }
  const mem = info && info.mem_total_bytes ? fmtMiB(info.mem_used_bytes) + ' / ' + fmtMiB(info.mem_total_bytes) : '';
  const colour = MAP_NODE_COLOURS[node.index % MAP_NODE_COLOURS.length];
  return svgEl('svg', { class: 'map-node', width, height: y + 4, dataset: { node: String(node.id) }, role: 'img',
    'aria-label': 'node ' + node.id },
  svgEl('rect', { x: 1, y: 1, width: width - 2, height: y + 2, rx: 6, class: 'node-box', stroke: colour }),
  svgEl('rect', { x: 8, y: 9, width: 12, height: 12, fill: colour }),
  svgEl('text', { x: 26, y: 20, class: 'map-title' }, 'node ' + node.id),
  svgEl('text', { x: width - 8, y: 20, class: 'map-small', 'text-anchor': 'end' }, mem),
  ...kids);
}

/* One VM's memory: a bar split by node (node colours), the part off its home node outlined as remote. */
function memBar(vm, nodes) {
  const W = 360;
  const parts = (vm.mem_node_bytes || []).map((b, i) => ({ b, node: nodes[i] })).filter((p) => p.node && typeof p.b === 'number' && p.b > 0);
  const total = parts.reduce((a, p) => a + p.b, 0);
  const fv = factorOf(vm, mapSt.factor), s = sevOf(fv);
  const row = el('div', { class: 'map-vm', dataset: { vm: vm.name, sev: s } },
    el('span', { class: 'map-vm-name', title: factorWords(mapSt.factor, fv) }, el('span', { class: 'map-sev ' + sevClassOf(s) }), vm.name));
  const bar = svgEl('svg', { width: W + 2, height: 16, class: 'map-mem' });
  let x = 1;
  const words = [];
  for (const p of parts) {
    const w = total > 0 ? Math.max(1, p.b / total * W) : 0;
    const remote = typeof vm.home_node === 'number' && vm.home_node >= 0 && p.node.id !== vm.home_node;
    bar.append(svgEl('rect', { x, y: 2, width: w, height: 12, fill: MAP_NODE_COLOURS[p.node.index % MAP_NODE_COLOURS.length],
      class: 'map-mem-seg' + (remote ? ' remote' : ''), dataset: { node: String(p.node.id) } },
    svgEl('title', null, vm.name + ': ' + fmtMiB(p.b) + ' on node ' + p.node.id + (remote ? ' (remote: not its home node ' + vm.home_node + ')' : ' (home)'))));
    words.push(fmtMiB(p.b) + ' n' + p.node.id + (remote ? ' remote' : ''));
    x += w;
  }
  if (!parts.length) words.push('memory per node n/a');
  row.append(bar, el('span', { class: 'map-vm-words' }, words.join(' \u00b7 ') + ' \u2014 ' + factorWords(mapSt.factor, fv)));
  return row;
}

/* The map for the last sample (or the topology alone before the first one). */
function renderMap(sample) {
  if (sample) mapSt.sample = sample;
  sample = mapSt.sample;
  if (!document.getElementById('map-nodes')) return;
  const topo = st.info && st.info.topology;
  const nodes = mapTopology(topo);
  const vms = (sample && sample.vms) || [], vcpus = (sample && sample.vcpus) || [];
  const detailAll = vms.length <= MAP_DETAIL_VMS;
  /* the focus chooser: all, a node, a VM (kept across samples while it exists) */
  const sel = document.getElementById('map-focus');
  const want = ['all'].concat(nodes.map((n) => 'node:' + n.id), vms.map((v) => 'vm:' + v.name).sort());
  if (!want.includes(mapSt.focus)) mapSt.focus = 'all';
  if ([...sel.options].map((o) => o.value).join('\n') !== want.join('\n')) {
    while (sel.firstChild) sel.removeChild(sel.firstChild);
    for (const w of want)
      sel.append(el('option', { value: w }, w === 'all' ? (detailAll ? 'the whole host' : 'the whole host (vCPUs counted per CPU)')
        : w.startsWith('node:') ? 'node ' + w.slice(5) : 'VM ' + w.slice(3)));
  }
  sel.value = mapSt.focus;
  const focusNode = mapSt.focus.startsWith('node:') ? +mapSt.focus.slice(5) : null;
  const focusVm = mapSt.focus.startsWith('vm:') ? mapSt.focus.slice(3) : null;
  const individual = detailAll ? () => true : focusVm !== null ? (v) => v.vm === focusVm : focusNode !== null ? () => true : () => false;

  const byCpu = new Map(), unplaced = [];
  const cpuNode = new Map();
  for (const n of nodes) for (const c of n.cpus) cpuNode.set(c, n.id);
  for (const v of vcpus) {
    if (typeof v.cpu === 'number' && cpuNode.has(v.cpu)) {
      if (!byCpu.has(v.cpu)) byCpu.set(v.cpu, []);
      byCpu.get(v.cpu).push(v);
    } else {
      unplaced.push(v);
    }
  }
  const shown = focusNode === null ? nodes : nodes.filter((n) => n.id === focusNode);
  const nodeBox = document.getElementById('map-nodes');
  while (nodeBox.firstChild) nodeBox.removeChild(nodeBox.firstChild);
  const sNodes = (sample && sample.nodes) || [];
  for (const n of shown)
    nodeBox.append(drawNode(n, sNodes.find((x) => x.node === n.id), byCpu, { detail: detailAll || focusVm !== null || focusNode !== null, individual }));
  const un = document.getElementById('map-unplaced');
  un.textContent = unplaced.length ? unplaced.length + ' vCPU(s) on a CPU the topology does not list (n/a): ' +
    unplaced.map((v) => v.vm + '/' + v.vcpu).join(', ') : '';

  /* memory bars: the VMs in focus, worst severity first (the order of MAP_SEV_RANK), then by name */
  let list = vms;
  if (focusVm !== null) list = vms.filter((v) => v.name === focusVm);
  else if (focusNode !== null) {
    const ni = nodes.findIndex((n) => n.id === focusNode);
    const on = new Set(vcpus.filter((v) => cpuNode.get(v.cpu) === focusNode).map((v) => v.vm));
    list = vms.filter((v) => on.has(v.name) || ((v.mem_node_bytes || [])[ni] > 0));
  }
  list = list.slice().sort((a, b) => (MAP_SEV_RANK[sevOf(factorOf(b, mapSt.factor))] - MAP_SEV_RANK[sevOf(factorOf(a, mapSt.factor))]) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const bars = document.getElementById('map-bars');
  while (bars.firstChild) bars.removeChild(bars.firstChild);
  for (const v of list.slice(0, MAP_BARS)) bars.append(memBar(v, nodes));
  const more = document.getElementById('map-more');
  more.textContent = list.length > MAP_BARS ? '\u2026 and ' + (list.length - MAP_BARS) +
    ' more VMs: choose a node or a VM above to see them.' : '';
  const head = document.getElementById('map-state');
  head.textContent = !sample ? 'waiting for the first sample of the top stream' :
    vms.length + ' VMs, ' + vcpus.length + ' vCPUs, sample ' + sample.sample +
    (detailAll ? '' : '; more than ' + MAP_DETAIL_VMS + ' VMs: vCPUs counted per CPU') +
    (topo && !(topo.cpus && topo.cpus.length) ? '; SMT siblings n/a (the daemon sent no per-CPU ids)' : '');
}

function initMap() {
  const f = document.getElementById('map-factor');
  if (!f) return;
  for (const [k, t] of FACTORS) f.append(el('option', { value: k }, t));
  f.value = mapSt.factor;
  f.addEventListener('change', () => { mapSt.factor = f.value; renderMap(null); });
  document.getElementById('map-focus').addEventListener('change', (ev) => { mapSt.focus = ev.target.value; renderMap(null); });
}

document.addEventListener('DOMContentLoaded', initMap);
