// measure.mjs: page-load time of `frontier dashboard` pages in Chromium (playwright-core
// driving Debian's chromium), from navigation start to the first plot drawn and painted.
//   node bench/dashboard_load/measure.mjs --db DB [--loads 7]
// Each load is a fresh page over a fresh connection: the server sends no-store, so every
// asset and every API answer is fetched again, as on a first visit.
import { launchBrowser, startDashboard } from '../../web/tests/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const db = opt('--db');
const loads = Number(opt('--loads', '7'));
if (!db) { console.error('usage: measure.mjs --db DB [--loads N]'); process.exit(2); }

const dash = await startDashboard(['--db', db]);
const { context, close } = await launchBrowser();
const meta = await (await fetch(dash.url + '/api/meta')).json();
const runs32 = Array.from({ length: 32 }, (_, i) => 'run=' + (i + 1)).join('&');
const pages = [
  ['frontier (latest sweep, default)', '/frontier', 'plot'],
  ['frontier (32 runs overlaid)', '/frontier?' + runs32, 'plot'],
  ['point detail (4 histograms)', '/point?id=' + meta.last_point_id, 'plot'],
  ['over time (20 runs of a system)', '/over-time', 'plot'],
  ['runs (table, 200 of 1,000)', '/runs', 'ready'],
];
const median = v => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log(`database: ${db} (${meta.runs} runs, ${meta.last_point_id} points); ${loads} loads per page after one warm-up`);
console.log('page'.padEnd(36) + 'first plot ms (median / max)   painted ms (median / max)   data rendered ms (median)');
for (const [name, target, kind] of pages) {
  const plot = [], painted = [], ready = [];
  for (let i = 0; i <= loads; ++i) {
    const page = await context.newPage();
    await page.goto(dash.url + target);
    await page.waitForSelector('body[data-ready]', { timeout: 30000 });
    if (kind === 'plot') await page.waitForFunction(() => window.__paintedMs !== undefined, null, { timeout: 30000 });
    const t = await page.evaluate(() => ({ plot: window.__firstPlotMs, painted: window.__paintedMs, ready: window.__readyMs }));
    if (await page.getAttribute('body', 'data-ready') !== '1') throw new Error(name + ': ' + await page.textContent('#error'));
    await page.close();
    if (i === 0) continue;  // warm-up
    if (kind === 'plot') { plot.push(t.plot); painted.push(t.painted); }
    ready.push(t.ready);
  }
  const f = v => v.toFixed(0).padStart(5);
  console.log(name.padEnd(36) +
    (kind === 'plot' ? `${f(median(plot))} / ${f(Math.max(...plot))}`.padEnd(31) + `${f(median(painted))} / ${f(Math.max(...painted))}`.padEnd(28)
                     : '-'.padEnd(31) + '-'.padEnd(28)) + f(median(ready)));
}
await close();
await dash.stop();
