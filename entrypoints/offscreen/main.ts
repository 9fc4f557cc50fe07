import { pdfJobs } from '@/core/extract/pdf-jobs';
import { serveOffscreenJobs } from '@/core/offscreen/router';
import { builtinOffscreenJobs } from '@/plugins/offscreen';

// Chrome's one offscreen document (see core/offscreen/host.ts): it runs the plugins' jobs that
// need a DOM or blob URLs, which Chrome's service worker cannot do itself, and the core's own (PDFs).
serveOffscreenJobs([pdfJobs, ...builtinOffscreenJobs]);
