// frontier dashboard: one page per path, its state in the query string, data from /api/*.
// Every stored string reaches the page as a text node (el() never parses HTML).
'use strict';

const COLORS = ['#2557d6', '#d6452b', '#0f9d58', '#9c27b0', '#ef8e00', '#00838f', '#795548', '#c2185b',
  '#5c6bc0', '#7cb342', '#8d6e63', '#26a69a'];

// ---- small helpers ---------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// Appends the children that are not null, undefined or false (strings as text).
function put(parent, ...kids) {
  parent.append(...kids.flat(Infinity).filter(k => k !== null && k !== undefined && k !== false));
}

function fmt(v, digits = 1) {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  if (typeof v !== 'number') return String(v);
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function withCi(c, digits = 1) {
  if (!c) return '-';
  return c.measured ? fmt(c.mean, digits) + ' ± ' + fmt(c.half_width, digits) : fmt(c.mean, digits);
}

function params() { return new URLSearchParams(location.search); }

// Replaces the address's query string (the view's state) without reloading.
function setParams(p) {
  const q = p.toString();
  history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
}

function showError(msg) {
  const e = document.getElementById('error');
  e.textContent = msg;
  e.hidden = !msg;
}

async function api(path, p) {
  const q = p ? (typeof p === 'string' ? p : p.toString()) : '';
  const res = await fetch('/api/' + path + (q ? '?' + q : ''), { headers: { accept: 'application/json' } });
  const body = await res.json().catch(() => ({ error: 'the server answered ' + res.status + ' without JSON' }));
  if (!res.ok) throw new Error(body.error || ('HTTP ' + res.status));
  return body;
}

function table(headers, rows, attrs) {
  return el('table', attrs || {},
    el('thead', {}, el('tr', {}, headers.map(h => typeof h === 'string' ? el('th', {}, h) : h))),
    el('tbody', {}, rows));
}

function numTd(v, digits, attrs) { return el('td', Object.assign({ class: 'num' }, attrs || {}), fmt(v, digits)); }

function pointLink(id, text) { return el('a', { href: '/point?id=' + id }, text); }

function selectOf(name, options, value, onchange, labelText) {
  const s = el('select', { name, onchange: e => onchange(e.target.value) },
    options.map(o => {
      const [v, t] = Array.isArray(o) ? o : [o, o === '' ? 'any' : o];
      return el('option', { value: v, selected: String(v) === String(value) }, t);
    }));
  return labelText ? el('label', {}, labelText, s) : s;
}

// Page-load figures (bench/dashboard_load reads them): ms since navigation start when the
// page's data was rendered, when a plot was first drawn, and a frame after that (painted).
function markReady() {
  if (window.__readyMs === undefined) window.__readyMs = performance.now();
  document.body.dataset.ready = '1';
}

function notePlot() {
  if (window.__firstPlotMs !== undefined) return;
  window.__firstPlotMs = performance.now();
  requestAnimationFrame(() => requestAnimationFrame(() => { window.__paintedMs = performance.now(); }));
}

// uPlot options shared by every plot: the first draw is noted.
const PLOT_HOOKS = { draw: [notePlot] };

// ---- plots (uPlot) ---------------------------------------------------------------------------

// A scatter of several series with lines, error bars, hover and click, drawn with uPlot.
// series: [{name, color, band, points: [{x, y, x_err, y_err, frontier, band: {lo, hi}?, ...}]}]
// A point's band (a simulated point's prediction band) is a pale bar from lo to hi; a series'
// band (relative half width) shades its frontier points' line at y × (1 ± band).
function scatterPlot(container, { series, xLabel, yLabel, width, height, onHover, onClick, onDblClick, xTime }) {
  const xs = [...new Set(series.flatMap(s => s.points.map(p => p.x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const data = [xs];
  for (const s of series) {
    const ys = new Array(xs.length).fill(null);
    for (const p of s.points) ys[index.get(p.x)] = p.y;
    data.push(ys);
  }
  const opts = {
    width: width || 900, height: height || 440,
    scales: { x: { time: !!xTime } },
    axes: [{ label: xLabel }, { label: yLabel, size: 70 }],
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    series: [{}].concat(series.map(s => ({
      label: s.name, stroke: s.color, width: 1.5, spanGaps: true,
      points: { show: true, size: 7, fill: s.color },
    }))),
    hooks: {
      draw: [notePlot, u => {
        // Error bars: 95% interval over repetitions, in x and y.
        const ctx = u.ctx;
        ctx.save();
        ctx.lineWidth = 1;
        // Prediction bands behind the markers: a simulated frontier's band, then each point's,
        // clipped to the plot (a band may reach past the scale the points set).
        ctx.beginPath();
        ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
        ctx.clip();
        series.forEach((s, i) => {
          if (u.series[i + 1].show === false) return;
          ctx.fillStyle = s.color;
          ctx.globalAlpha = 0.12;
          const front = s.points.filter(p => p.frontier && p.y !== null).sort((a, b) => a.x - b.x);
          if (s.band > 0 && front.length > 1) {
            ctx.beginPath();
            front.forEach((p, k) => {
              const px = u.valToPos(p.x, 'x', true), py = u.valToPos(p.y * (1 + s.band), 'y', true);
              k ? ctx.lineTo(px, py) : ctx.moveTo(px, py);
            });
            for (const p of front.slice().reverse()) ctx.lineTo(u.valToPos(p.x, 'x', true), u.valToPos(Math.max(0, p.y * (1 - s.band)), 'y', true));
            ctx.closePath(); ctx.fill();
          }
          ctx.globalAlpha = 0.25;
          for (const p of s.points) {
            if (p.y === null || !p.band || !(p.band.hi > p.band.lo)) continue;
            const cx = u.valToPos(p.x, 'x', true), a = u.valToPos(p.band.hi, 'y', true), b = u.valToPos(p.band.lo, 'y', true);
            ctx.fillRect(cx - 5 * devicePixelRatio, a, 10 * devicePixelRatio, b - a);
          }
          ctx.globalAlpha = 1;
        });
        series.forEach((s, i) => {
          if (u.series[i + 1].show === false) return;
          ctx.strokeStyle = s.color;
          for (const p of s.points) {
            if (p.y === null) continue;
            const cx = u.valToPos(p.x, 'x', true), cy = u.valToPos(p.y, 'y', true);
            if (p.y_err > 0) {
              const a = u.valToPos(p.y - p.y_err, 'y', true), b = u.valToPos(p.y + p.y_err, 'y', true);
              ctx.beginPath(); ctx.moveTo(cx, a); ctx.lineTo(cx, b);
              ctx.moveTo(cx - 4, a); ctx.lineTo(cx + 4, a); ctx.moveTo(cx - 4, b); ctx.lineTo(cx + 4, b); ctx.stroke();
            }
            if (p.x_err > 0) {
              const a = u.valToPos(p.x - p.x_err, 'x', true), b = u.valToPos(p.x + p.x_err, 'x', true);
              ctx.beginPath(); ctx.moveTo(a, cy); ctx.lineTo(b, cy); ctx.stroke();
            }
            if (p.frontier === false) {  // off the Pareto frontier: a white centre
              ctx.fillStyle = '#fff';
              ctx.beginPath(); ctx.arc(cx, cy, 2 * devicePixelRatio, 0, 2 * Math.PI); ctx.fill();
            }
          }
        });
        if (u.pickedX !== undefined && u.pickedX !== null) {
          const px = u.valToPos(u.pickedX, 'x', true);
          ctx.strokeStyle = '#667085';
          ctx.setLineDash([4, 4]);
          ctx.beginPath(); ctx.moveTo(px, u.bbox.top); ctx.lineTo(px, u.bbox.top + u.bbox.height); ctx.stroke();
        }
        ctx.restore();
      }],
      setCursor: [u => {
        const { left, top } = u.cursor;
        if (left === undefined || left < 0) { onHover && onHover(null); return; }
        let best = null, bestD = 15 * 15;
        series.forEach((s, si) => {
          for (const p of s.points) {
            if (p.y === null) continue;
            const dx = u.valToPos(p.x, 'x') - left, dy = u.valToPos(p.y, 'y') - top;
            const d = dx * dx + dy * dy;
            if (d < bestD) { bestD = d; best = { series: s, si, point: p, left: u.valToPos(p.x, 'x'), top: u.valToPos(p.y, 'y') }; }
          }
        });
        u.hovered = best;
        onHover && onHover(best, u);
      }],
    },
  };
  const u = new uPlot(opts, data, container);
  u.over.addEventListener('click', () => {
    if (!onClick || u.cursor.left === undefined || u.cursor.left < 0) return;
    onClick(u.posToVal(u.cursor.left, 'x'), u.hovered, u);
  });
  u.over.addEventListener('dblclick', () => { if (onDblClick && u.hovered) onDblClick(u.hovered); });
  return u;
}

function barPlot(container, title, hist, unit) {
  if (!hist || !hist.counts.length) { container.append(el('p', { class: 'muted' }, title + ': no values')); return; }
  const mids = hist.counts.map((_, i) => (hist.edges[i] + hist.edges[i + 1]) / 2);
  const box = el('div', { class: 'plot', dataset: { hist: title } }, el('div', { class: 'note' }, title));
  container.append(box);
  new uPlot({
    width: 420, height: 200, legend: { show: false }, hooks: PLOT_HOOKS, cursor: { drag: { x: false, y: false } },
    // Bars over the bins' whole range, counted from zero.
    scales: { x: { time: false, range: () => [hist.edges[0], hist.edges[hist.edges.length - 1]] },
      y: { range: (u, lo, hi) => [0, Math.max(1, hi) * 1.1] } },
    axes: [{ label: unit }, { label: 'requests' }],
    series: [{}, { stroke: '#2557d6', fill: 'rgba(37,87,214,.35)', paths: uPlot.paths.bars({ size: [0.9, 100] }), points: { show: false } }],
  }, [mids, hist.counts], box);
}

// ---- pages -----------------------------------------------------------------------------------

const RUN_FILTERS = ['model', 'hardware', 'precision', 'stack', 'version', 'workload', 'source'];

async function pageRuns(app, meta) {
  const head = el('h1', {}, 'Runs');
  const bar = el('div', { class: 'bar' });
  const actions = el('div', { class: 'bar' });
  const body = el('div');
  put(app, head, bar, actions, body);
  const selected = new Set();
  let data;
  async function load() {
    data = await api('runs', params());
    render();
  }
  function update(key, value) {
    const q = params();
    if (value) q.set(key, value); else q.delete(key);
    setParams(q);
    load().catch(e => showError(e.message));
  }
  function render() {
    const q = params();
    bar.replaceChildren(
      ...RUN_FILTERS.map(f => selectOf(f, [''].concat(data.facets[f] || []), q.get(f) || '', v => update(f, v), f)),
      el('label', {}, 'status', selectOf('status', ['', 'ok', 'broken'], q.get('status') || '', v => update('status', v))),
      el('label', {}, 'from', el('input', { type: 'date', name: 'from', value: q.get('from') || '', onchange: e => update('from', e.target.value) })),
      el('label', {}, 'to', el('input', { type: 'date', name: 'to', value: q.get('to') || '', onchange: e => update('to', e.target.value) })),
      el('label', {}, 'search', el('input', { type: 'search', name: 'q', value: q.get('q') || '', placeholder: 'name, model, hardware...',
        onchange: e => update('q', e.target.value) })),
      el('label', {}, 'sort', selectOf('sort', [['-date', 'newest'], ['date', 'oldest'], ['name', 'name'], ['model', 'model'],
        ['hardware', 'hardware'], ['-points', 'most points'], ['-peak', 'peak tok/s/GPU'], ['-interactivity', 'top tok/s/user']],
      q.get('sort') || '-date', v => update('sort', v))));
    const overlay = el('button', { class: 'primary', id: 'overlay', disabled: selected.size === 0,
      onclick: () => { location.href = '/frontier?' + [...selected].map(id => 'run=' + id).join('&'); } },
    'Overlay selected on the frontier');
    const compare = el('button', { id: 'compare', disabled: selected.size !== 2,
      onclick: () => { const [a, b] = [...selected].sort((x, y) => x - y); location.href = `/compare?baseline=${a}&candidate=${b}`; } },
    'Compare two selected');
    actions.replaceChildren(overlay, compare,
      el('span', { class: 'muted', id: 'count' }, `${data.total} of ${data.all_runs} runs`),
      meta.allow_import ? importForm() : el('span', { class: 'muted' }, 'import: start with --allow-import'));
    const rows = data.runs.map(r => el('tr', { dataset: { run: r.id } },
      el('td', {}, el('input', { type: 'checkbox', checked: selected.has(r.id), onchange: e => {
        if (e.target.checked) selected.add(r.id); else selected.delete(r.id);
        overlay.disabled = selected.size === 0; compare.disabled = selected.size !== 2;
      } })),
      el('td', { class: 'num' }, r.id),
      el('td', { class: 'name' }, el('a', { href: '/frontier?run=' + r.id }, r.label)),
      el('td', {}, r.model), el('td', {}, (r.gpus ? r.gpus + ' x ' : '') + r.hardware), el('td', {}, r.precision),
      el('td', {}, r.stack + (r.version ? ' ' + r.version : '')), el('td', {}, r.workloads.join(', ')),
      el('td', {}, r.source), el('td', {}, r.status),
      el('td', { class: 'num' }, r.points + (r.planned_points > 0 ? ' / ' + r.planned_points : '')),
      numTd(r.peak_total_tput_per_gpu, 0), numTd(r.peak_interactivity, 1),
      el('td', {}, r.created_utc.replace('T', ' ').replace(/:\d\dZ$/, '')),
      el('td', {}, el('a', { href: '/run?id=' + r.id, class: 'run-points' }, 'points'), ' · ',
        el('a', { href: '/over-time?config=' + encodeURIComponent(r.sweep + '/' + r.system) }, 'over time'))));
    body.replaceChildren();
    put(body, el('div', { class: 'scroll' }, table(['', 'id', 'run', 'model', 'hardware', 'precision', 'stack', 'workloads', 'source', 'status',
      el('th', { class: 'num' }, 'points'), el('th', { class: 'num' }, 'peak tok/s/GPU'), el('th', { class: 'num' }, 'top tok/s/user'),
      'created (UTC)', ''], rows, { id: 'runs' })),
    data.total > data.runs.length ? el('p', { class: 'muted' }, `showing ${data.runs.length}; narrow the filters or add &limit=`) : null);
    markReady();
  }
  await load();
}

function importForm() {
  const file = el('input', { type: 'file', name: 'file', accept: '.json,application/json' });
  const gpus = el('input', { type: 'number', name: 'gpus', min: 1, value: 1, style: 'width: 5em' });
  const hw = el('input', { type: 'text', name: 'hardware', placeholder: 'hardware (vLLM files)', style: 'width: 11em' });
  const msg = el('span', { class: 'muted', id: 'import-result' });
  const go = el('button', { id: 'import', onclick: async () => {
    if (!file.files.length) { msg.textContent = 'choose a file first'; return; }
    const f = file.files[0];
    const q = new URLSearchParams({ name: f.name, gpus: gpus.value });
    if (hw.value) q.set('hardware', hw.value);
    try {
      const res = await fetch('/api/import?' + q, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await f.text() });
      const body = await res.json();
      if (!res.ok) throw new Error(body.error);
      msg.textContent = 'imported ' + body.imported.map(r => r.label).join(', ');
      setTimeout(() => location.reload(), 600);
    } catch (e) { msg.textContent = ''; showError('import: ' + e.message); }
  } }, 'Import');
  return el('span', { class: 'bar', style: 'margin: 0' }, 'Import a vLLM or InferenceX result:', file, el('span', {}, 'GPUs'), gpus, hw, go, msg);
}

const Y_AXES = [['total', 'total tok/s/GPU'], ['output', 'output tok/s/GPU'], ['per_dollar', 'total tokens per $'], ['per_joule', 'total tokens per joule (measured, else TDP bound)']];
const X_AXES = [['interactivity', 'interactivity (tok/s/user)'], ['ttft_p50', 'TTFT p50 (ms)'], ['ttft_p99', 'TTFT p99 (ms)'], ['e2el', 'E2E latency p50 (ms)']];

async function pageFrontier(app) {
  const q = params();
  const y = q.get('y') || 'total', x = q.get('x') || 'interactivity';
  const data = await api('frontier', q);
  const bar = el('div', { class: 'bar' },
    el('label', {}, 'y axis', selectOf('y', Y_AXES, y, v => { const p = params(); p.set('y', v); location.search = p; })),
    el('label', {}, 'x axis', selectOf('x', X_AXES, x, v => { const p = params(); p.set('x', v); location.search = p; })),
    addRunBox(data.runs));
  const chips = el('div', { id: 'chips' });
  data.series.forEach((s, i) => {
    s.color = COLORS[i % COLORS.length];
    put(chips, el('span', { class: 'chip', dataset: { run: s.run_id } }, el('i', { style: 'background:' + s.color }),
      s.name + ' · ' + s.workload + ' · ' + (s.gpus ? s.gpus + ' x ' : '') + s.hardware,
      el('button', { title: 'remove', onclick: () => {
        const p = params(); const keep = data.runs.filter(id => id !== s.run_id);
        p.delete('run'); keep.forEach(id => p.append('run', id)); location.search = p;
      } }, '×')));
  });
  const yLabel = Y_AXES.find(a => a[0] === y)[1], xLabel = X_AXES.find(a => a[0] === x)[1];
  const plotBox = el('div', { class: 'plot', id: 'frontier-plot' });
  const tip = el('div', { id: 'tooltip', hidden: true });
  put(plotBox, tip);
  const iso = el('div', { id: 'iso' });
  const pts = el('div', { id: 'points' });
  const energyBox = el('div', { id: 'energy' });
  renderEnergy(energyBox, data);
  put(app, el('h1', {}, 'Frontier explorer'), bar, chips,
    data.default_runs ? el('p', { class: 'note' }, 'Showing the latest sweep; pick runs on the Runs page or add them above.') : null,
    data.notes.map(n => el('p', { class: 'note' }, n)), plotBox,
    el('p', { class: 'note' }, x === 'interactivity'
      ? 'Click the plot to read every series at that interactivity; double-click a point for its details. Bars: 95% interval over repetitions; pale bars and shading: a simulated point\'s prediction band; hollow: off the Pareto frontier.'
      : 'Double-click a point for its details. Bars: 95% interval over repetitions; pale bars: a simulated point\'s prediction band. The iso-interactivity table needs the interactivity x axis to pick by clicking.'),
    y === 'per_joule' ? el('p', { class: 'note', id: 'energy-note' }, 'Tokens per joule: measured where a point measured its energy (its tooltip and the points table say "measured (source)"); elsewhere the TDP bound, total tok/s/GPU over the GPU\'s TDP: power at most TDP, so at least that many tokens per joule.') : null,
    iso, energyBox, pts);
  if (!data.series.length) { put(plotBox, el('p', { class: 'muted' }, 'No points in these runs yet.')); renderIso(iso, data); markReady(); return; }
  const series = data.series.map(s => ({ name: s.name, color: s.color, run_id: s.run_id, raw: s, band: s.frontier_band || 0,
    points: s.points.filter(p => p.y !== null).map(p => ({ ...p })) }));
  const u = scatterPlot(plotBox, {
    series, xLabel, yLabel, width: Math.min(1100, window.innerWidth - 60), height: 460,
    onHover: (h) => {
      if (!h) { tip.hidden = true; return; }
      const p = h.point;
      tip.hidden = false;
      tip.textContent = [h.series.name + '  (' + h.series.raw.workload + ')',
        `${p.load_kind} ${p.load} · ${p.n} repetition${p.n > 1 ? 's' : ''}`,
        `${xLabel}: ${fmt(p.x, 2)}` + (p.x_err > 0 ? ' ± ' + fmt(p.x_err, 2) : ''),
        `${yLabel}: ${fmt(p.y, 1)}` + (p.y_err > 0 ? ' ± ' + fmt(p.y_err, 1) : ''),
        `TTFT p50 ${withCi(p.median_ttft_ms, 1)} ms · TPOT p50 ${withCi(p.median_tpot_ms, 2)} ms`,
        p.frontier ? 'on the Pareto frontier' : 'off the frontier',
        ...bandLines(p.band, yLabel),
        ...energyLines(p, y),
        'double-click: point details'].join('\n');
      tip.style.left = (h.left + 70) + 'px';
      tip.style.top = (h.top + 20) + 'px';
      tip.dataset.point = p.ids[0];
    },
    onClick: (xv, _h, u) => {
      if (x !== 'interactivity') return;
      const at = Math.round(xv * 10) / 10;
      u.pickedX = at; u.redraw(false);
      const p = params(); p.set('at', at); setParams(p);
      api('frontier', p).then(d => renderIso(iso, d)).catch(e => showError(e.message));
    },
    onDblClick: (h) => { location.href = '/point?id=' + h.point.ids[0]; },
  });
  if (q.get('at') && x === 'interactivity') { u.pickedX = Number(q.get('at')); u.redraw(false); }
  window.__plot = u;
  renderIso(iso, data);
  renderPoints(pts, data, xLabel, yLabel);
  plotBox.dataset.plotted = '1';
  markReady();
}

function addRunBox(current) {
  const list = el('datalist', { id: 'run-options' });
  const input = el('input', { type: 'search', name: 'add-run', list: 'run-options', placeholder: 'add a run: id or search', style: 'width: 16em' });
  let timer = null;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const v = input.value.trim();
      if (/^\d+$/.test(v) || !v) return;
      const d = await api('runs', new URLSearchParams({ q: v, limit: 20 })).catch(() => null);
      if (d) list.replaceChildren(...d.runs.map(r => el('option', { value: r.id }, r.label)));
    }, 200);
  });
  const add = el('button', { onclick: () => {
    const v = input.value.trim();
    if (!/^\d+$/.test(v)) { showError('add a run by its id (type to search, then choose)'); return; }
    const p = params(); if (!current.includes(Number(v))) { p.delete('run'); current.concat([Number(v)]).forEach(id => p.append('run', id)); }
    location.search = p;
  } }, 'Add');
  return el('label', {}, 'runs', el('span', {}, input, list, add));
}

