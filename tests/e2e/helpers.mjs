// Steps shared by the end-to-end scenarios, done through the UI as a person would.

/** Sets the model provider on the options page, and checks that it says so. */
export async function configureProvider(h, { baseUrl, model = 'scripted-model', apiKey = '' }) {
  const options = await h.openExtensionPage('options.html', { width: 1000, height: 800 });
  await options.click('link', 'Model provider');
  // The form fills itself with the saved settings when they arrive: type only after that, or the
  // late arrival overwrites what was typed (seen on a busy machine).
  await options.waitFor(() => document.querySelector('#base-url')?.value !== '');
  await options.fill('Base URL', baseUrl);
  await options.fill('Model', model);
  if (apiKey) await options.fill('API key', apiKey);
  await options.click('button', 'Save');
  await options.waitForText('Saved.');
  return options;
}

/** Opens the sidebar page in a tab (neither browser can show its real sidebar headless). */
export async function openSidebar(h) {
  const sidebar = await h.openExtensionPage('sidepanel.html');
  await sidebar.find('textbox', 'Message');
  return sidebar;
}

/** Types a message in the sidebar and sends it with the Send button. */
export async function sendMessage(sidebar, text) {
  await sidebar.fill('Message', text);
  await sidebar.click('button', 'Send');
}

/** Waits until no run is going in the sidebar (the Send button is back). */
export async function waitForIdle(sidebar, timeout = 20_000) {
  await sidebar.find('button', 'Send', { timeout });
}

/** The visible text of the last assistant answer's Markdown. */
export async function lastAnswer(sidebar) {
  const answers = await sidebar.texts('article.assistant .markdown');
  return answers.at(-1) ?? '';
}

/**
 * Lets web_fetch read the fixture servers on 127.0.0.1: the test-only allow-list of loopback
 * origins, a secret of the web plugin (`web.test.localOrigins` in IndexedDB, see
 * plugins/web/local-allow.ts), written from an extension page (web pages cannot reach it).
 */
export async function allowLocalOrigins(page, origins) {
  await page.evaluate(async (value) => {
    const db = await new Promise((resolve, reject) => {
      const request = indexedDB.open('sidequest');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
      request.onupgradeneeded = () => {
        request.transaction?.abort();
        reject(new Error('the extension has not created its database yet'));
      };
    });
    await new Promise((resolve, reject) => {
      const tx = db.transaction('secrets', 'readwrite');
      tx.objectStore('secrets').put({ key: 'web.test.localOrigins', value });
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  }, JSON.stringify(origins));
}

const ENVELOPE = /^<<<UNTRUSTED BEGIN ([0-9a-f]{16}) source="([^"\n]*)"; [^\n]*>>>\n([\s\S]*)\n<<<UNTRUSTED END \1>>>$/;

/** The source and content of an untrusted envelope (core/registry/untrusted.ts), or null. */
export function unwrapUntrusted(text) {
  const match = typeof text === 'string' ? ENVELOPE.exec(text) : null;
  return match ? { source: match[2], content: match[3] } : null;
}
