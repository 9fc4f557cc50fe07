import type { FromSchema } from 'json-schema-to-ts';
import { browser, type Browser } from 'wxt/browser';
import { userTab } from '@/core/agent/user-tab';
import { offscreenRef } from '@/core/offscreen/jobs';
import { closedPageReason } from '@/core/tabs/access';
import { definePlugin } from '@/core/plugin';
import { defineTool } from '@/core/registry/registry';
import { untrusted } from '@/core/registry/untrusted';
import { RUNNER_KEY } from './page-runner';
import type { scriptingJobs } from './offscreen';
import { scriptingSchemas } from './schemas';
import type { CodeOutcome } from './user-code';

/** The jobs of ./offscreen.ts, by name: their code runs in Chrome's offscreen document or Firefox's background page (core/offscreen/host.ts). */
const offscreen = offscreenRef<typeof scriptingJobs>('scripting');

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
  const reason = closedPageReason(url, 'script');
  if (reason) throw new Error(`execute_script cannot run in tab ${tabId} (${url}): ${reason}. Use a tab with an ordinary web page.`);
  let frame: Browser.scripting.InjectionResult<unknown> | undefined;
  try {
    await browser.scripting.executeScript({ target: { tabId }, world: 'MAIN', files: [RUNNER_FILE] });
    [frame] = await browser.scripting.executeScript({
      target: { tabId },
      world: 'MAIN',
      func: (key: string, source: string) => {
        const run = (window as unknown as Record<symbol, ((code: string) => Promise<unknown>) | undefined>)[Symbol.for(key)];
        return run ? run(source) : { ok: false, kind: 'missing', error: 'The page changed while the script was being set up.' };
      },
      args: [RUNNER_KEY, code],
    });
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    // The browser's words, usually; but a page can make the injected call reject with its own
    // (its code runs in the page's world, a promise the page rejects), so they travel enveloped.
    const said = untrusted(`error running a script in tab ${tabId} (${url})`, message);
    if (/cannot (be scripted|access)|missing host permission|permission|not allowed|extensions gallery|privileged/i.test(message)) {
      throw new Error(`execute_script cannot run in tab ${tabId} (${url}): the browser does not let extensions script this page. Use a tab with an ordinary web page. What was said: ${said}`);
    }
    if (/no tab with id|invalid tab id|tab.*(closed|not found)/i.test(message)) {
      throw new Error(`Tab ${tabId} does not exist (it may have been closed). List the open tabs to find the right one.`);
    }
    throw new Error(`The script could not run in tab ${tabId} (${url}). What was said: ${said}`);
  }
  const outcome = frame?.result as CodeOutcome | undefined;
  if (!outcome || typeof outcome !== 'object') {
    throw new Error(`The page in tab ${tabId} gave no result; it may have navigated away or been closed. Try again.`);
  }
  return outcome;
}

/**
 * Turns a run's outcome into the tool's result, or an error the model can act on.
 *
 * In a page (`target: 'page'`) everything the run reports is the page's to write: the code runs in
 * the page's own world, where the page can return any value, throw any message, log anything, or
 * plant its own runner under our key and answer whatever it likes. So the value, the logs and the
 * error's words reach the model inside the untrusted envelope; our own words stay outside. In the
 * sandbox the outcome is a function of the model's own code alone (no page, network or clock
 * reaches it), so it comes back as it is.
 */
export function toScriptResult(outcome: CodeOutcome, where: Omit<ScriptResult, 'result'>): ScriptResult {
  const page = where.target === 'page';
  const said = (what: string, text: unknown) => (page ? untrusted(`${what} of the script run in tab ${where.tab_id ?? '?'} (${where.url ?? ''}), as the page gave it`, text) : text);
  const logs = Array.isArray(outcome.logs) ? outcome.logs.map(String) : [];
  if (!outcome.ok) {
    const error = String(outcome.error ?? '');
    const before = logs.length ? `\nConsole output before the error:\n${said('console output', logs.join('\n'))}` : '';
    const reported = page ? `. What the page reported: ${said('error', error)}` : '';
    switch (outcome.kind) {
      case 'csp':
        throw new Error(
          `This page's Content Security Policy forbids evaluating code (it has no 'unsafe-eval'), so execute_script cannot run code in it${page ? '' : ` (${error})`}. Read the page's content instead, use the page's own tools, or compute in the sandbox${reported}`,
        );
      case 'syntax':
        throw new Error(page ? `The code does not parse. Give one expression, or statements with return${reported}${before}` : `The code does not parse: ${error}. Give one expression, or statements with return.${before}`);
      case 'thrown':
        throw new Error(page ? `The code threw an error in the page${reported}${before}` : `The code threw ${error}${before}`);
      default:
        throw new Error(page ? `The script did not finish in the page${reported}${before}` : `${error}${before}`);
    }
  }
  // In the envelope the value is JSON text, a string quoted like any ("5" and 5 stay apart).
  const result: ScriptResult = { ...where, result: outcome.value === undefined ? null : page ? said('value', asJson(outcome.value)) : outcome.value };
  if (outcome.value === undefined) result.note = 'The code gave no value (undefined): end it with an expression, or return one.';
  if (logs.length) result.logs = page ? [said('console output', logs.join('\n')) as string] : logs;
  return result;
}

/** A value as JSON text; what JSON cannot hold (a page's forged answer: a BigInt, a cycle) as a string. */
function asJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return JSON.stringify(String(value));
  }
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
        'Run JavaScript and get its value as JSON, or the error thrown; what a page returns or logs is untrusted data.',
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
  setup: (ctx) => ({ service: { run: (code) => ctx.offscreen(offscreen, 'runSandbox', { code }) } }),
});
