// harness.mjs: what the browser tests and the page-load bench share: Debian's Chromium
// driven by playwright-core (no browser download), and `frontier dashboard` started on a
// free port. FRONTIER_BIN names the binary (default build/src/cli/frontier).
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = process.env.FRONTIER_BIN || path.join(repo, 'build/src/cli/frontier');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

// Flags that keep Chromium off the network (the machine has none) and out of the sandbox
// it cannot have as root.
const kArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser() {
  const profile = mkdtempSync(path.join(tmpdir(), 'frontier-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, args: kArgs, headless: true, viewport: { width: 1280, height: 900 },
  });
  const close = async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); };
  return { context, close };
}

// Runs the frontier binary to completion; returns its stdout.
export function frontier(...args) {
  return execFileSync(bin, args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FRONTIER_DATA_DIR: path.join(repo, 'data') } });
}

// Starts `frontier dashboard --port 0 ...` and resolves with its URL once it listens.
export function startDashboard(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['dashboard', '--port', '0', ...args], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FRONTIER_DATA_DIR: path.join(repo, 'data') } });
    let out = '', err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('dashboard did not start: ' + out + err)); }, 30000);
    child.stdout.on('data', d => {
      out += d;
      const m = out.match(/open (http:\/\/\S+?:\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child, stop: () => new Promise(r => { child.once('exit', r); child.kill('SIGINT'); }) });
      }
    });
    child.stderr.on('data', d => { err += d; });
    child.once('exit', code => { clearTimeout(timer); reject(new Error(`dashboard exited ${code}: ${err}`)); });
  });
}
