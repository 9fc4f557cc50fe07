/**
 * `devtoolstooldiscovery` (chrome-devtools-mcp's third-party tools): a CustomEvent with
 * `respondWith(group)` dispatched on the window; the page answers with tool groups, synchronously,
 * in a microtask or with a Promise. Each group and tool is checked on its own: an invalid one is
 * dropped with a problem saying why, the rest are kept.
 */
import type { Intrinsics } from './intrinsics';
import type { WireGroup, WireTool } from '../wire';
import { clip, describeType, errorText, isObject, isThenable, LIMITS, own, type AnyFn, type BridgeContext, type LiveTool } from './shared';

type Outcome = { value: unknown } | { error: string };

/** Dispatches the discovery event and returns the valid groups and their live tools. */
export async function discoverDevtools(ctx: BridgeContext, problems: string[]): Promise<{ groups: WireGroup[]; live: Map<string, LiveTool> }> {
  const { I } = ctx;
  // A Promise is watched from the moment it is given, so its rejection is never "unhandled".
  const responses: Array<Promise<Outcome> | Outcome> = [];
  let open = true;
  const event = new I.CustomEvent('devtoolstooldiscovery');
  I.defineProperty(event, 'respondWith', own({
    value: (group: unknown) => {
      if (!open) {
        ctx.problem(problems, 'respondWith was called too late (after the discovery ended); answer synchronously, in a microtask, or with a Promise.');
        return;
      }
      I.push(responses, isThenable(group) ? settle(I, group, LIMITS.promiseWaitMs) : { value: group });
    },
    enumerable: true,
  }));
  I.dispatch(ctx.win, event);
  // Synchronous answers and those given in a microtask are in; then give Promises time to settle.
  await I.macrotask();
  open = false;
  // Awaited one by one (all settle in parallel; none rejects): no `Promise.all`, which looks up `then`.
  const settled: Outcome[] = [];
  for (let i = 0; i < responses.length; i++) {
    const response = responses[i]!;
    I.push(settled, response instanceof I.Promise ? await response : response);
  }
  const groups: WireGroup[] = [];
  const live = new I.Map<string, LiveTool>();
  for (let index = 0; index < settled.length; index++) {
    const outcome = settled[index]!;
    if ('error' in outcome) {
      ctx.problem(problems, `Invalid toolGroup #${index + 1}: its Promise ${outcome.error}.`);
      continue;
    }
    const group = checkGroup(ctx, outcome.value, index, problems, live);
    if (group) I.push(groups, group);
  }
  return { groups, live };
}

function checkGroup(ctx: BridgeContext, raw: unknown, index: number, problems: string[], live: Map<string, LiveTool>): WireGroup | null {
  const { I } = ctx;
  const label = `toolGroup #${index + 1}`;
  if (!isObject(raw)) {
    ctx.problem(problems, `Invalid toolGroup: ${label} is ${describeType(I, raw)}, not an object with name, description and tools.`, raw);
    return null;
  }
  const { name, description, tools } = raw as { name?: unknown; description?: unknown; tools?: unknown };
  if (typeof name !== 'string' || !I.trim(name)) {
    ctx.problem(problems, `Invalid toolGroup: ${label} has no string "name".`, raw);
    return null;
  }
  const groupName = clip(I, I.trim(name), LIMITS.groupName);
  // No description is fine (Angular's own group has none); one that is not a string is not.
  if (description !== undefined && description !== null && typeof description !== 'string') {
    ctx.problem(problems, `Invalid toolGroup "${groupName}": "description" must be a string.`, raw);
    return null;
  }
  if (!I.isArray(tools)) {
    ctx.problem(problems, `Invalid toolGroup "${groupName}": "tools" must be an array.`, raw);
    return null;
  }
  const wireTools: WireTool[] = [];
  // The page's array, read by index: its own iterator or `forEach` could be anything.
  const count = tools.length;
  for (let toolIndex = 0; toolIndex < count; toolIndex++) {
    if (!(toolIndex in tools)) continue; // A hole, skipped as forEach would.
    const checked = checkTool(ctx, tools[toolIndex], `toolGroup "${groupName}"`, problems);
    if (!checked) continue;
    if (ctx.state.webmcpTools.size + ctx.state.formTools.size + live.size >= LIMITS.toolsPerPage) {
      ctx.problem(problems, `Invalid tool "${checked.wire.name}": the page offers more than ${LIMITS.toolsPerPage} tools; the rest are dropped.`);
      continue;
    }
    const key = `dt:${index}:${toolIndex}:${checked.wire.name}`;
    live.set(key, { execute: checked.execute, source: 'devtools', schema: checked.wire.inputSchema });
    I.push(wireTools, { ...checked.wire, key });
  }
  if (!wireTools.length && count) {
    ctx.problem(problems, `Invalid toolGroup "${groupName}": none of its tools is valid.`);
    return null;
  }
  return { name: groupName, description: clip(I, typeof description === 'string' ? description : '', LIMITS.description), source: 'devtools', tools: wireTools };
}

