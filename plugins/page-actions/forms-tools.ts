import type { FromSchema } from 'json-schema-to-ts';
import { defineTool } from '@/core/registry/registry';
import type { ToolDefinition } from '@/core/registry/types';
import { ACTION_TIMEOUT_MS, ACTS } from './actions';
import { begin, runAction, type ActionResult, type Context } from './flow';
import type { PageActionsService } from './service';
import { pageActionsSchemas as schemas } from './schemas';
import { cardWords } from './words';
import { readWorkspaceFile, toBase64 } from './workspace-file';

/**
 * Issue 41's tools for text, files and dialogs (page side: `page/forms.ts`, `page/dialogs*.ts`):
 * `select_text`, `clipboard`, `upload_file`, `dialog`. Found through `find_tools` (not always
 * offered). None of them reads or writes the user's real clipboard.
 */

type In<K extends keyof typeof schemas> = FromSchema<(typeof schemas)[K], { keepDefaultedPropertiesOptional: true }>;

const AFTER = 'Returns what changed.';

export const selectText = defineTool<In<'select_text'>, ActionResult, PageActionsService>({
  name: 'select_text',
  description: `Select text inside an element (its first occurrence of text, or characters start to end), as a person's drag would. ${AFTER}`,
  inputSchema: schemas.select_text,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('select_text') },
  async execute(input, context: Context) {
    if (input.text === undefined && input.start === undefined && input.end === undefined) throw new Error('Give text (to select its first occurrence) or start and end (character offsets).');
    const tab = await begin(input.tab_id, context);
    const { ref, text, start, end } = input;
    return runAction(tab, { op: 'selectText', ref, ...(text !== undefined ? { text } : {}), ...(start !== undefined ? { start } : {}), ...(end !== undefined ? { end } : {}) }, context, 'Selecting the text', false);
  },
});

export const clipboard = defineTool<In<'clipboard'>, ActionResult, PageActionsService>({
  name: 'clipboard',
  description: 'Copy or cut the page\'s selection (returns what the page put on its clipboard), or paste text at a ref through the page\'s paste handling; the user\'s real clipboard is never used.',
  inputSchema: schemas.clipboard,
  timeoutMs: ACTION_TIMEOUT_MS,
  // A copy's result is the page's content: private, like a read (the outbound rule counts it).
  annotations: { ...ACTS, privateData: true, describe: cardWords('clipboard') },
  async execute(input, context: Context) {
    if (input.action === 'paste' && (!input.ref || input.text === undefined)) throw new Error('A paste needs ref (where to paste) and text.');
    const tab = await begin(input.tab_id, context);
    const what = input.action === 'paste' ? 'The paste' : input.action === 'cut' ? 'The cut' : 'The copy';
    return runAction(tab, { op: 'clipboard', action: input.action, ...(input.ref ? { ref: input.ref } : {}), ...(input.text !== undefined ? { text: input.text } : {}) }, context, what, input.action === 'paste');
  },
});

export const uploadFile = defineTool<In<'upload_file'>, ActionResult, PageActionsService>({
  name: 'upload_file',
  description: `Choose a workspace file (at most 10 MB) in a page's file input, or drop it on a drop zone: the file is sent to the site. ${AFTER}`,
  inputSchema: schemas.upload_file,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('upload_file') },
  async execute(input, context: Context) {
    // Read (and refuse a bad path or a big file) before the tab is touched.
    const file = await readWorkspaceFile(input.path);
    const tab = await begin(input.tab_id, context);
    return runAction(
      tab,
      { op: 'upload', ref: input.ref, file: { name: file.name, type: file.type, base64: toBase64(file.bytes), lastModified: file.lastModified } },
      context,
      'The upload',
      true,
    );
  },
});

export const dialogTool = defineTool<In<'dialog'>, ActionResult, PageActionsService>({
  name: 'dialog',
  description: 'Set the answer (OK/Cancel, a prompt\'s text) to the next alert, confirm or prompt the page raises during an action; then repeat that action.',
  inputSchema: schemas.dialog,
  timeoutMs: ACTION_TIMEOUT_MS,
  annotations: { ...ACTS, describe: cardWords('dialog') },
  async execute(input, context: Context) {
    const tab = await begin(input.tab_id, context);
    const result = await runAction(tab, { op: 'dialog', accept: input.accept, ...(input.text !== undefined ? { text: input.text } : {}) }, context, 'Setting the answer', false);
    const answer = input.accept ? (input.text !== undefined ? 'OK with that text' : 'OK') : 'Cancel';
    return { ...result, note: `The next dialog the page raises during an action in tab ${tab.id} will be answered ${answer} (once; this page only). Now repeat the action that raised it.` };
  },
});

/** The tools of this file, listed in `index.ts`. */
export const formsTools: ToolDefinition[] = [selectText, clipboard, uploadFile, dialogTool];
