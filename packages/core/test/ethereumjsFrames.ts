/**
 * How many frames ethereumjs's interpreter ran while `run` ran: 0 where the node's own engine ran
 * everything. Its Interpreter is made for every frame, and its prototype's `run` is looked up at each
 * call, so a spy on it sees them all.
 */
export async function ethereumjsFrames(run: () => Promise<unknown>): Promise<number> {
  const { Interpreter } = require(require.resolve('@ethereumjs/evm').replace(/index\.js$/, 'interpreter.js')) as {
    Interpreter: { prototype: { run: (...args: unknown[]) => unknown } };
  };
  const spy = jest.spyOn(Interpreter.prototype, 'run');
  try {
    await run();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}
