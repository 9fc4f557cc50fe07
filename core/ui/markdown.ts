import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

// Raw HTML off: model and page text can never inject markup; DOMPurify is the second line.
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

const ALLOWED_PROTOCOLS = /^(https?:|mailto:)/i;

md.validateLink = (url: string) => ALLOWED_PROTOCOLS.test(url.trim()) || /^#/.test(url.trim());

// No remote images: loading one would tell a third party what the user reads. Show a link instead.
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const src = String(token.attrGet('src') ?? '');
  const alt = self.renderInlineAsText(token.children ?? [], options, env) || src;
  return `<a href="${md.utils.escapeHtml(src)}">${md.utils.escapeHtml(alt)}</a>`;
};

/** The configured markdown-it instance (for `markdown-stream.ts`, which renders parts of a text). */
export const markdownIt = md;

let hooked = false;
function ensureHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

/** Sanitizes HTML that `markdownIt` rendered, as `renderMarkdown` does. */
export function sanitizeMarkdownHtml(html: string): string {
  ensureHooks();
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe', 'img'],
    FORBID_ATTR: ['style'],
  });
}

/** Renders Markdown from the model (or a page) to sanitized HTML. */
export function renderMarkdown(text: string): string {
  return sanitizeMarkdownHtml(md.render(text));
}
