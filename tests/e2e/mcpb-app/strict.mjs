// A page whose WebMCP runtime replaces whatever `document.modelContext` it finds instead of wrapping
// it: it removes the one there and installs @mcp-b/webmcp-polyfill's strict runtime, which has
// `getTools()`, `executeTool()` and `toolchange` but registers nothing anywhere else.
import { initializeWebMCPPolyfill } from '@mcp-b/webmcp-polyfill';

delete document.modelContext;
delete navigator.modelContext;
window.__webMCPPolyfillOptions = { installTestingShim: false };
initializeWebMCPPolyfill();

const notes = ['Water the plants'];
window.__strict = { notes };

const tool = (name, description, execute, inputSchema) => ({ name, description, execute, ...(inputSchema ? { inputSchema } : {}) });

async function register() {
  await document.modelContext.registerTool(tool('notes.list', 'Lists the user\'s notes.', () => ({ notes })));
  await document.modelContext.registerTool(
    tool('notes.add', 'Adds a note.', ({ text }) => {
      notes.push(text);
      return { added: text, count: notes.length };
    }, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
  );
  window.__strict.ready = true;
}

// A tool that comes later (after a click), heard through the runtime's toolchange.
window.__strict.addLater = () =>
  document.modelContext.registerTool(tool('notes.clear', 'Removes every note.', () => {
    notes.length = 0;
    return 'cleared';
  }));

register().catch((error) => {
  window.__strict.error = String(error?.stack ?? error);
});
