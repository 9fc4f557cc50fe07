// A React 19 app that registers its tools with @mcp-b/react-webmcp's useWebMCP, on top of
// @mcp-b/global, as that package's README shows.
import '@mcp-b/global';
import { useWebMCP } from '@mcp-b/react-webmcp';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

function Counter() {
  const [count, setCount] = useState(0);
  const increment = useWebMCP({
    name: 'counter_increment',
    description: 'Increments the counter shown on the page by an amount.',
    inputSchema: { type: 'object', properties: { by: { type: 'integer', description: 'How much to add' } }, required: ['by'] },
    execute: async ({ by }) => {
      setCount((c) => c + by);
      return { success: true, added: by };
    },
  });
  useWebMCP({
    name: 'counter_read',
    description: 'Reads the counter shown on the page.',
    annotations: { readOnlyHint: true },
    execute: async () => ({ count: Number(document.getElementById('count').textContent) }),
  });
  return (
    <main>
      <p>Count: <span id="count">{count}</span></p>
      <p id="calls">{increment.state.executionCount} calls</p>
    </main>
  );
}

try {
  createRoot(document.getElementById('root')).render(<Counter />);
  window.__reactReady = true;
} catch (error) {
  window.__reactError = String(error?.stack ?? error);
}