function renderIso(box, data) {
  box.replaceChildren(el('h2', {}, data.at ? `At equal interactivity: ${fmt(data.at, 1)} tok/s/user` : 'At equal interactivity (round targets the frontiers cover)'));
  put(box, el('p', { class: 'note' }, 'Each series read off its Pareto frontier by monotone (PCHIP) interpolation, never extrapolated (\'-\': outside it), as `frontier report` computes it. Cost at the hardware\'s $/GPU-hour; energy at TDP, a lower bound on tokens per joule.'));
  for (const w of data.iso) {
    const rows = [];
    for (const r of w.rows) {
      r.cells.forEach((c, i) => rows.push(el('tr', { dataset: { at: r.interactivity, series: c.series } },
        i === 0 ? el('td', { rowspan: r.cells.length, class: 'num' }, fmt(r.interactivity, 1)) : null,
        el('td', {}, c.series),
        numTd(c.total, 1, { dataset: { metric: 'total' } }),
        el('td', { class: 'num', dataset: { metric: 'ratio_total' } }, c.ratio_total === null ? '-' : fmt(c.ratio_total, 2) + 'x'),
        numTd(c.output, 1, { dataset: { metric: 'output' } }),
        numTd(c.usd_per_m_total, 3), numTd(c.usd_per_m_output, 3), numTd(c.tokens_per_joule, 2))));
    }
    put(box, el('h2', {}, 'workload ' + w.workload),
      table([el('th', { class: 'num' }, 'tok/s/user'), 'series', el('th', { class: 'num' }, 'total tok/s/GPU'), el('th', { class: 'num' }, 'vs first'),
        el('th', { class: 'num' }, 'output tok/s/GPU'), el('th', { class: 'num' }, '$/M total tok'), el('th', { class: 'num' }, '$/M output tok'),
        el('th', { class: 'num' }, 'total tok/J (TDP bound)')], rows, { class: 'iso', dataset: { workload: w.workload } }));
  }
}

