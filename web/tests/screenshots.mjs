// screenshots.mjs DB OUTDIR: one PNG per dashboard page, for docs/dashboard.md
// (scripts/dashboard-screenshots runs it on the quickstart's database).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser, startDashboard } from './harness.mjs';

const [db, out] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const dash = await startDashboard(['--db', db]);
const { context, close } = await launchBrowser();
const page = await context.newPage();
await page.setViewportSize({ width: 1280, height: 860 });
const runs = (await (await fetch(dash.url + '/api/runs?sort=date')).json()).runs.filter(r => r.points > 0);
const sim = runs.filter(r => r.sweep === 'quickstart').map(r => r.id);
const firstPoint = (await (await fetch(dash.url + '/api/frontier?run=' + sim[0])).json()).series[0].points[4].ids[0];
const shots = [
  ['runs', '/runs'],
  ['frontier', '/frontier?' + sim.map(id => 'run=' + id).join('&') + '&at=100'],
  ['point', '/point?id=' + firstPoint],
  ['compare', `/compare?baseline=${sim[0]}&candidate=${sim[1]}`],
  ['live', '/live'],
];
for (const [name, target] of shots) {
  await page.goto(dash.url + target);
  await page.waitForSelector('body[data-ready]', { timeout: 20000 });
  await page.waitForTimeout(300);
  if (name === 'frontier') {
    // Hover the frontier's fourth point so the tooltip shows.
    const pos = await page.evaluate(() => {
      const u = window.__plot, r = u.over.getBoundingClientRect();
      const xs = u.data[0], ys = u.data[1];
      const i = ys.findIndex((y, k) => y !== null && k >= 3);
      return { x: r.left + u.valToPos(xs[i], 'x'), y: r.top + u.valToPos(ys[i], 'y') };
    });
    await page.mouse.move(pos.x, pos.y);
    await page.waitForSelector('#tooltip:not([hidden])');
  }
  if (name === 'point') await page.locator('h2', { hasText: 'Latency percentiles' }).scrollIntoViewIfNeeded();
  if (name === 'point') await page.evaluate(() => window.scrollBy(0, document.querySelector('#percentiles').getBoundingClientRect().top - 60));
  await page.screenshot({ path: path.join(out, name + '.png') });
  console.log('wrote', path.join(out, name + '.png'));
}
await close();
await dash.stop();
