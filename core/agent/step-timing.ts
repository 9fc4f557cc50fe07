/**
 * Marks of one agent loop that an observer may time. For each step with tools the loop calls
 * `toolStarted`/`toolEnded` per tool (a tool may start while the answer's last events still
 * stream), `streamEnded` (the model's answer is in), `stepPersisted` (the answer is marked for the
 * step's write), `writesDone` (the step's writes committed), then `requestSent` when the next
 * request leaves. Times are `performance.now()` values.
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
 * tool starting (0 when it started before), and from the tool ending (or the last byte, if the
 * tool was over by then) to the next model request leaving. A tool's time after the last byte is
 * the tool's, not the extension's.
 */
export interface StepTiming {
  toolStartDelay: number;
  nextRequestDelay: number;
  /** Where the time goes, from the last byte: the stream loop ends, the answer is marked for the write, the tool starts (negative: before the last byte); from the tool's end: the request is built, the write committed, the request sent. */
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
  /** The step being streamed or run. */
  private current: Partial<Marks> = {};
  /** The step whose next request is awaited. */
  private previous: Marks | undefined;

  constructor(private readonly push: (timing: StepTiming) => void) {}

  streamEnded(lastByteAt: number | undefined, at: number, bodyEndAt?: number): void {
    Object.assign(this.current, { lastByte: lastByteAt ?? at, streamEnd: at, bodyEnd: bodyEndAt });
  }
  stepPersisted(at: number): void {
    this.current.persisted = at;
  }
  toolStarted(at: number): void {
    this.current.toolStart ??= at;
  }
  toolEnded(at: number): void {
    this.current.toolEnd = Math.max(this.current.toolEnd ?? 0, at);
  }
  writesDone(at: number): void {
    const step = { ...this.current, written: at };
    this.current = {};
    this.previous = step.toolStart !== undefined && step.lastByte !== undefined ? (step as Marks) : undefined;
  }
  requestSent(at: number | undefined, builtAt?: number): void {
    const p = this.previous;
    this.previous = undefined;
    if (!p || at === undefined || p.toolStart === undefined || p.toolEnd === undefined) return;
    const persisted = p.persisted ?? p.streamEnd;
    this.push({
      toolStartDelay: Math.max(0, p.toolStart - p.lastByte),
      nextRequestDelay: at - Math.max(p.toolEnd, p.lastByte),
      parts: {
        streamEnd: p.streamEnd - p.lastByte,
        bodyEnd: (p.bodyEnd ?? NaN) - p.lastByte,
        persist: persisted - p.streamEnd,
        toStart: p.toolStart - p.lastByte,
        toRequest: at - p.toolEnd,
        written: (p.written ?? NaN) - p.toolEnd,
        built: (builtAt ?? NaN) - p.toolEnd,
      },
    });
  }
}
