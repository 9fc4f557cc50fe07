/**
 * Runs a step's tool calls as the model's answer names them, while the rest of the answer may
 * still be streaming (its last events, another call): one by one in the order asked, except that
 * consecutive calls of a concurrent tool (sub-agents) run together. `add` returns at once;
 * `settled` waits for every call added so far. A run that throws stops the ones after it, and
 * `settled` rejects with its error.
 */
export class ToolQueue {
  private tail: Promise<void> = Promise.resolve();
  /** When the current run of consecutive concurrent calls may start (what came before it ended). */
  private groupStart: Promise<void> | undefined;

  add(concurrent: boolean, run: () => Promise<void>): void {
    if (concurrent && this.groupStart) {
      const started = this.groupStart.then(run);
      this.tail = Promise.all([this.tail, started]).then(() => undefined);
    } else {
      const before = this.tail;
      this.groupStart = concurrent ? before : undefined;
      this.tail = before.then(run);
    }
    // Awaited through `settled` once the answer is in; never an unhandled rejection meanwhile.
    this.tail.catch(() => undefined);
  }

  settled(): Promise<void> {
    return this.tail;
  }
}
