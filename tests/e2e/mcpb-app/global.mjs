// A page that adds WebMCP the way @mcp-b/global's README says: import the package (it installs its
// own `document.modelContext`, a BrowserMcpServer), then register tools on it.
import '@mcp-b/global';

const cart = [];
window.__mcpb = { cart, toolchanges: 0 };
document.modelContext.addEventListener('toolchange', () => window.__mcpb.toolchanges++);

async function register() {
  await document.modelContext.registerTool({
    name: 'search-products',
    description: 'Search the shop\'s products by keyword.',
    inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'Search terms' } }, required: ['query'] },
    annotations: { readOnlyHint: true },
    async execute({ query }) {
      const products = ['Green tea', 'Black tea', 'Coffee beans'].filter((p) => p.toLowerCase().includes(String(query).toLowerCase()));
      return { content: [{ type: 'text', text: JSON.stringify({ products }) }] };
    },
  });
  await document.modelContext.registerTool({
    name: 'add-to-cart',
    description: 'Add a product to the shopping cart.',
    inputSchema: {
      type: 'object',
      properties: { productId: { type: 'string' }, quantity: { type: 'integer' } },
      required: ['productId'],
    },
    async execute({ productId, quantity }) {
      cart.push({ productId, quantity: quantity ?? 1 });
      document.getElementById('cart').textContent = `${cart.length} in cart`;
      return { content: [{ type: 'text', text: `Added ${productId} to cart` }] };
    },
  });
  window.__mcpb.ready = true;
}

register().catch((error) => {
  window.__mcpb.error = String(error?.stack ?? error);
});
