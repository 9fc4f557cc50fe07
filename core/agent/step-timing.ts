/**
 * Marks of one agent loop that an observer may time. The loop calls them in this order for each
 * step with tools: `streamEnded` (the model's answer is in), `stepPersisted` (its write issued),
 * `toolStarted`/`toolEnded` per tool, `writesDone` (the step's writes committed), then
 * `requestSent` when the next request leaves. Times are `performance.now()` values.
 */
export interface LoopObserver {
  /** `bodyEndAt`: when the response's end reached the page (its last byte came before). */
  streamEnded(lastByteAt: number | undefined, at: number, bodyEndAt?: number): void;
  stepPersisted(at: number): void;
  toolStarted(at: number): void;
  toolEnded(at: number): void;
  writesDone(at: number): void;
  /** `builtAt`: when the request was built (the SDK called fetch, which then waits for the step's write). */
  requestSent(at: number | undefined, builtAt?: number): void;
}

/**
 * Time the extension itself adds around one tool step, in ms: from the model's last byte to the
 * tool starting, and from the tool ending to the next model request leaving.
 */
export interface StepTiming {
  toolStartDelay: number;
  nextRequestDelay: number;
  /** Where the time goes: last byte → stream loop ends → tool messages ready (the step's write armed) → tool starts; tool ends → request sent (the step's write is waited for). */
  parts: { streamEnd: number; bodyEnd: number; persist: number; toStart: number; toRequest: number; written: number; built: number };
}

interface Marks {
  lastByte: number;
  streamEnd: number;
  bodyEnd?: number;
  persisted?: number;
  toolStart?: number;
  toolEnd?: number;
  written?: number;
}

/** The benchmark's timer: per-step overhead figures of recent runs (`bench/run.mjs`). */
export class StepTimer {
  private readonly timings: StepTiming[] = [];

  constructor(private readonly keep = 1000) {}

  /** An observer for one loop (loops may run at the same time; each has its own marks). */
  observe(): LoopObserver {
    return new LoopMarks((timing) => {
      this.timings.push(timing);
      if (this.timings.length > this.keep) this.timings.shift();
    });
  }

  recent(): StepTiming[] {
    return [...this.timings];
  }
}

class LoopMarks implements LoopObserver {
  private current: Marks | undefined;
  private previous: Marks | undefined;

  constructor(private readonly push: (timing: StepTiming) => void) {}

  streamEnded(lastByteAt: number | undefined, at: number, bodyEndAt?: number): void {
    this.current = { lastByte: lastByteAt ?? at, streamEnd: at, bodyEnd: bodyEndAt };
  }
  stepPersisted(at: number): void {
    if (this.current) this.current.persisted = at;
  }
  toolStarted(at: number): void {
    if (this.current) this.current.toolStart ??= at;
  }
  toolEnded(at: number): void {
    if (this.current) this.current.toolEnd = Math.max(this.current.toolEnd ?? 0, at);
  }
  writesDone(at: number): void {
    if (!this.current) return;
    this.current.written = at;
    this.previous = this.current.toolStart !== undefined ? this.current : undefined;
  }
  requestSent(at: number | undefined, builtAt?: number): void {
    const p = this.previous;
    this.previous = undefined;
    if (!p || at === undefined || p.toolStart === undefined || p.toolEnd === undefined) return;
    const persisted = p.persisted ?? p.streamEnd;
    this.push({
      toolStartDelay: p.toolStart - p.lastByte,
      nextRequestDelay: at - p.toolEnd,
      parts: {
        streamEnd: p.streamEnd - p.lastByte,
        bodyEnd: (p.bodyEnd ?? NaN) - p.lastByte,
        persist: persisted - p.streamEnd,
        toStart: p.toolStart - persisted,
        toRequest: at - p.toolEnd,
        written: (p.written ?? NaN) - p.toolEnd,
        built: (builtAt ?? NaN) - p.toolEnd,
      },
    });
  }
}
