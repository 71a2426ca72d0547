/**
 * An EIP-1193 provider over the in-process RPC: `request({ method, params })` resolves with the
 * result or rejects with an error carrying `code`, `message` and `data`, which is what ethers'
 * BrowserProvider and viem's `custom` transport expect.
 */
import { EventEmitter } from 'node:events';

import type { RpcError } from './errors';
import type { Rpc } from './rpc';
import type { Session } from './subscriptions';

export interface RequestArguments {
  method: string;
  params?: unknown[] | object;
}

export class ProviderRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: string,
  ) {
    super(message);
  }
}

export class Eip1193Provider extends EventEmitter {
  /** Subscriptions made through this provider arrive as EIP-1193 `message` events. */
  private readonly session: Session = {
    send: (message) => {
      const params = (message as { params: { subscription: string; result: unknown } }).params;
      this.emit('message', { type: 'eth_subscription', data: params });
    },
  };

  constructor(private readonly rpc: Rpc) {
    super();
  }

  async request(args: RequestArguments): Promise<unknown> {
    try {
      // In process, a call without `from` runs from the zero address (ethers and viem leave it out).
      return await this.rpc.request(args.method, args.params, { session: this.session, profile: 'geth' });
    } catch (e) {
      const err = e as RpcError;
      throw new ProviderRpcError(err.code, err.message, err.data);
    }
  }
}

export function createProvider(rpc: Rpc): Eip1193Provider {
  return new Eip1193Provider(rpc);
}
