// `frontier dashboard` in a real browser (Debian's Chromium through playwright-core), against a
// database filled by a small simulated sweep (small.yaml). Screenshots go to
// $FRONTIER_ARTIFACTS (default build/artifacts/dashboard).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import path from 'node:path';
import { repo, bin, frontier, launchBrowser, startDashboard } from './harness.mjs';

const artifacts = process.env.FRONTIER_ARTIFACTS || path.join(repo, 'build/artifacts/dashboard');
mkdirSync(artifacts, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), 'frontier-dashboard-test-'));
const db = path.join(work, 'browser.db');
let dash, browser, page;
const pageErrors = [];
const dialogs = [];

before(async () => {
  frontier('sweep', path.join(repo, 'web/tests/small.yaml'), '--db', db, '-q');
  dash = await startDashboard(['--db', db, '--allow-import']);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('pageerror', e => pageErrors.push(e.message));
  page.on('dialog', d => { dialogs.push(d.message()); d.dismiss(); });
});

after(async () => {
  if (browser) await browser.close();
  if (dash) await dash.stop();
  rmSync(work, { recursive: true, force: true });
});

async function open(target) {
  await page.goto(dash.url + target);
  await page.waitForSelector('body[data-ready]', { timeout: 20000 });
  assert.equal(await page.getAttribute('body', 'data-ready'), '1',
    'page ' + target + ' failed: ' + await page.textContent('#error'));
}

async function shot(name) {
  await page.screenshot({ path: path.join(artifacts, name + '.png'), fullPage: true });
}

async function apiJson(target) {
  const res = await fetch(dash.url + target);
  return { status: res.status, body: await res.json() };
}

const num = s => Number(s.replace(/,/g, '').split(' ')[0]);

// Where a plot value lies on the page (the frontier plot is window.__plot).
function plotPos(x, y) {
  return page.evaluate(([x, y]) => {
    const u = window.__plot, r = u.over.getBoundingClientRect();
    return { x: r.left + u.valToPos(x, 'x'), y: y === null ? r.top + u.over.clientHeight - 8 : r.top + u.valToPos(y, 'y') };
  }, [x, y]);
}

test('the Runs page lists the sweep and filters it, with the filters in the address', async () => {
  await open('/runs');
  assert.equal(await page.locator('#runs tbody tr').count(), 2);
  await page.selectOption('select[name=hardware]', 'mi325x');
  await page.waitForFunction(() => document.querySelectorAll('#runs tbody tr').length === 1);
  assert.match(page.url(), /hardware=mi325x/);
  assert.equal(await page.textContent('#runs tbody tr td.name'), 'browser/mi325x-llama8b#2');
  // The address reproduces the view.
  await open('/runs?hardware=mi325x');
  assert.equal(await page.locator('#runs tbody tr').count(), 1);
  await open('/runs?q=h200&sort=name');
  assert.equal(await page.textContent('#runs tbody tr td.name'), 'browser/h200-llama8b#1');
  await open('/runs?source=measured');
  assert.equal(await page.locator('#runs tbody tr').count(), 0);
  await open('/runs');
  await shot('runs');
});