// A point's measured energy in words (tooltips); on the per-joule axis, says when y is the TDP bound.
function energyLines(p, y) {
  const e = p.energy;
  if (!e) return y === 'per_joule' ? ['tokens per joule: TDP bound (no measured energy)'] : [];
  return [`energy ${e.label}: ${fmt(e.tokens_per_joule, 3)} tok/J` +
    (e.tdp_bound_tokens_per_joule !== null ? ` (TDP bound ${fmt(e.tdp_bound_tokens_per_joule, 3)})` : ''),
    `${fmt(e.joules, 1)} J · mean ${fmt(e.mean_power_w, 1)} W · peak ${fmt(e.peak_power_w, 1)} W`];
}

// The points that measured their energy, beside the TDP bound (as `frontier report` shows them).
function renderEnergy(box, data) {
  if (!data.energy || !data.energy.length) { box.replaceChildren(); return; }
  const rows = data.energy.map(e => el('tr', { dataset: { series: e.series, key: e.key } },
    el('td', {}, e.series), el('td', {}, e.key), el('td', {}, e.label),
    numTd(e.joules, 1), numTd(e.mean_power_w, 1), numTd(e.peak_power_w, 1),
    numTd(e.tokens_per_joule, 3, { dataset: { metric: 'tokens_per_joule' } }),
    numTd(e.tdp_bound_tokens_per_joule, 3, { dataset: { metric: 'tdp_bound' } })));
  box.replaceChildren(el('h2', {}, 'Measured energy'),
    el('p', { class: 'note' }, 'Per point, the mean of the repetitions that measured it (docs/energy.md); tokens per joule = total tokens / joules, beside the TDP bound.'),
    table(['series', 'point', 'energy', el('th', { class: 'num' }, 'J'), el('th', { class: 'num' }, 'mean W'), el('th', { class: 'num' }, 'peak W'),
      el('th', { class: 'num' }, 'tok/J'), el('th', { class: 'num' }, 'TDP bound tok/J')], rows, { id: 'energy-table' }));
}

