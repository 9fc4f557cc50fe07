import type { Archive } from './archive';

// No zod here: the sidebar imports this to export one conversation.

/** A file name for an export: `sidequest-<what>-<date>.<ext>`, safe on every system. */
export function exportFileName(what: string, ext: 'json' | 'md', now = new Date()): string {
  const slug = what
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\w-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .toLowerCase();
  return `sidequest-${slug || 'export'}-${now.toISOString().slice(0, 10)}.${ext}`;
}

/**
 * The archive as Markdown, for reading: each conversation with its messages, tool calls (input,
 * result) and tool activity (as JSON). Not read back by Import.
 */
export function archiveToMarkdown(archive: Archive): string {
  const out: string[] = [];
  for (const [index, { conversation, messages }] of archive.conversations.entries()) {
    if (index) out.push('---', '');
    out.push(`# ${oneLine(conversation.title)}`, '');
    out.push(`*Started ${new Date(conversation.createdAt).toISOString()}${conversation.model ? ` · model ${oneLine(conversation.model)}` : ''}*`, '');
    const tools = new Map(messages.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m] as const] : [])));
    for (const message of messages) {
      if (message.role === 'user') {
        out.push('## You', '', message.text, '');
      } else if (message.role === 'assistant') {
        if (message.notice) {
          out.push(`> ${oneLine(message.text)}`, '');
          continue;
        }
        if (!message.text && !message.toolCalls.length) continue;
        const tokens = message.usage ? ` (${message.usage.inputTokens ?? '?'} tokens in, ${message.usage.outputTokens ?? '?'} out)` : '';
        out.push(`## Sidequest${tokens}`, '');
        if (message.text) out.push(message.text, '');
        for (const call of message.toolCalls) {
          const result = tools.get(call.id);
          out.push(`### Tool \`${oneLine(call.name)}\` — ${result?.status ?? 'no result'}`, '');
          out.push('Input:', '', fence(call.input), '');
          if (result?.result) out.push(result.result.ok ? 'Result:' : `Error (${result.result.code}):`, '', fence(result.result.ok ? result.result.output : result.result.error), '');
          if (result?.activity !== undefined) out.push('Activity:', '', fence(result.activity), '');
        }
      }
    }
  }
  return out.join('\n');
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/** A value in a code fence longer than any backtick run inside it. */
function fence(value: unknown): string {
  const body = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${typeof value === 'string' ? '' : 'json'}\n${body}\n${ticks}`;
}
