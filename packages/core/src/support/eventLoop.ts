/**
 * Fair use of the one event loop. Chain work (mining, queued changes, EVM execution) is a chain of
 * promises that, in memory, never waits for I/O: left alone it would keep timers and sockets out
 * until it is all done. `yieldIfBusy` is called at points where pausing is safe; once the loop has
 * not turned for SLICE_MS it returns a pause (one macrotask), so other clients are served between
 * slices of at most about that length.
 */

/** Longest stretch of chain work between two chances for the event loop to serve others. */
export const SLICE_MS = 10;

/** When the loop last reached its check phase (setImmediate), i.e. last let I/O in. */
let lastTurn = performance.now();
let armed = false;

function markTurn(): void {
  armed = false;
  lastTurn = performance.now();
}

/** Undefined while the loop turned within SLICE_MS; otherwise a pause until it has. */
export function yieldIfBusy(): Promise<void> | undefined {
  if (!armed) {
    armed = true;
    setImmediate(markTurn);
  }
  if (performance.now() - lastTurn < SLICE_MS) return undefined;
  return new Promise<void>((resolve) => setImmediate(resolve));
}