// A simulated point's prediction band in words (tooltips): none for a measured point.
function bandLines(band, yLabel) {
  if (!band) return [];
  const lines = ['prediction band ' + band.describe + (band.hi > band.lo ? `: ${yLabel} ${fmt(band.lo, 1)} to ${fmt(band.hi, 1)}` : '')];
  if (band.flags.length) lines.push('extrapolates: ' + band.flags.join('; '));
  return lines;
}

// A band cell: "±12%" with its class and flags on hover, the flags beside it.
function bandCell(band) {
  if (!band) return el('td', { class: 'band' }, '');
  return el('td', { class: 'band' + (band.flags.length ? ' flagged' : ''), title: band.describe + (band.flags.length ? '\nextrapolates: ' + band.flags.join('; ') : '') },
    band.cell, band.flags.length ? el('span', { class: 'flags' }, ' ⚠ ' + band.flags.join('; ')) : null);
}

function renderPoints(box, data, xLabel, yLabel) {
  const rows = [];
  // The verdict column when a point was judged, the trial columns when a series is a search,
  // the band column when a point is simulated.
  const judged = data.series.some(s => s.points.some(p => p.verdict));
  const banded = data.series.some(s => s.points.some(p => p.band));
  const trials = data.series.some(s => s.points.some(p => p.trial !== null && p.trial !== undefined));
  for (const s of data.series) {
    for (const p of s.points) {
      const extra = [];
      if (banded) extra.push(bandCell(p.band));
      if (judged) extra.push(el('td', { class: 'verdict' + (p.verdict.startsWith('INVALID') ? ' invalid' : '') }, p.verdict));
      if (trials) extra.push(el('td', { class: 'num' }, p.trial ?? ''), el('td', {}, p.decision));
      rows.push(el('tr', {}, el('td', {}, s.name), el('td', {}, s.workload), el('td', { class: 'num' }, p.load),
        el('td', { class: 'num' }, p.n), el('td', { class: 'num' }, fmt(p.x, 2) + (p.x_err > 0 ? ' ± ' + fmt(p.x_err, 2) : '')),
        el('td', { class: 'num', dataset: { yKind: p.y_kind || '' } }, fmt(p.y, 1) + (p.y_err > 0 ? ' ± ' + fmt(p.y_err, 1) : '') +
          (p.y_kind === 'measured' ? ' (' + p.energy.label + ')' : p.y_kind === 'tdp_bound' ? ' (TDP bound)' : '')),
        el('td', {}, p.frontier ? '*' : ''), el('td', {}, p.ids.map((id, i) => [i ? ' ' : '', pointLink(id, '#' + id)])), ...extra));
    }
  }
  const headers = ['series', 'workload', el('th', { class: 'num' }, 'load'), el('th', { class: 'num' }, 'reps'),
    el('th', { class: 'num' }, xLabel), el('th', { class: 'num' }, yLabel), 'frontier', 'details'];
  if (banded) headers.push('band');
  if (judged) headers.push('verdict');
  if (trials) headers.push(el('th', { class: 'num' }, 'trial'), 'decision');
  const searches = data.series.filter(s => s.search).map(s => el('p', { class: 'note' }, s.name + ': ' + s.search + ' ',
    el('a', { href: '/run?id=' + s.run_id }, 'trials in order')));
  box.replaceChildren(el('h2', {}, 'Points'), ...searches, table(headers, rows, { id: 'points-table' }));
}