test('two runs overlaid on the frontier; a hovered point shows its configuration and metrics', async () => {
  await open('/runs');
  for (const box of await page.locator('#runs tbody input[type=checkbox]').all()) await box.check();
  await page.click('#overlay');
  await page.waitForSelector('#frontier-plot[data-plotted]');
  assert.match(page.url(), /\/frontier\?run=\d+&run=\d+/);
  assert.equal(await page.locator('#chips .chip').count(), 2);
  const api = (await apiJson('/api/frontier?run=1&run=2')).body;
  const want = api.series[0].points[2];  // h200, concurrency 16
  const pos = await plotPos(want.x, want.y);
  await page.mouse.move(pos.x, pos.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await page.textContent('#tooltip');
  assert.match(tip, /^h200-llama8b/);
  assert.match(tip, /concurrency 16 · 3 repetitions/);
  const fmt1 = v => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  assert.ok(tip.includes('total tok/s/GPU: ' + fmt1(want.y) + ' ± ' + fmt1(want.y_err)), tip);
  assert.equal(await page.getAttribute('#tooltip', 'data-point'), String(want.ids[0]));
  await shot('frontier-hover');
});

test('simulated points show their prediction band: the band bars, the tooltip and the band column', async () => {
  await open('/frontier?run=1&run=2');
  await page.waitForSelector('#frontier-plot[data-plotted]');
  const api = (await apiJson('/api/frontier?run=1&run=2')).body;
  // Every point of the simulated sweep has a band; the series' frontier band is its widest.
  for (const s of api.series) {
    assert.ok(s.frontier_band > 0, s.name + ': no frontier band');
    for (const p of s.points) {
      assert.ok(p.band && p.band.points > 0, s.name + ' ' + p.key + ': no band');
      assert.ok(Math.abs(p.band.lo - p.y * (1 - p.band.half_width)) < 1e-6 * p.y, JSON.stringify(p.band));
      assert.ok(Math.abs(p.band.hi - p.y * (1 + p.band.half_width)) < 1e-6 * p.y, JSON.stringify(p.band));
    }
  }
  // The points table's band column holds each point's cell, as `frontier report` prints it.
  const headers = await page.$$eval('#points-table th', ths => ths.map(t => t.textContent));
  assert.ok(headers.includes('band'), headers.join(','));
  const cells = await page.$$eval('#points-table td.band', tds => tds.map(t => t.textContent));
  const want = api.series.flatMap(s => s.points.map(p => p.band.cell + (p.band.flags.length ? ' ⚠ ' + p.band.flags.join('; ') : '')));
  assert.deepEqual(cells, want);
  const report = frontier('report', '--db', db, '--run', '1');
  assert.ok(report.includes(api.series[0].points[0].band.cell), report);
  // Hovering a point names its band and its range on the y axis.
  const p = api.series[0].points[2];  // h200, concurrency 16, as the hover test above
  const pos = await plotPos(p.x, p.y);
  await page.mouse.move(pos.x, pos.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await page.textContent('#tooltip');
  assert.ok(tip.includes('prediction band ' + p.band.describe), tip);
  await shot('frontier-band');
});

test('a click picks an interactivity; the iso table matches `frontier report` at it', async () => {
  // An interactivity inside both frontiers, so each series has a figure there; near the
  // bottom of the plot, away from the points.
  const api = (await apiJson('/api/frontier?run=1&run=2')).body;
  const xs = api.series.map(s => s.points.map(p => p.x));
  const lo = Math.max(...xs.map(x => Math.min(...x))), hi = Math.min(...xs.map(x => Math.max(...x)));
  assert.ok(lo < hi, 'the two frontiers share no interactivity: ' + JSON.stringify(xs));
  const target = Math.round((lo + hi) / 2);
  const pos = await plotPos(target, null);
  await page.mouse.click(pos.x, pos.y);
  await page.waitForFunction(() => {
    const at = new URLSearchParams(location.search).get('at');
    const row = document.querySelector('#iso table tbody tr');
    return at !== null && row !== null && row.dataset.at === at;
  });
  const at = new URL(page.url()).searchParams.get('at');
  assert.ok(Math.abs(Number(at) - target) < 2, 'picked ' + at + ', aimed at ' + target);
  const cells = await page.$$eval('#iso table tbody tr', rows => rows.map(r => ({
    series: r.dataset.series, at: r.dataset.at, total: r.querySelector('td[data-metric=total]').textContent,
    ratio: r.querySelector('td[data-metric=ratio_total]').textContent })));
  assert.equal(cells.length, 2);
  assert.equal(cells[0].at, at);
  // `frontier report` at the same target on the same runs, in the page's order: the first
  // row of its total-throughput table (columns: target, each series, the ratio to the first).
  const runs = new URL(page.url()).searchParams.getAll('run');
  const out = frontier('report', '--db', db, ...runs.flatMap(r => ['--run', r]), '--targets', at);
  const lines = out.split('\n');
  const head = lines.findIndex(l => l.startsWith('At equal interactivity: total'));
  const names = lines[head + 1].trim().split(/\s{2,}/);
  const row = lines[head + 3].trim().split(/\s{2,}/);
  assert.deepEqual(cells.map(c => c.series), names.slice(1, 3));
  assert.equal(cells[0].total.replace(/,/g, ''), row[1]);
  assert.equal(cells[1].total.replace(/,/g, ''), row[2]);
  assert.equal(cells[1].ratio, row[3]);
  assert.ok(Number(row[1]) > 0 && Number(row[2]) > 0);
  await shot('frontier-iso');
});

test('double-clicking a point opens its detail: percentiles, histograms, timeslices, provenance', async () => {
  const api = (await apiJson('/api/frontier?run=1&run=2')).body;
  const p = api.series[1].points[1];  // mi325x, concurrency 4
  const pos = await plotPos(p.x, p.y);
  await page.mouse.move(pos.x, pos.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  await page.mouse.dblclick(pos.x, pos.y);
  await page.waitForURL(/\/point\?id=\d+/);
  await page.waitForSelector('body[data-ready]');
  assert.equal(new URL(page.url()).searchParams.get('id'), String(p.ids[0]));
  assert.equal(await page.textContent('#point-key'), '512x128|concurrency=4|rep=0');
  const detail = (await apiJson('/api/point?id=' + p.ids[0])).body;
  const p99 = detail.percentiles.ttft.find(s => s.stat === 'p99').value;
  assert.equal(num(await page.textContent('#percentiles td[data-metric=ttft][data-stat=p99]')), Number(p99.toFixed(2)));
  assert.equal(await page.locator('#histograms .plot').count(), 4);
  // The windows stored with the point (the sweep keeps metrics' timeslices): throughput with the
  // steady span, TTFT/TPOT per window, and a table row per window.
  const w = detail.series.timeslices.windows;
  assert.equal(detail.series.timeslices_from, 'stored');
  assert.equal(await page.getAttribute('#timeslices-source', 'data-from'), 'stored');
  assert.ok(await page.locator('#ts-throughput canvas').count() >= 1);
  assert.ok(await page.locator('#ts-latency canvas').count() >= 1);
  assert.equal(await page.locator('#timeslice-table tbody tr').count(), w.start_s.length);
  const tokens = w.output_tokens.reduce((a, b) => a + b, 0);
  assert.equal(tokens, detail.point.metrics.total_output_tokens);  // the windows hold every token
  assert.equal(await page.locator('#timeslice-table tbody tr.steady').count(), w.phase.filter(x => x === 'steady').length);
  // A simulated point has no scraped server samples; the page says so.
  assert.match(await page.textContent('#no-server-metrics'), /not scraped/);
  assert.match(await page.textContent('#reproduce'), /^frontier sweep .*small\.yaml --db reproduce\.db$/);
  assert.match(await page.textContent('#provenance'), /command_line/);
  await shot('point');
});

test('Compare shows `frontier compare`\'s verdict and counts', async () => {
  await open('/compare?baseline=1&candidate=2');
  const cli = spawnSync(bin, ['compare', '--db', db, '--baseline', '1', '--candidate', '2'], { encoding: 'utf8' });
  const counts = cli.stdout.match(/(\d+) regression\(s\), (\d+) improvement\(s\) in (\d+) comparisons/);
  assert.ok(counts, cli.stdout);
  assert.equal(cli.status, Number(counts[1]) > 0 ? 1 : 0);
  const verdict = await page.textContent('#verdict');
  assert.equal(verdict, Number(counts[1]) > 0 ? 'regression' : Number(counts[2]) > 0 ? 'improved' : 'no change beyond noise');
  assert.ok((await page.textContent('main')).includes(`${counts[1]} regression(s), ${counts[2]} improvement(s) in ${counts[3]} comparisons`));
  assert.equal(await page.locator('#deltas tbody tr').count(), Number(counts[3]));
  await shot('compare');
});

test('Over time plots a configuration\'s headline figures by date', async () => {
  await open('/over-time?config=browser/h200-llama8b');
  assert.equal(await page.locator('#over-time tbody tr').count(), 1);
  assert.ok(await page.locator('#over-time-plot canvas').count() >= 1);
  await shot('over-time');
});

test('Live shows points as a running sweep stores them', async () => {
  await open('/live');
  await page.waitForFunction(() => document.body.dataset.livePoints !== undefined);
  const before = Number(await page.getAttribute('body', 'data-live-points'));
  frontier('sweep', path.join(repo, 'web/tests/later.yaml'), '--db', db, '-q');
  await page.waitForFunction(n => Number(document.body.dataset.livePoints) >= n + 6, before, { timeout: 20000 });
  assert.equal(await page.locator('#live-points tbody tr', { hasText: 'later/b200-llama8b' }).count(), 6);
  assert.match(await page.textContent('#progress'), /later\/b200-llama8b#3: 6 \/ 6 points/);
  assert.ok(await page.locator('#live-plot canvas').count() >= 1);
  assert.ok((await page.textContent('#live-plot')).includes('later/b200-llama8b#3'));
  await shot('live');
});

test('an imported result whose name holds <script> renders as text, never runs', async () => {
  const file = path.join(work, 'crafted.json');
  writeFileSync(file, JSON.stringify({ completed: 8, num_prompts: 8, output_throughput: 900, total_token_throughput: 2700,
    max_concurrency: 4, median_tpot_ms: 12.5, backend: 'vllm', model_id: '<script>window.__xss=1;alert(1)</script>' }));
  await open('/runs');
  await page.setInputFiles('input[name=file]', file);
  await page.click('#import');
  await page.waitForFunction(() => document.querySelector('#import-result').textContent.startsWith('imported'));
  await open('/runs?source=imported');
  const name = await page.textContent('#runs tbody tr td.name');
  assert.match(name, /^import\/vllm:<script>window\.__xss=1;alert\(1\)<\/script>#\d+$/);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.locator('#runs script').count(), 0);
  await page.click('#runs tbody tr td.name a');
  await page.waitForSelector('body[data-ready]');
  assert.ok((await page.textContent('#chips')).includes('<script>window.__xss=1;alert(1)</script>'));
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(dialogs, []);
  await shot('crafted-name');
});

test('a bad query parameter is a 400 whose message the page shows', async () => {
  await page.goto(dash.url + '/frontier?x=bogus');
  await page.waitForSelector('body[data-ready=error]');
  assert.match(await page.textContent('#error'), /query parameter 'x' is 'bogus'; expected one of: interactivity/);
  const r = await apiJson('/api/runs?limit=-3');
  assert.equal(r.status, 400);
  assert.match(r.body.error, /'limit'/);
  assert.deepEqual(pageErrors, []);
});

test('a search run shows its answer and its trials in order, each verdict with its reasons', async () => {
  frontier('search', '--model', 'llama-3.1-8b', '--hardware', 'h200', '--gpus', '1', '--precision', 'fp8',
    '--input-len', '128', '--output-len', '32', '--num-prompts', '128', '--slo', 'ttft_p99:50', 'tpot_p99:4.3',
    '--start', '32', '--max-trials', '6', '--db', db, '--run-label', 'web-search');
  const run = (await apiJson('/api/runs?q=web-search')).body.runs[0];
  const api = (await apiJson('/api/run?id=' + run.id)).body;
  assert.ok(api.search && api.trials >= 2, JSON.stringify(api.search));
  await open('/run?id=' + run.id);
  assert.equal(await page.textContent('#search-line'), api.search_line);
  const rows = page.locator('#run-points tbody tr');
  assert.equal(await rows.count(), api.points.length);
  for (let i = 0; i < api.points.length; i++) {
    assert.equal(await rows.nth(i).getAttribute('data-trial'), String(i));  // in the order the search ran them
    assert.ok((await rows.nth(i).textContent()).includes(api.points[i].trial.decision));
  }
  const bad = api.points.findIndex(p => p.verdict && p.verdict.result === 'INVALID');
  assert.ok(bad >= 0, 'the search met an INVALID trial');
  assert.ok(api.points[bad].verdict.reasons.length >= 2, 'an INVALID trial with more than one reason');
  const cell = rows.nth(bad).locator('td.verdict-cell');
  assert.equal(await cell.getAttribute('title'), api.points[bad].verdict.reasons.join('\n'));  // on hover
  await cell.locator('summary').click();  // and listed when opened
  assert.equal(await cell.locator('li').count(), api.points[bad].verdict.reasons.length);
  const good = api.points.find(p => p.verdict && p.verdict.result === 'VALID');
  if (good) assert.match(await page.textContent(`#run-points tr[data-point="${good.id}"] td.verdict-cell`), /^VALID/);
  if (api.search.answer) assert.match(await page.textContent('#search td[data-field=answer]'), new RegExp('\\(trial ' + api.search.answer.trial + '\\)'));
  assert.deepEqual(pageErrors, []);
  await shot('search-run');
});

test('measured energy: the per-joule axis plots it, the points and energy tables label it beside the TDP bound', async (t) => {
  // A bench against `frontier serve` whose GPUs are the fake NVML's: two at a constant 700 W.
  const nvml = path.join(path.dirname(bin), '..', 'power', 'libfake_nvml.so');
  if (!existsSync(nvml)) { t.skip('no ' + nvml + ' (the build makes it)'); return; }
  const srv = spawn(bin, ['serve', '--port', '0', '--profile', 'fixed', '--ttft-ms', '5', '--itl-ms', '2'],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FRONTIER_DATA_DIR: path.join(repo, 'data') } });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      srv.stdout.on('data', d => { out += d; const m = out.match(/listening on (\S+)/); if (m) resolve(m[1]); });
      srv.once('exit', c => reject(new Error('serve exited ' + c + ': ' + out)));
    });
    execFileSync(bin, ['bench', '--base-url', url.startsWith('http') ? url : 'http://' + url, '--model', 'fixed',
      '--num-prompts', '24', '--max-concurrency', '4', '--input-len', '32', '--output-len', '16', '--num-gpus', '2',
      '--power', 'nvml', '--power-interval', '0.01', '--db', db, '--run-label', 'web-energy'],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FRONTIER_NVML_LIB: nvml, FAKE_NVML_WATTS: '700,700', FRONTIER_DATA_DIR: path.join(repo, 'data') } });
  } finally {
    srv.kill('SIGINT');
  }
  const run = (await apiJson('/api/runs?q=web-energy')).body.runs[0];
  const api = (await apiJson('/api/frontier?run=' + run.id + '&y=per_joule')).body;
  const p = api.series[0].points[0];
  assert.equal(p.y_kind, 'measured');
  assert.equal(p.energy.label, 'measured (nvml)');
  // Two GPUs at 700 W each: 1,400 W in all, whatever the window, so tokens per joule is the
  // point's total tokens per second over 1,400 (within the readings' interpolation).
  const total = p.total_tput_per_gpu.mean * 2;
  assert.ok(Math.abs(p.y - total / 1400) / (total / 1400) < 0.05, `y ${p.y} against ${total / 1400}`);
  assert.ok(Math.abs(p.energy.mean_power_w - 1400) < 1, 'mean power ' + p.energy.mean_power_w);
  await open('/frontier?run=' + run.id + '&y=per_joule');
  assert.match(await page.textContent('#energy-note'), /TDP bound/);
  assert.deepEqual(api.notes, []);  // every point measured its energy: no TDP needed
  assert.equal(await page.locator('#energy-table tbody tr').count(), api.energy.length);
  assert.equal(num(await page.textContent('#energy-table td[data-metric=tokens_per_joule]')).toFixed(3), api.energy[0].tokens_per_joule.toFixed(3));
  assert.match(await page.textContent('#points-table td[data-y-kind=measured]'), /measured \(nvml\)/);
  assert.deepEqual(pageErrors, []);
  await shot('energy');
});
