import { yieldIfBusy } from './eventLoop';

/**
 * Runs tasks one at a time, in the order they were queued; a failed task does not stop the next.
 * A task starts after a pause when the event loop has been kept busy (a long run of blocks mined in
 * memory never waits for I/O), so other clients are served between tasks.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const start = (): Promise<T> => {
      const pause = yieldIfBusy();
      return pause === undefined ? task() : pause.then(task);
    };
    const result = this.tail.then(start, start);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once everything queued so far has finished. */
  idle(): Promise<unknown> {
    return this.tail;
  }
}