// A verdict cell: VALID / INVALID with its first reason; every reason on hover (title) and
// in a list that opens on click.
function verdictCell(pt) {
  const v = pt.verdict;
  if (!v) return el('td', { class: 'verdict-cell muted' }, pt.verdict_cell || '');
  const reasons = Array.isArray(v.reasons) ? v.reasons : [];
  const cls = 'verdict-cell ' + (v.result === 'INVALID' ? 'invalid' : 'valid');
  const label = v.result + (v.scenario ? ' (' + v.scenario + ')' : '');
  if (!reasons.length) return el('td', { class: cls }, label);
  return el('td', { class: cls, title: reasons.join('\n') },
    el('details', {}, el('summary', {}, label + ': ' + reasons[0] + (reasons.length > 1 ? ` (+${reasons.length - 1})` : '')),
      el('ul', { class: 'reasons' }, reasons.map(r => el('li', {}, r)))));
}

async function pageRun(app) {
  const d = await api('run', params());
  const r = d.run;
  put(app, el('h1', {}, 'Run ', el('span', { id: 'run-label' }, r.label), ' ',
    el('a', { class: 'note', href: '/frontier?run=' + r.id }, '(frontier)')));
  put(app, el('p', { class: 'note' }, [r.model, (r.gpus ? r.gpus + ' x ' : '') + r.hardware, r.precision, r.stack + (r.version ? ' ' + r.version : ''),
    r.source, r.status, r.created_utc].filter(x => x).join(' · ')));
  const s = d.search;
  if (s) {
    const a = s.answer;
    const rules = s.rules || {};
    const bracket = s.bracket || {};
    put(app, el('h2', {}, 'Search'), el('p', { id: 'search-line' }, d.search_line), table(['', ''], [
      ['goal', (s.goal || '') + ' over ' + (s.axis || '')],
      ['answer', a ? `${fmt(a.value, 3)} (trial ${a.trial}): ${fmt(a.output_throughput_per_gpu, 1)} output tok/s/GPU, ${fmt(a.request_throughput, 3)} req/s, ${fmt(a.interactivity, 1)} tok/s/user` : 'no valid trial'],
      ['stopped', s.stop_reason || '(no stop reason stored)'],
      ['bracket', `valid ${bracket.valid ?? '-'} · invalid ${bracket.invalid ?? '-'}`],
      ['rules', [rules.scenario ? 'scenario ' + rules.scenario : '', rules.benchmark || '', ...(rules.constraints || [])].filter(x => x).join(' · ') || '-'],
      ['trials', s.trial_count ?? d.trials],
    ].map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', { dataset: { field: k } }, v))), { class: 'kv', id: 'search' }));
  }
  const trials = d.trials > 0;
  const banded = d.points.some(pt => pt.band);
  put(app, el('h2', {}, trials ? 'Trials, in the order the search ran them' : 'Points'),
    d.judged ? el('p', { class: 'note' }, `${d.judged} judged, ${d.invalid} INVALID. Hover a verdict for its reasons, or click it to list them.`) : null);
  const headers = [trials ? el('th', { class: 'num' }, 'trial') : null, 'point', 'load', el('th', { class: 'num' }, 'tok/s/user'),
    el('th', { class: 'num' }, 'total tok/s/GPU'), el('th', { class: 'num' }, 'output tok/s/GPU'), el('th', { class: 'num' }, 'TTFT p50 ms'),
    el('th', { class: 'num' }, 'TPOT p50 ms'), banded ? 'band' : null, 'verdict', trials ? 'step' : null, trials ? 'decision' : null].filter(h => h);
  put(app, el('div', { class: 'scroll' }, table(headers, d.points.map(pt => el('tr', { dataset: { point: pt.id, trial: pt.trial ? pt.trial.index : null } },
    trials ? el('td', { class: 'num' }, pt.trial ? pt.trial.index : '') : null,
    el('td', { title: pt.key }, pointLink(pt.id, '#' + pt.id)), el('td', {}, pt.load_kind + ' ' + fmt(pt.load, 3).replace(/\.?0+$/, '')),
    numTd(pt.interactivity, 1), numTd(pt.total_tput_per_gpu, 1), numTd(pt.output_tput_per_gpu, 1), numTd(pt.median_ttft_ms, 1),
    numTd(pt.median_tpot_ms, 2), banded ? bandCell(pt.band) : null, verdictCell(pt),
    trials ? el('td', {}, pt.trial ? pt.trial.step : '') : null, trials ? el('td', { class: 'decision' }, pt.trial ? pt.trial.decision : '') : null)),
  { id: 'run-points' })));
  markReady();
}

async function pagePoint(app) {
  const q = params();
  const d = await api('point', q);
  const p = d.point, r = d.run, m = p.metrics;
  put(app, el('h1', {}, 'Point ', el('span', { id: 'point-key' }, p.key), ' of ', el('a', { href: '/run?id=' + r.id, id: 'run-link' }, r.label),
    ' ', el('a', { class: 'note', href: '/frontier?run=' + r.id }, '(frontier)')));
  put(app, table(['', ''], [
    ['source', p.source], ['workload', p.workload], [p.load_kind, p.load], ['repetition', p.repetition], ['attempts', p.attempts],
    ['GPUs', m.num_gpus], ['completed / failed', m.completed + ' / ' + m.failed], ['duration (s)', fmt(m.duration_s, 2)],
    ['total tok/s/GPU', fmt(m.total_tput_per_gpu, 1)], ['output tok/s/GPU', fmt(m.output_tput_per_gpu, 1)],
    ['interactivity (tok/s/user)', fmt(m.interactivity, 2)], ['request throughput (req/s)', fmt(m.request_throughput, 3)],
    ['peak concurrent requests', m.max_concurrent_requests], ['stored (UTC)', p.created_utc],
    ...(p.verdict ? [['verdict', p.verdict.result + (p.verdict.scenario ? ' (' + p.verdict.scenario + ')' : '')],
      ...(p.verdict.reasons || []).map((why, i) => [i ? '' : 'reasons', why])] : []),
    ...(p.trial ? [['search trial', '#' + p.trial.index + ' (' + p.trial.step + ')'], ['decision', p.trial.decision]] : []),
    ...(p.band ? [['prediction band', p.band.describe + (p.band.hi > p.band.lo ? `: ${fmt(p.band.lo, 1)} to ${fmt(p.band.hi, 1)} total tok/s/GPU` : '')],
      ...p.band.flags.map((f, i) => [i ? '' : 'extrapolates', f])] : []),
  ].map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, v))), { class: 'kv', id: 'point-metrics' }));

  put(app, el('h2', {}, 'Latency percentiles (ms)'));
  const metrics = ['ttft', 'tpot', 'itl', 'e2el'].filter(k => d.percentiles[k]);
  const stats = [...new Set(metrics.flatMap(k => d.percentiles[k].map(s => s.stat)))];
  put(app, table(['', ...metrics.map(k => el('th', { class: 'num' }, k.toUpperCase()))],
    stats.map(s => el('tr', {}, el('td', {}, s), metrics.map(k => {
      const v = d.percentiles[k].find(x => x.stat === s);
      return numTd(v ? v.value : null, 2, { dataset: { metric: k, stat: s } });
    }))), { id: 'percentiles' }));

  put(app, el('h2', {}, 'Per-request histograms'),
    el('p', { class: 'note' }, `${d.requests.ok} completed requests of ${d.requests.stored} stored (${d.requests.warmup} warm-up, ${d.requests.failed} failed). ITL here is each request's mean gap between stream events: per-token timestamps are not stored.`));
  const hists = el('div', { class: 'plots', id: 'histograms' });
  put(app, hists);
  barPlot(hists, 'TTFT', d.histograms.ttft_ms, 'ms');
  barPlot(hists, 'TPOT', d.histograms.tpot_ms, 'ms');
  barPlot(hists, 'ITL (mean per request)', d.histograms.itl_ms, 'ms');
  barPlot(hists, 'E2E latency', d.histograms.e2el_ms, 'ms');

  renderSeries(app, d.series, p);

  put(app, el('h2', {}, 'Reproduce'), el('pre', { id: 'reproduce' }, d.reproduce.command || '(no command stored)'),
    el('p', { class: 'note' }, d.reproduce.note || ''));
  if (d.reproduce.original_command) put(app, el('p', { class: 'note' }, 'original command: ', el('code', {}, d.reproduce.original_command)));
  if (d.reproduce.plan_text) put(app, el('details', {}, el('summary', {}, 'plan stored with the run'), el('pre', {}, d.reproduce.plan_text)));

  put(app, el('h2', {}, 'Provenance'));
  const kv = (obj) => Object.entries(obj).map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, v)));
  put(app, el('div', { class: 'grid2' },
    el('div', {}, el('h2', {}, 'run configuration'), table(['key', 'value'], kv(r.config), { class: 'kv' })),
    el('div', {}, el('h2', {}, 'run provenance'), table(['key', 'value'], kv(r.provenance), { class: 'kv', id: 'provenance' })),
    el('div', {}, el('h2', {}, 'point settings'), table(['key', 'value'], kv(p.settings), { class: 'kv' }))));
  markReady();
}

