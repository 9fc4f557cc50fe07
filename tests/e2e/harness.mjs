// Loads the built extension into Debian's Chromium (Playwright) or Firefox ESR (puppeteer-core
// over WebDriver BiDi) and drives its pages the way a person would: by the accessible names of
// inputs and buttons, typing and clicking for real. Both browsers get the same small API, so one
// scenario runs in both.

import { createHash, randomUUID } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const GECKO_ID = 'sidequest@sidequest.dev';

export const BROWSERS = /** @type {const} */ (['chromium', 'firefox']);

/**
 * Host names both browsers resolve to 127.0.0.1 (Chromium's `--host-resolver-rules`, Firefox's
 * `network.dns.localDomains`), so a test can stand up "mail.example" and "evil.example" as two
 * sites with public-looking names on the fixture servers. `.example` is reserved (RFC 2606): no
 * real site has these names.
 */
export const TEST_HOSTS = /** @type {const} */ ([
  'mail.example',
  'evil.example',
  'bank.example',
  'news.example',
  'search.example',
  'tools.example',
  'other.example',
  'cdn.example',
]);

/** Which browsers to test: all, or those named in E2E_BROWSERS (comma-separated). */
export function selectedBrowsers() {
  const only = process.env.E2E_BROWSERS?.split(',').map((s) => s.trim()).filter(Boolean);
  return only?.length ? BROWSERS.filter((b) => only.includes(b)) : [...BROWSERS];
}

/**
 * The build to load. SIDEQUEST_BUILD_MODE=bench picks the benchmark build (`npm run build:bench`,
 * which answers the benchmark-only messages that production builds leave out).
 */
export function extensionDir(browserName) {
  const mode = process.env.SIDEQUEST_BUILD_MODE;
  const suffix = mode && mode !== 'production' ? `-${mode}` : '';
  const dir = path.join(ROOT, '.output', (browserName === 'firefox' ? 'firefox-mv2' : 'chrome-mv3') + suffix);
  if (!existsSync(path.join(dir, 'manifest.json'))) {
    throw new Error(`No build at ${dir}: run \`npm run ${mode === 'bench' ? 'build:bench' : 'build:all'}\` first.`);
  }
  return dir;
}

/**
 * Starts a browser with the extension and a fresh profile.
 * `locale`: the browser's own interface language (`he`): Chromium's `--lang` (and `LANGUAGE`, which
 * Chromium on Linux reads), Firefox's `intl.locale.requested` with its language pack
 * (`scripts/setup.sh` installs Debian's `chromium-l10n` and `firefox-esr-l10n-he`).
 * @param {'chromium' | 'firefox'} name
 * `colorScheme: 'dark'`: pages see `prefers-color-scheme: dark` (Playwright's emulation; Firefox's
 * content override pref, as puppeteer's media emulation needs CDP).
 * `preciseClock`: Firefox's `performance.now()` unrounded (`privacy.reduceTimerPrecision` off; it rounds to
 * whole milliseconds otherwise), for the benches; Chromium's is fine as it is.
 * @param {{ locale?: string, colorScheme?: 'light' | 'dark', preciseClock?: boolean }} [options]
 */
export async function launch(name, { locale, colorScheme, preciseClock } = {}) {
  const profile = await mkdtemp(path.join(os.tmpdir(), `sidequest-${name}-`));
  const harness = name === 'firefox' ? await launchFirefox(profile, locale, colorScheme, preciseClock) : await launchChromium(profile, locale, colorScheme);
  const close = harness.close;
  harness.close = async () => {
    await close().catch(() => undefined);
    await rm(profile, { recursive: true, force: true }).catch(() => undefined);
  };
  return harness;
}

