import type { OffscreenGroup } from '@/core/offscreen/jobs';
import { webJobs } from './web/offscreen';
import { workspaceJobs } from './workspace/offscreen';

/** The jobs Chrome's offscreen document serves, one group per plugin that has any: one line each. */
export const builtinOffscreenJobs: OffscreenGroup[] = [
  webJobs,
  workspaceJobs,
];
