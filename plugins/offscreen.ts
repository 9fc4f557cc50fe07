import type { OffscreenGroup } from '@/core/offscreen/jobs';
import { scriptingJobs } from './scripting/offscreen';
import { webJobs } from './web/offscreen';
import { workspaceJobs } from './workspace/offscreen';

/** The jobs Chrome's offscreen document serves, one group per plugin that has any: one line each. */
export const builtinOffscreenJobs: OffscreenGroup[] = [
  scriptingJobs,
  webJobs,
  workspaceJobs,
];
