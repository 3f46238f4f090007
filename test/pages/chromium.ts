/**
 * One headless Chromium (Debian's) per test file, its pages checked for script errors and CSP
 * violations, and screenshots kept where a person can look at them (test-output/screenshots).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { RunningServer, Sandbox } from '../../src/index.js';
import { memorySandbox } from '../helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots land here; set PAGES_SCREENSHOTS= (empty) to skip them. */
export const SHOTS = process.env.PAGES_SCREENSHOTS ?? join(process.cwd(), 'test-output', 'screenshots');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 812 };

export interface Chromium {
  readonly context: BrowserContext;
  /** Script errors, CSP violations and console errors of every page opened, for afterEach to expect empty. */
  readonly problems: string[];
  newPage(viewport: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'payreq-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems: string[] = [];
  return {
    context,
    problems,
    async newPage(viewport) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
      page.on('console', (msg) => {
        // Refused actions (402), a missing payment (404), a wrong key or signature (401) and bad input (400) are answered on purpose; the browser logs those loads.
        if (msg.type() === 'error' && !/status of 40[0124]/.test(msg.text())) problems.push(`console: ${msg.text()}`);
      });
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A screenshot of the viewport (1280x800 or 375x812), scrolled to `at` (a selector) when given, named for what it shows. */
export async function shot(page: Page, name: string, at?: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  if (at) await page.locator(at).first().evaluate((node) => (node as unknown as { scrollIntoView(o: object): void }).scrollIntoView({ block: 'start' }));
  const { width } = page.viewportSize() ?? DESKTOP;
  await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`) });
}

/** Nothing on the page is wider than the viewport: no sideways scrolling. */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return d.documentElement.scrollWidth > d.documentElement.clientWidth;
  });
}

/** Opens the dashboard and enters `key`; resolves once the app shows. */
export async function openDashboard(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/sandbox`);
  await page.locator('#key-input').fill(key);
  await page.locator('#key-form button[type=submit]').click();
  await page.locator('#app').waitFor();
}

/** A test file's sandbox (memory store), served on loopback, and one Chromium; every test must leave no console problem. */
export interface ServedDashboard {
  readonly sandbox: Sandbox;
  readonly server: RunningServer;
  readonly chromium: Chromium;
}

/** Registers the file's hooks: up before its own beforeAll hooks run, down after its tests. */
export function servedDashboard(): ServedDashboard {
  const served = {} as { sandbox: Sandbox; server: RunningServer; chromium: Chromium };
  beforeAll(async () => {
    served.sandbox = await memorySandbox();
    served.server = await served.sandbox.listen(0, '127.0.0.1');
    served.chromium = await launchChromium();
  });
  afterAll(async () => {
    await served.chromium?.close();
    await served.server?.close(100);
    await served.sandbox?.close();
  });
  afterEach(() => {
    expect(served.chromium.problems.splice(0)).toEqual([]);
  });
  return served;
}
