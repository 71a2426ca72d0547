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

/**
 * How many transactions ethereumjs's runTx ran while `run` ran: 0 where the node's engine ran them
 * whole. runTx looks up the VM's `beforeTx` listeners for each (its VM's EventEmitter's `listeners`).
 */
export async function ethereumjsTransactions(run: () => Promise<unknown>): Promise<number> {
  const vmDir = require('node:path').dirname(require.resolve('@ethereumjs/vm')) as string;
  const { EventEmitter } = require(require.resolve('eventemitter3', { paths: [vmDir] })) as {
    EventEmitter: { prototype: { listeners: (name: string) => unknown[] } };
  };
  const spy = jest.spyOn(EventEmitter.prototype, 'listeners');
  try {
    await run();
    return spy.mock.calls.filter(([name]) => name === 'beforeTx').length;
  } finally {
    spy.mockRestore();
  }
}