async function launchChromium(profile, locale, colorScheme) {
  const { chromium } = await import('playwright-core');
  const dir = extensionDir('chromium');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 420, height: 760 },
    ...(colorScheme ? { colorScheme } : {}),
    ...(locale ? { locale, env: { ...process.env, LANGUAGE: locale, LANG: `${locale.replace('-', '_')}.UTF-8` } } : {}),
    args: [
      ...(locale ? [`--lang=${locale}`] : []),
      '--headless=new',
      '--no-sandbox',
      `--disable-extensions-except=${dir}`,
      `--load-extension=${dir}`,
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      `--host-resolver-rules=${TEST_HOSTS.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`,
    ],
  });
  const sw = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
  const extensionId = new URL(sw.url()).host;
  const origin = `chrome-extension://${extensionId}`;

  return {
    name: 'chromium',
    origin,
    context,
    extensionUrl: (p) => `${origin}/${p.replace(/^\//, '')}`,
    async newPage(url) {
      const page = await context.newPage();
      if (url) await page.goto(url);
      return wrapPlaywright(page);
    },
    async openExtensionPage(p, { width = 420, height = 760 } = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${origin}/${p.replace(/^\//, '')}`);
      return wrapPlaywright(page);
    },
    /** Stops the extension's service worker, as Chrome does to an idle one. */
    async stopBackground() {
      const page = context.pages()[0] ?? (await context.newPage());
      const cdp = await context.newCDPSession(page);
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopAllWorkers');
      await cdp.detach();
    },
    /**
     * Runs `action` (a click that saves a file) and returns the file the browser downloaded:
     * Playwright hands over each download of the context, from extension pages too.
     */
    async download(page, action) {
      const [download] = await Promise.all([page.raw.waitForEvent('download', { timeout: 15_000 }), action()]);
      const file = await download.path();
      return { name: download.suggestedFilename(), text: await readFile(file, 'utf8') };
    },
    close: () => context.close(),
  };
}

/**
 * Firefox's own first start of an empty profile (its databases, caches, first-run tasks) takes
 * seconds that no test needs: each launch copies a profile that Firefox has started once and quit,
 * with the preferences every launch has, no extension, never a page visited (made once per Firefox
 * build and preferences, in the system's temporary folder; two files making it at once each make
 * one, and the first to finish is kept). The copy is the fresh profile the test gets; a launch's
 * options (language, colour scheme) are preferences it starts with, as before.
 */
async function firefoxProfile(puppeteer, executablePath, profile, prefs) {
  const binary = realpathSync(executablePath);
  const { mtimeMs, size } = statSync(binary);
  const key = createHash('sha256')
    .update(JSON.stringify([binary, mtimeMs, size, prefs]))
    .digest('hex')
    .slice(0, 16);
  const template = path.join(os.tmpdir(), `sidequest-firefox-profile-${key}`);
  if (!existsSync(path.join(template, 'prefs.js'))) {
    const made = await mkdtemp(`${template}-making-`);
    const browser = await puppeteer.launch({ browser: 'firefox', executablePath, headless: true, userDataDir: made, args: ['--remote-allow-system-access'], extraPrefsFirefox: prefs });
    await browser.close();
    await rename(made, template).catch(() => rm(made, { recursive: true, force: true }));
  }
  // Not the lock of the Firefox that made it (a later process could have its number).
  await cp(template, profile, { recursive: true, filter: (src) => !/^(lock|\.parentlock|user\.js)$/.test(path.basename(src)) });
}

async function launchFirefox(profile, locale, colorScheme, preciseClock) {
  const puppeteer = (await import('puppeteer-core')).default;
  const dir = extensionDir('firefox');
  const uuid = randomUUID();
  const executablePath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
  // The preferences of every launch (the options' and the profile's own below).
  const prefs = {
    // The test sites' names (TEST_HOSTS) resolve to this machine.
    'network.dns.localDomains': TEST_HOSTS.join(','),
    // The closed network makes Firefox's own services fail; keep them quiet and fast.
    'browser.shell.checkDefaultBrowser': false,
    'datareporting.policy.dataSubmissionEnabled': false,
    'toolkit.telemetry.reportingpolicy.firstRun': false,
    'app.update.enabled': false,
    'browser.download.always_ask_before_handling_new_types': false,
    'browser.helperApps.neverAsk.saveToDisk': 'application/json,text/markdown,text/plain',
    'browser.download.manager.showWhenStarting': false,
    'browser.download.alwaysOpenPanel': false,
  };
  if (process.env.SIDEQUEST_FIREFOX_TEMPLATE !== '0') {
    // Without a template (it could not be made or read), an empty profile, as before.
    await firefoxProfile(puppeteer, executablePath, profile, prefs).catch(async (error) => {
      console.warn(`Firefox starts from an empty profile: ${error.message}`);
      await rm(profile, { recursive: true, force: true });
      await mkdir(profile, { recursive: true });
    });
  }
  const options = {
    // Benches: performance.now() unrounded (Firefox rounds it to whole milliseconds otherwise).
    ...(preciseClock ? { 'privacy.reduceTimerPrecision': false } : {}),
    ...(colorScheme ? { 'layout.css.prefers-color-scheme.content-override': colorScheme === 'dark' ? 0 : 1 } : {}),
    ...(locale
      ? {
          'intl.locale.requested': locale,
          'intl.accept_languages': locale,
          // Debian's language packs are system add-ons: let a fresh profile use them.
          'extensions.autoDisableScopes': 0,
          'extensions.langpacks.signatures.required': false,
        }
      : {}),
  };
  // Downloads go straight to this folder, without asking (the prefs below).
  const downloads = path.join(profile, 'downloads');
  await mkdir(downloads, { recursive: true });
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    userDataDir: profile,
    args: ['--remote-allow-system-access'],
    defaultViewport: { width: 420, height: 760 },
    extraPrefsFirefox: {
      ...prefs,
      ...options,
      'extensions.webextensions.uuids': JSON.stringify({ [GECKO_ID]: uuid }),
      'browser.download.folderList': 2,
      'browser.download.dir': downloads,
      'browser.download.useDownloadDir': true,
    },
  });
  await browser.installExtension(dir);
  const origin = `moz-extension://${uuid}`;
  // Right after the add-on reloads (its tabs close), creating a tab can fail once: try again.
  const newPage = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await browser.newPage();
      } catch (error) {
        if (attempt >= 5) throw error;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  const openExt = async (p, { width = 420, height = 760 } = {}) => {
    const page = await newPage();
    await page.setViewport({ width, height });
    // Firefox over BiDi never resolves a goto to a moz-extension:// page: wait for content instead.
    page.goto(`${origin}/${p.replace(/^\//, '')}`).catch(() => undefined);
    await waitForApp(page);
    return wrapPuppeteer(page);
  };

  return {
    name: 'firefox',
    origin,
    browser,
    extensionUrl: (p) => `${origin}/${p.replace(/^\//, '')}`,
    async newPage(url) {
      const page = await newPage();
      if (url) await page.goto(url);
      return wrapPuppeteer(page);
    },
    openExtensionPage: openExt,
    /**
     * Runs `action` (a click that saves a file) and returns the file that appears in the profile's
     * download folder (Firefox writes `<name>.part` first, then renames it).
     */
    async download(_page, action) {
      const before = new Set(await readdir(downloads));
      await action();
      const deadline = Date.now() + 15_000;
      for (;;) {
        const names = (await readdir(downloads)).filter((n) => !before.has(n) && !n.endsWith('.part'));
        const parts = (await readdir(downloads)).filter((n) => n.endsWith('.part'));
        if (names.length && !parts.length) {
          const name = names[0];
          const size = (await stat(path.join(downloads, name))).size;
          await new Promise((r) => setTimeout(r, 150));
          if ((await stat(path.join(downloads, name))).size === size) {
            // Read, then removed: a later download of the same name keeps its name (Firefox adds "(1)").
            const text = await readFile(path.join(downloads, name), 'utf8');
            await rm(path.join(downloads, name), { force: true });
            return { name, text };
          }
        }
        if (Date.now() > deadline) throw new Error(`No download appeared in ${downloads}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    /** Restarts the extension's background page (Firefox keeps an MV2 background alive otherwise). */
    async stopBackground(page) {
      await page.raw.evaluate(() => globalThis.browser.runtime.reload()).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 1000));
    },
    /**
     * Ends Firefox and its content processes at once (its process group): the profile is removed
     * next, so nothing is lost by skipping its orderly shutdown, which takes a second or two.
     */
    async close() {
      const child = browser.process();
      if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return browser.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
      await browser.disconnect().catch(() => undefined);
    },
  };
}

// ——— Page drivers ———

/** Finds an element by role and accessible name in the page and marks it; returns its selector. */
function markerScript() {
  return (role, name, exact) => {
    const norm = (s) => (s ?? '').replace(/\s+/g, ' ').trim();
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const accName = (el) => {
      const label = el.getAttribute('aria-label');
      if (label) return norm(label);
      const by = el.getAttribute('aria-labelledby');
      if (by) return norm(by.split(/\s+/).map((id) => document.getElementById(id)?.textContent).join(' '));
      if (el.labels?.length) return norm([...el.labels].map((l) => l.textContent).join(' '));
      if (role === 'textbox' || role === 'combobox') return norm(el.getAttribute('placeholder') || el.title);
      return norm(el.textContent) || norm(el.title);
    };
    const selectors = {
      button: 'button, [role="button"], input[type="submit"], input[type="button"]',
      textbox: 'input:not([type]), input[type="text"], input[type="url"], input[type="password"], input[type="search"], textarea, [role="textbox"]',
      combobox: 'select, [role="combobox"]',
      switch: '[role="switch"]',
      checkbox: 'input[type="checkbox"], [role="checkbox"]',
      radio: 'input[type="radio"], [role="radio"]',
      link: 'a[href], [role="link"]',
    };
    const candidates = [...document.querySelectorAll(selectors[role] ?? `[role="${role}"]`)].filter(visible);
    const match = candidates.find((el) => (exact ? accName(el) === name : accName(el).includes(name)));
    if (!match) return null;
    const token = `e2e-${Math.random().toString(36).slice(2)}`;
    match.setAttribute('data-e2e', token);
    return `[data-e2e="${token}"]`;
  };
}

const MARK = markerScript().toString();

function driver(raw, impl) {
  const d = {
    raw,
    async find(role, name, { exact = true, timeout = 10_000 } = {}) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const selector = await raw.evaluate(`(${MARK})(${JSON.stringify(role)}, ${JSON.stringify(name)}, ${exact})`);
        if (selector) return selector;
        if (Date.now() > deadline) throw new Error(`No visible ${role} named "${name}" on ${await d.url()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    /**
     * Clicks the element; if the UI re-rendered it between finding and clicking, finds it again.
     * A control marked `aria-disabled` (an approval card's buttons before it is armed) is waited
     * for, not clicked: Playwright does so on its own, and the Firefox driver does it here too.
     */
    async click(role, name, options) {
      await retry(async () => {
        const selector = await d.find(role, name, options);
        await impl.waitForFunction((s) => !document.querySelector(s)?.closest('[aria-disabled="true"]'), selector, options?.timeout ?? 15_000);
        await impl.click(selector);
      });
    },
    async fill(label, text, options) {
      await retry(async () => impl.fill(await d.find('textbox', label, options), text));
    },
    async select(label, value) {
      await impl.select(await d.find('combobox', label), value);
    },
    press: (key) => impl.press(key),
    /** Puts a file in a file input, as picking it in the file dialog does (CSS selector). */
    setInputFile: (selector, file) => impl.setInputFile(selector, file),
    /** Waits until the page's visible text contains `text` (or matches a RegExp). */
    async waitForText(text, { timeout = 15_000, within = 'body' } = {}) {
      const source = text instanceof RegExp ? { re: text.source, flags: text.flags } : { s: text };
      try {
        await impl.waitForFunction(
          (arg) => {
            const root = document.querySelector(arg.within);
            const t = root?.innerText ?? '';
            return arg.s !== undefined ? t.includes(arg.s) : new RegExp(arg.re, arg.flags).test(t);
          },
          { ...source, within },
          timeout,
        );
      } catch (error) {
        const body = await d.text(within).catch(() => '');
        throw new Error(`Timed out waiting for ${text} in ${within}. The page shows:\n${body.slice(0, 2000)}`, { cause: error });
      }
    },
    /** Waits until a JS predicate over the page is true. */
    waitFor: (fn, arg, { timeout = 15_000 } = {}) => impl.waitForFunction(fn, arg, timeout),
    text: (selector = 'body') => raw.evaluate((s) => document.querySelector(s)?.innerText ?? '', selector),
    texts: (selector) => raw.evaluate((s) => [...document.querySelectorAll(s)].map((e) => e.innerText), selector),
    evaluate: (fn, arg) => raw.evaluate(fn, arg),
    url: () => raw.url(),
    async screenshot(file) {
      await mkdir(path.dirname(file), { recursive: true });
      await raw.screenshot({ path: file });
      return file;
    },
    reload: () => impl.reload(),
    close: () => raw.close(),
  };
  return d;
}

async function retry(action, attempts = 3) {
  for (let i = 1; ; i++) {
    try {
      return await action();
    } catch (error) {
      if (i >= attempts || !/detached|not attached|not found|No element|no such/i.test(String(error?.message))) throw error;
    }
  }
}

function wrapPlaywright(page) {
  return driver(page, {
    click: (sel) => page.click(sel, { timeout: 15_000 }),
    fill: (sel, text) => page.fill(sel, text, { timeout: 15_000 }),
    select: (sel, value) => page.selectOption(sel, value),
    press: (key) => page.keyboard.press(key),
    setInputFile: (sel, file) => page.setInputFiles(sel, file),
    // Playwright's order is (fn, arg, options).
    waitForFunction: (fn, arg, timeout) => page.waitForFunction(fn, arg, { timeout, polling: 100 }),
    reload: () => page.reload(),
  });
}

/**
 * Waits until the extension page has rendered its app. The wait is started while the page still
 * navigates, and a navigation ends a running wait ("Waiting failed"): start it again then.
 */
async function waitForApp(page, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      await page.waitForFunction(() => document.readyState === 'complete' && document.querySelector('#app')?.childElementCount > 0, {
        timeout: Math.max(1000, deadline - Date.now()),
        polling: 100,
      });
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function wrapPuppeteer(page) {
  return driver(page, {
    click: (sel) => page.click(sel),
    fill: (sel, text) => page.locator(sel).fill(text),
    select: (sel, value) => page.select(sel, value),
    press: (key) => page.keyboard.press(key),
    async setInputFile(sel, file) {
      const input = await page.waitForSelector(sel);
      await input.uploadFile(file);
    },
    // Puppeteer's order is (fn, options, ...args).
    waitForFunction: (fn, arg, timeout) => page.waitForFunction(fn, { timeout, polling: 100 }, arg),
    async reload() {
      // As with goto, a reload of a moz-extension:// page does not resolve over BiDi.
      page.reload().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      await waitForApp(page);
    },
  });
}

/** Where a test writes its screenshots. */
export function screenshotPath(browserName, name) {
  return path.join(ARTIFACTS, 'screenshots', `${browserName}-${name}.png`);
}
