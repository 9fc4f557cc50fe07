import type { FromSchema } from 'json-schema-to-ts';
import { browser, type Browser } from 'wxt/browser';
import { userTab } from '@/core/agent/user-tab';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { RUNNER_KEY } from './page-runner';
import { scriptingJobs } from './offscreen';
import { scriptingSchemas } from './schemas';
import type { CodeOutcome } from './user-code';

/** Runs code in the QuickJS sandbox (`Sandbox`, in a worker in the extension). */
export interface SandboxService {
  run(code: string): Promise<CodeOutcome>;
}

/** The runner script's path in the build (entrypoints/scripting-page-runner.ts). */
const RUNNER_FILE = '/scripting-page-runner.js';

export interface ScriptResult {
  target: 'page' | 'sandbox';
  tab_id?: number;
  url?: string;
  /** The code's value, JSON-safe; null when it gave none (see `note`). */
  result: unknown;
  note?: string;
  /** Sandbox: what the code wrote to the console. */
  logs?: string[];
}

/** Pages no extension may script: the browser's own, the add-on stores, other extensions, viewers. */
export function unscriptableReason(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const scheme = parsed.protocol;
  if (['chrome:', 'about:', 'edge:', 'brave:', 'opera:', 'vivaldi:', 'resource:', 'view-source:', 'devtools:', 'chrome-search:', 'chrome-untrusted:'].includes(scheme)) {
    return `it is a browser page (${scheme}), which extensions may not script`;
  }
  if (scheme === 'chrome-extension:' || scheme === 'moz-extension:') return 'it is an extension\'s page, which other code may not script';
  if (scheme === 'file:') return 'it is a local file (file:), which the extension has no access to';
  if (scheme === 'data:' || scheme === 'blob:' || scheme === 'javascript:') return `it is a ${scheme} document`;
  const host = parsed.hostname;
  if (host === 'chromewebstore.google.com' || (host === 'chrome.google.com' && parsed.pathname.startsWith('/webstore'))) {
    return 'the Chrome Web Store may not be scripted by extensions';
  }
  if (host === 'addons.mozilla.org' || host === 'accounts-static.cdn.mozilla.net') return 'Mozilla\'s add-ons site may not be scripted by extensions';
  return null;
}

/** The tab `execute_script` runs in by default: the one the user is looking at. */
export async function defaultTab(): Promise<Browser.tabs.Tab> {
  const tab = await userTab();
  if (tab) return tab;
  throw new Error('There is no tab to run the script in. Open a page first, or give tab_id (list the open tabs to find it).');
}

/** Runs code in a tab's main world through the injected runner; throws errors worded for the model. */
export async function runInTab(tab: Browser.tabs.Tab, code: string): Promise<CodeOutcome> {
  const tabId = tab.id!;
  const url = tab.url ?? '';
  const reason = unscriptableReason(url);
  if (reason) throw new Error(`execute_script cannot run in tab ${tabId} (${url}): ${reason}. Use a tab with an ordinary web page.`);
  try {
    await browser.scripting.executeScript({ target: { tabId }, world: 'MAIN', files: [RUNNER_FILE] });
    const [frame] = await browser.scripting.executeScript({
      target: { tabId },
      world: 'MAIN',
      func: (key: string, source: string) => {
        const run = (window as unknown as Record<symbol, ((code: string) => Promise<unknown>) | undefined>)[Symbol.for(key)];
        return run ? run(source) : { ok: false, kind: 'missing', error: 'The page changed while the script was being set up.' };
      },
      args: [RUNNER_KEY, code],
    });
    const outcome = frame?.result as CodeOutcome | undefined;
    if (!outcome || typeof outcome !== 'object') {
      throw new Error(`The page in tab ${tabId} gave no result; it may have navigated away or been closed. Try again.`);
    }
    return outcome;
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    if (/cannot (be scripted|access)|missing host permission|permission|not allowed|extensions gallery|privileged/i.test(message)) {
      throw new Error(`execute_script cannot run in tab ${tabId} (${url}): the browser does not let extensions script this page (${message}). Use a tab with an ordinary web page.`);
    }
    if (/no tab with id|invalid tab id|tab.*(closed|not found)/i.test(message)) {
      throw new Error(`Tab ${tabId} does not exist (it may have been closed). List the open tabs to find the right one.`);
    }
    throw error;
  }
}

