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