/** The reference's checks for one tool, plus what the agent needs: a JSON object schema. */
function checkTool(ctx: BridgeContext, raw: unknown, where: string, problems: string[]): { wire: Omit<WireTool, 'key'>; execute: AnyFn } | null {
  const { I } = ctx;
  if (!isObject(raw)) {
    ctx.problem(problems, `Invalid tool in ${where}: it is ${describeType(I, raw)}, not an object.`, raw);
    return null;
  }
  const tool = raw as { name?: unknown; description?: unknown; inputSchema?: unknown; execute?: unknown };
  if (typeof tool.name !== 'string' || !I.trim(tool.name)) {
    ctx.problem(problems, `Invalid tool in ${where}: it has no string "name".`, raw);
    return null;
  }
  const name = I.trim(tool.name);
  if (name.length > LIMITS.toolName) {
    ctx.problem(problems, `Invalid tool "${clip(I, name, 40)}" in ${where}: its name is longer than ${LIMITS.toolName} characters.`, raw);
    return null;
  }
  if (typeof tool.description !== 'string') {
    ctx.problem(problems, `Invalid tool "${name}" in ${where}: "description" must be a string.`, raw);
    return null;
  }
  if (typeof tool.execute !== 'function') {
    ctx.problem(problems, `Invalid tool "${name}" in ${where}: "execute" must be a function.`, raw);
    return null;
  }
  const schema = checkSchema(I, tool.inputSchema);
  if (typeof schema === 'string') {
    ctx.problem(problems, `Invalid tool "${name}" in ${where}: ${schema}`, raw);
    return null;
  }
  return {
    wire: { name, description: clip(I, I.trim(tool.description), LIMITS.description), inputSchema: schema },
    execute: tool.execute as AnyFn,
  };
}

/** The schema as plain JSON, or a sentence saying what is wrong with it. */
function checkSchema(I: Intrinsics, schema: unknown): Record<string, unknown> | string {
  if (!isObject(schema) || I.isArray(schema)) return `"inputSchema" must be a JSON Schema object, not ${describeType(I, schema)}.`;
  let json: string | undefined;
  try {
    json = I.stringify(schema);
  } catch (error) {
    return `"inputSchema" cannot be turned into JSON (${errorText(I, error)}).`;
  }
  if (json === undefined) return '"inputSchema" cannot be turned into JSON.';
  return checkSchemaJson(I, json);
}

/** A schema given as JSON, parsed back (plain data only), or a sentence saying what is wrong. */
export function checkSchemaJson(I: Intrinsics, json: string): Record<string, unknown> | string {
  if (json.length > LIMITS.schemaChars) return `"inputSchema" is larger than ${LIMITS.schemaChars} characters of JSON.`;
  const plain = I.parse(json);
  if (!isObject(plain) || I.isArray(plain)) return `"inputSchema" must be a JSON Schema object, not ${describeType(I, plain)}.`;
  const type = plain.type;
  if (type !== undefined && type !== 'object' && !(I.isArray(type) && I.includes(type, 'object'))) {
    return `"inputSchema" must describe an object of named arguments (type "object"), not type ${I.stringify(type)}.`;
  }
  return plain;
}

/** The Promise's value or why it failed, within `timeoutMs`; never rejects. */
function settle(I: Intrinsics, promise: PromiseLike<unknown>, timeoutMs: number): Promise<Outcome> {
  return new I.Promise((resolve) => {
    const timer = I.setTimeout(() => resolve({ error: `did not settle within ${timeoutMs} ms` }), timeoutMs);
    // The page's own thenable: calling its `then` is the page's business.
    promise.then(
      (value) => {
        I.clearTimeout(timer);
        resolve({ value });
      },
      (error) => {
        I.clearTimeout(timer);
        resolve({ error: `was rejected (${errorText(I, error)})` });
      },
    );
  });
}