/** Turns a run's outcome into the tool's result, or an error the model can act on. */
export function toScriptResult(outcome: CodeOutcome, where: Omit<ScriptResult, 'result'>): ScriptResult {
  if (!outcome.ok) {
    const logs = outcome.logs?.length ? `\nConsole output before the error:\n${outcome.logs.join('\n')}` : '';
    switch (outcome.kind) {
      case 'csp':
        throw new Error(
          `This page's Content Security Policy forbids evaluating code (it has no 'unsafe-eval'), so execute_script cannot run code in it (${outcome.error}). Read the page's content instead, use the page's own tools, or compute in the sandbox.`,
        );
      case 'syntax':
        throw new Error(`The code does not parse: ${outcome.error}. Give one expression, or statements with return.${logs}`);
      case 'thrown':
        throw new Error(`The code threw ${outcome.error}${logs}`);
      default:
        throw new Error(`${outcome.error}${logs}`);
    }
  }
  const result: ScriptResult = { ...where, result: outcome.value === undefined ? null : outcome.value };
  if (outcome.value === undefined) result.note = 'The code gave no value (undefined): end it with an expression, or return one.';
  if (outcome.logs?.length) result.logs = outcome.logs;
  return result;
}

async function getTab(tabId: number): Promise<Browser.tabs.Tab> {
  try {
    return await browser.tabs.get(tabId);
  } catch {
    throw new Error(`Tab ${tabId} does not exist (it may have been closed). List the open tabs to find the right one.`);
  }
}

/** The built-in `scripting` plugin: `execute_script` in a page's main world or in the sandbox. */
export const scriptingPlugin = definePlugin<SandboxService>({
  id: 'scripting',
  name: 'Scripts',
  description: 'Runs JavaScript in a tab\'s page (its DOM, variables and functions) or in a sandbox for pure computation.',
  tools: [
    defineTool<FromSchema<typeof scriptingSchemas.execute_script>, ScriptResult, SandboxService>({
      name: 'execute_script',
      description:
        'Run JavaScript. target "page": in the tab\'s main world, sharing window with the page (read or change its DOM, read its variables, call its functions); default tab: the active one. target "sandbox": pure computation with no DOM, page, network or timers, stopped after 5 s. code is one expression (its value is returned) or an async function body (use return). The value comes back as JSON (DOM nodes described, functions and class instances named); a thrown error comes back with its message.',
      inputSchema: scriptingSchemas.execute_script,
      // In a page, code can do anything the page's own scripts can, with the user's session there.
      annotations: {
        readOnly: false,
        destructive: true,
        openWorld: true,
        pages: true,
        target: (input: { target?: string; tab_id?: number }, context) =>
          // In a page, the code can fetch() any address: where data goes is up to the code.
          input.target === 'sandbox' ? undefined : { tabId: input.tab_id ?? context.tabId, sendsAnywhere: true },
        // In the sandbox, code reaches nothing (no page, network, file or extension API) and its
        // result is computed from the code alone: nothing private is read.
        forCall: (input: { target?: string }) =>
          input.target === 'sandbox' ? { readOnly: true, destructive: false, openWorld: false, pages: false, privateData: false } : undefined,
      },
      async execute({ code, target, tab_id }, context) {
        if (target === 'sandbox') return toScriptResult(await context.service.run(code), { target });
        const tabId = tab_id ?? context.tabId;
        const tab = tabId !== undefined ? await getTab(tabId) : await defaultTab();
        return toScriptResult(await runInTab(tab, code), { target, tab_id: tab.id, url: tab.url });
      },
    }),
  ],
  // The sandbox runs in a worker (offscreen.ts); tests hand the tool a `Sandbox` directly.
  setup: (ctx) => ({ service: { run: (code) => ctx.offscreen(scriptingJobs, 'runSandbox', { code }) } }),
});
