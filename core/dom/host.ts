import { browser, type Browser } from 'wxt/browser';
import {
  OFFSCREEN_TARGET,
  runDomOpHere,
  type DomOpInput,
  type DomOpName,
  type DomOpOutput,
  type DomOpReply,
  type DomOpRequest,
} from './ops';

/**
 * Runs a DOM operation from the background. Firefox's background is a page with a DOM: the
 * operation runs in place. Chrome's MV3 background is a service worker without `DOMParser`: the
 * operation runs in the extension's offscreen document (`entrypoints/offscreen`), created on
 * first use with the `DOM_PARSER` reason and kept for the next calls. One offscreen document per
 * extension is all Chrome allows, so every DOM job goes through this one.
 */
export async function runDomOp<K extends DomOpName>(op: K, input: DomOpInput<K>): Promise<DomOpOutput<K>> {
  const reply: DomOpReply<K> = typeof DOMParser === 'function' ? runDomOpHere(op, input) : await runInOffscreen(op, input);
  if (!reply.ok) throw new Error(reply.error);
  return reply.value;
}

const OFFSCREEN_PATH = '/offscreen.html';
let creating: Promise<void> | undefined;

/**
 * Creates Chrome's offscreen document if it is not there yet. Chrome allows one per extension, so
 * it serves every job the service worker cannot do: DOM parsing (here) and blob URLs (workspace).
 */
export async function ensureOffscreenDocument(): Promise<void> {
  const offscreen = browser.offscreen;
  if (!offscreen) throw new Error('This browser has neither a DOM in the background nor offscreen documents: pages cannot be parsed.');
  const url = browser.runtime.getURL(OFFSCREEN_PATH);
  const contexts = await browser.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT' as Browser.runtime.ContextType], documentUrls: [url] });
  if (contexts.length > 0) return;
  creating ??= offscreen
    .createDocument({
      url: OFFSCREEN_PATH,
      reasons: ['DOM_PARSER', 'BLOBS'] as Browser.offscreen.Reason[],
      justification: 'Parse fetched web pages into Markdown and search result pages into results; make blob URLs for files of the agent\'s workspace.',
    })
    .catch((error: unknown) => {
      // Two callers raced; the document exists now, which is all we wanted.
      if (!/single offscreen document/i.test(String((error as Error)?.message))) throw error;
    })
    .finally(() => {
      creating = undefined;
    });
  await creating;
}

async function runInOffscreen<K extends DomOpName>(op: K, input: DomOpInput<K>): Promise<DomOpReply<K>> {
  await ensureOffscreenDocument();
  const request: DomOpRequest<K> = { target: OFFSCREEN_TARGET, op, input };
  const reply = (await browser.runtime.sendMessage(request)) as DomOpReply<K> | undefined;
  if (!reply) throw new Error('The offscreen document did not answer: the page could not be parsed.');
  return reply;
}