// Lines over one time axis: curves [{name, t, values, color, scale}] merged onto the union of
// their times (a curve without a sample at a time leaves a gap its line spans).
// axes: [{scale, label}] (the first on the left). shade: [from, to] seconds drawn behind.
function timePlot(container, { id, title, curves, axes, shade, stepped, height }) {
  const xs = [...new Set(curves.flatMap(c => c.t))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const data = [xs].concat(curves.map(c => {
    const ys = new Array(xs.length).fill(null);
    c.t.forEach((t, i) => { ys[index.get(t)] = c.values[i]; });
    return ys;
  }));
  const box = el('div', { class: 'plot', id }, el('div', { class: 'note' }, title));
  container.append(box);
  const drawShade = u => {
    if (!shade) return;
    const a = u.valToPos(shade[0], 'x', true), b = u.valToPos(shade[1], 'x', true);
    u.ctx.save();
    u.ctx.fillStyle = 'rgba(15, 157, 88, .12)';
    u.ctx.fillRect(a, u.bbox.top, b - a, u.bbox.height);
    u.ctx.restore();
  };
  return new uPlot({
    width: 860, height: height || 220, cursor: { drag: { x: false, y: false } },
    hooks: { draw: [notePlot], drawAxes: [drawShade] },
    scales: { x: { time: false } },
    axes: [{ label: 'seconds from the first send' }].concat(axes.map((a, i) => ({
      scale: a.scale, label: a.label, size: 70, side: i === 0 ? 3 : 1, grid: { show: i === 0 } }))),
    series: [{}].concat(curves.map(c => ({ label: c.name, stroke: c.color, width: 2, scale: c.scale, spanGaps: true,
      dash: c.dash, paths: stepped ? uPlot.paths.stepped({ align: 1 }) : undefined, points: { show: !stepped && xs.length < 60 } }))),
  }, data, box);
}

// A point's series over time: its timeslices (throughput with the steady span shaded, TTFT and
// TPOT per window, in flight) and the server's samples when they were scraped.
function renderSeries(app, series, point) {
  put(app, el('h2', {}, 'Over time'));
  const ts = series.timeslices;
  const w = ts && ts.windows;
  if (!w || !Array.isArray(w.start_s) || !w.start_s.length) {
    put(app, el('p', { class: 'muted', id: 'no-timeslices' }, point.source === 'imported'
      ? 'No timeslices: an imported result keeps no send times.'
      : 'No timeslices: this point was stored without them or its request rows.'));
  } else {
    const from = series.timeslices_from === 'stored'
      ? 'Windows stored with the point when it ran.'
      : 'Windows computed from the stored request rows by the same rule (token times are not stored, so each request\'s output tokens count in the window it ended).';
    const st = ts.steady;
    put(app, el('p', { class: 'note', id: 'timeslices-source', dataset: { from: series.timeslices_from } },
      `${w.start_s.length} windows of ${fmt(ts.slice_s, 3)} s. ${from} ` +
      (st ? `Steady state ${fmt(st.start_s, 2)} – ${fmt(st.end_s, 2)} s (shaded): ${fmt(st.output_throughput, 1)} output tok/s, ${fmt(st.request_throughput, 3)} req/s.`
        : 'No steady span (fewer than 3 windows, or nothing in flight).')));
    const n = w.start_s.length;
    const edges = w.start_s.concat([w.end_s[n - 1]]);
    const last = a => (a || []).concat([(a || [])[n - 1] ?? null]);
    // Latencies of a window where no request ended are 0 in the JSON: drawn as a gap.
    const ended = a => last((a || []).map((v, i) => (w.completed || [])[i] > 0 ? v : null));
    const shade = st ? [st.start_s, st.end_s] : null;
    const plots = el('div', { class: 'plots', id: 'timeslices' });
    put(app, plots);
    timePlot(plots, { id: 'ts-throughput', title: 'output tokens/s and requests in flight per window', shade, stepped: true,
      axes: [{ scale: 'tok', label: 'output tok/s' }, { scale: 'n', label: 'in flight' }],
      curves: [{ name: 'output tok/s', t: edges, values: last(w.output_throughput), color: '#2557d6', scale: 'tok' },
        { name: 'in flight', t: edges, values: last(w.mean_in_flight), color: '#d6452b', scale: 'n' }] });
    timePlot(plots, { id: 'ts-latency', title: 'TTFT and TPOT p50 / p99 of the requests that ended in each window (ms)', shade, stepped: true,
      axes: [{ scale: 'ttft', label: 'TTFT ms' }, { scale: 'tpot', label: 'TPOT ms' }],
      curves: [{ name: 'TTFT p50', t: edges, values: ended(w.ttft_p50_ms), color: '#0f9d58', scale: 'ttft' },
        { name: 'TTFT p99', t: edges, values: ended(w.ttft_p99_ms), color: '#0f9d58', scale: 'ttft', dash: [5, 4] },
        { name: 'TPOT p50', t: edges, values: ended(w.tpot_p50_ms), color: '#9c27b0', scale: 'tpot' },
        { name: 'TPOT p99', t: edges, values: ended(w.tpot_p99_ms), color: '#9c27b0', scale: 'tpot', dash: [5, 4] }] });
    const col = (name, i) => (w[name] || [])[i];
    put(app, el('details', {}, el('summary', {}, 'windows'), table(['from s', 'to s', 'phase', 'completed', 'output tokens', 'output tok/s',
      'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'in flight'].map(h => el('th', { class: h === 'phase' ? '' : 'num' }, h)),
    w.start_s.map((_, i) => el('tr', { class: col('phase', i) === 'steady' ? 'steady' : '' },
      numTd(col('start_s', i), 2), numTd(col('end_s', i), 2), el('td', {}, col('phase', i)), numTd(col('completed', i), 0),
      numTd(col('output_tokens', i), 0), numTd(col('output_throughput', i), 1), numTd(col('ttft_p50_ms', i), 1),
      numTd(col('ttft_p99_ms', i), 1), numTd(col('tpot_p50_ms', i), 2), numTd(col('tpot_p99_ms', i), 2),
      numTd(col('mean_in_flight', i), 2))), { id: 'timeslice-table' })));
  }
  const sv = series.server || {};
  const kv = (sv.kv_usage_pct || []).concat(sv.prefix_hit_rate_pct || []), queue = sv.queue || [];
  if (!kv.length && !queue.length) {
    put(app, el('p', { class: 'muted', id: 'no-server-metrics' }, 'No server samples: the server\'s /metrics was not scraped for this point.'));
    return;
  }
  const plots = el('div', { class: 'plots', id: 'server-metrics' });
  put(app, el('h2', {}, 'Server samples'), plots);
  const color = ['#2557d6', '#d6452b', '#0f9d58', '#ef8e00'];
  const curves = kv.map((c, i) => ({ name: c.name, t: c.t_s, values: c.values, color: color[i % 4], scale: 'pct' }))
    .concat(queue.map((c, i) => ({ name: c.name, t: c.t_s, values: c.values, color: ['#9c27b0', '#ef8e00', '#00838f', '#795548'][i % 4], scale: 'req', dash: [5, 4] })));
  const axes = [];
  if (kv.length) axes.push({ scale: 'pct', label: '%' });
  if (queue.length) axes.push({ scale: 'req', label: 'requests' });
  timePlot(plots, { id: 'server-plot', title: 'KV-cache use and prefix-cache hit rate (%), requests running / waiting, as the server reported them', curves, axes });
}

async function pageCompare(app) {
  const q = params();
  const d = await api('compare', q);
  const runOpts = [['', 'choose a run']].concat(d.runs.map(r => [r.id, `#${r.id} ${r.label} (${r.points} points)`]));
  const go = (k, v) => { const p = params(); if (v) p.set(k, v); else p.delete(k); location.search = p; };
  put(app, el('h1', {}, 'Compare two runs'), el('div', { class: 'bar' },
    el('label', {}, 'baseline', selectOf('baseline', runOpts, q.get('baseline') || '', v => go('baseline', v))),
    el('label', {}, 'candidate', selectOf('candidate', runOpts, q.get('candidate') || '', v => go('candidate', v))),
    el('label', {}, 'confidence', selectOf('confidence', ['0.9', '0.95', '0.99'], q.get('confidence') || '0.95', v => go('confidence', v)))));
  if (!d.ready) { put(app, el('p', { class: 'muted' }, 'Choose a baseline and a candidate run.')); markReady(); return; }
  const cls = d.verdict === 'regression' ? 'regression' : d.verdict === 'improved' ? 'improved' : 'same';
  put(app, el('p', {}, el('span', { class: 'verdict ' + cls, id: 'verdict' }, d.verdict),
    ` ${d.regressions} regression(s), ${d.improvements} improvement(s) in ${d.deltas.length} comparisons`),
  el('p', { class: 'note' }, 'A change counts only beyond the noise: a Student-t bound on the repetitions\' spread at the chosen confidence (or a fixed share of the baseline when a side has one repetition), and never below 1%. The same analysis as ', el('code', {}, d.command)));
  // A simulated run says how sure it is; a change within its band cannot tell prediction from measurement.
  const banded = !!(d.baseline.band || d.candidate.band);
  for (const [side, r] of [['baseline', d.baseline], ['candidate', d.candidate]]) {
    if (r.band) put(app, el('p', { class: 'note', id: side + '-band' }, `${side} ${r.label} is simulated: prediction band ${r.band.describe}` +
      (r.band.flags.length ? '; extrapolates: ' + r.band.flags.join('; ') : '')));
  }
  put(app, table(['point', 'metric', el('th', { class: 'num' }, 'baseline'), el('th', { class: 'num' }, 'candidate'), el('th', { class: 'num' }, 'change'),
    el('th', { class: 'num' }, 'noise bound'), 'noise', 'verdict', banded ? 'band' : null].filter(h => h),
  d.deltas.map(x => el('tr', { class: x.verdict }, el('td', {}, x.key), el('td', {}, x.metric), numTd(x.baseline, 2), numTd(x.candidate, 2),
    el('td', { class: 'num' }, (x.relative_change >= 0 ? '+' : '') + fmt(x.relative_change * 100, 1) + '%'), numTd(x.threshold, 2),
    el('td', {}, x.noise_measured ? `measured (n=${x.n_baseline}/${x.n_candidate})` : 'not measured'), el('td', {}, x.verdict),
    banded ? el('td', { class: 'band' }, x.band) : null)), { id: 'deltas' }));
  for (const k of d.only_baseline) put(app, el('p', { class: 'note' }, 'only in baseline: ' + k));
  for (const k of d.only_candidate) put(app, el('p', { class: 'note' }, 'only in candidate: ' + k));
  markReady();
}

async function pageOverTime(app) {
  const q = params();
  const d = await api('over-time', q);
  const go = (k, v) => { const p = params(); if (v) p.set(k, v); else p.delete(k); if (k === 'config') p.delete('workload'); location.search = p; };
  put(app, el('h1', {}, 'Over time'), el('div', { class: 'bar' },
    el('label', {}, 'configuration', selectOf('config', d.configs.map(c => [c.config, `${c.config} (${c.runs} runs)`]), d.config, v => go('config', v))),
    el('label', {}, 'workload', selectOf('workload', d.workloads || [], d.workload || '', v => go('workload', v))),
    el('label', {}, 'at tok/s/user', el('input', { type: 'number', name: 'at', value: d.at === null || d.at === undefined ? '' : d.at, style: 'width: 6em', onchange: e => go('at', e.target.value) }))));
  if (!d.rows.length) { put(app, el('p', { class: 'muted' }, 'No run with points yet.')); markReady(); return; }
  const t = d.rows.map(r => Date.parse(r.created_utc) / 1000);
  const box = el('div', { class: 'plot', id: 'over-time-plot' });
  put(app, box);
  new uPlot({ width: 900, height: 320, hooks: PLOT_HOOKS, cursor: { drag: { x: false, y: false } }, scales: { x: { time: true } },
    axes: [{}, { label: 'tok/s/GPU', size: 70 }, { side: 1, scale: 'i', label: 'tok/s/user', grid: { show: false } }],
    series: [{}, { label: 'peak total tok/s/GPU', stroke: '#2557d6', width: 2 }, { label: 'peak output tok/s/GPU', stroke: '#0f9d58', width: 2 },
      { label: `total tok/s/GPU at ${fmt(d.at, 0)} tok/s/user`, stroke: '#ef8e00', width: 2, spanGaps: true }, { label: 'top tok/s/user', stroke: '#9c27b0', scale: 'i', dash: [5, 5] }] },
  [t, d.rows.map(r => r.peak_total_tput_per_gpu), d.rows.map(r => r.peak_output_tput_per_gpu), d.rows.map(r => r.total_tput_per_gpu_at), d.rows.map(r => r.max_interactivity)], box);
  put(app, table(['run', 'created (UTC)', 'status', el('th', { class: 'num' }, 'peak total tok/s/GPU'), el('th', { class: 'num' }, 'peak output tok/s/GPU'),
    el('th', { class: 'num' }, `total tok/s/GPU at ${fmt(d.at, 0)} tok/s/user`), el('th', { class: 'num' }, 'top tok/s/user')],
  d.rows.map(r => el('tr', {}, el('td', {}, el('a', { href: '/frontier?run=' + r.run_id }, r.label)), el('td', {}, r.created_utc), el('td', {}, r.status),
    numTd(r.peak_total_tput_per_gpu, 1), numTd(r.peak_output_tput_per_gpu, 1), numTd(r.total_tput_per_gpu_at, 1), numTd(r.max_interactivity, 1))), { id: 'over-time' }));
  markReady();
}

async function pageLive(app, meta) {
  const progress = el('div', { id: 'progress' });
  const list = el('tbody');
  const status = el('span', { class: 'muted', id: 'live-status' }, 'connecting...');
  const plotBox = el('div', { class: 'plot', id: 'live-plot' });
  put(app, el('h1', {}, 'Live'), el('p', {}, status), progress, plotBox, el('h2', {}, 'Points as they are stored (newest first)'),
    el('table', { id: 'live-points' }, el('thead', {}, el('tr', {}, ['id', 'run', 'point', 'tok/s/user', 'total tok/s/GPU', 'TTFT p50 ms', 'stored (UTC)'].map(h => el('th', {}, h)))), list));
  let since = Math.max(0, (meta.last_point_id || 0) - 50);
  let count = 0;
  // Every point received, by run, redrawn as a scatter of total tok/s/GPU against interactivity.
  const byRun = new Map();
  let plot = null;
  function drawLive(points) {
    for (const p of points) {
      if (!byRun.has(p.label)) byRun.set(p.label, []);
      byRun.get(p.label).push({ x: p.interactivity, y: p.total_tput_per_gpu, x_err: 0, y_err: 0, ids: [p.id] });
    }
    const series = [...byRun.entries()].slice(-12).map(([name, pts], i) => ({
      name, color: COLORS[i % COLORS.length], points: pts.slice(-500).sort((a, b) => a.x - b.x) }));
    if (plot) plot.destroy();
    plotBox.replaceChildren();
    put(plotBox, el('div', { class: 'note' }, series.map(s => el('span', { class: 'chip' }, el('i', { style: 'background:' + s.color }), s.name))));
    plot = scatterPlot(plotBox, { series, xLabel: 'interactivity (tok/s/user)', yLabel: 'total tok/s/GPU', width: 860, height: 300,
      onDblClick: h => { location.href = '/point?id=' + h.point.ids[0]; } });
  }
  function apply(d) {
    progress.replaceChildren(...d.progress.map(r => el('div', { dataset: { run: r.id } }, el('span', { class: 'progress' },
      el('div', { style: `width:${r.planned_points > 0 ? Math.min(100, 100 * r.points / r.planned_points) : 100}%` })),
    ` ${r.label}: ${r.points}${r.planned_points > 0 ? ' / ' + r.planned_points : ''} points · ${r.status}`)));
    for (const p of d.points) {
      list.prepend(el('tr', { dataset: { point: p.id } }, el('td', {}, pointLink(p.id, '#' + p.id)), el('td', {}, p.label), el('td', {}, p.key),
        numTd(p.interactivity, 1), numTd(p.total_tput_per_gpu, 1), numTd(p.median_ttft_ms, 1), el('td', {}, p.created_utc)));
      count++;
    }
    while (list.children.length > 500) list.lastChild.remove();
    since = d.last_id;
    if (d.points.length) drawLive(d.points);
    document.body.dataset.livePoints = String(count);
  }
  if (window.EventSource) {
    const es = new EventSource('/api/live/stream?since=' + since);
    es.onmessage = e => { status.textContent = 'following the database (server-sent events)'; apply(JSON.parse(e.data)); markReady(); };
    es.addEventListener('failure', e => showError(JSON.parse(e.data).error));
    es.onerror = () => { status.textContent = 'stream interrupted; reconnecting...'; };
  } else {
    const poll = async () => { try { apply(await api('live', new URLSearchParams({ since }))); status.textContent = 'polling every 2 s'; markReady(); } catch (e) { showError(e.message); } setTimeout(poll, 2000); };
    poll();
  }
}

// ---- start -----------------------------------------------------------------------------------

async function main() {
  const path = location.pathname.replace(/\/+$/, '') || '/runs';
  const page = path === '/' ? 'runs' : path.slice(1);
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.page === page);
  const app = document.getElementById('app');
  try {
    const meta = await api('meta');
    document.getElementById('dbinfo').textContent = `${meta.db} · ${meta.runs} runs · frontier ${meta.version}`;
    const pages = { runs: pageRuns, run: pageRun, frontier: pageFrontier, point: pagePoint, compare: pageCompare, 'over-time': pageOverTime, live: pageLive };
    if (!pages[page]) throw new Error('no page ' + path);
    await pages[page](app, meta);
  } catch (e) {
    showError(e.message);
    document.body.dataset.ready = 'error';
  }
}

main();
