/**
 * The shape of a method table entry: its params (each with a parser from params.ts) and a handler
 * that receives them already typed. `describeParams` checks count and presence before parsing.
 */
import type { Chain } from '@l2devnet/core';

import { invalidParams } from './errors';
import type { Parser, Profile } from './params';
import type { ChainFeed, Session } from './subscriptions';

export interface RpcContext {
  chain: Chain;
  clientVersion: string;
  feed: ChainFeed;
  /** The connection the request came on, when it can receive notifications (WebSocket, provider). */
  session?: Session;
  /** Spec rule, where it applies (the hosted-API paths): eth_call needs `from`. */
  requireCallFrom: boolean;
  /** The rules the request follows: the service document's (`/v3/<KEY>`) or geth's (`/`, `/ws`, in process). */
  profile: Profile;
  /** Which chain of a pair the node is: the L2 (Linea's methods and state), or the L1 beside it. */
  layer: 'l1' | 'l2';
}

export interface ParamSpec<T> {
  name: string;
  parse: Parser<T>;
  required: boolean;
  fallback?: () => T;
  /** Required by the service document, but optional in geth, which takes this when it is left out. */
  gethFallback?: () => T;
}

export function required<T>(name: string, parse: Parser<T>): ParamSpec<T> {
  return { name, parse, required: true };
}

/** Required on the service document's paths; geth's take its absence as `fallback()`. */
export function serviceRequired<T>(name: string, parse: Parser<T>, fallback: () => T): ParamSpec<T> {
  return { name, parse, required: true, gethFallback: fallback };
}

export function optional<T>(name: string, parse: Parser<T>): ParamSpec<T | undefined> {
  return { name, parse, required: false };
}

export function withDefault<T>(name: string, parse: Parser<T>, fallback: () => T): ParamSpec<T> {
  return { name, parse, required: false, fallback };
}

export interface Method {
  params: ParamSpec<unknown>[];
  handler: (ctx: RpcContext, args: unknown[]) => Promise<unknown> | unknown;
}

export function method<A extends unknown[]>(
  params: { [K in keyof A]: ParamSpec<A[K]> },
  handler: (ctx: RpcContext, ...args: A) => Promise<unknown> | unknown,
): Method {
  return {
    params: params as ParamSpec<unknown>[],
    handler: (ctx, args) => handler(ctx, ...(args as A)),
  };
}

/** Parses a request's `params` against a method's specs, under the request's profile. */
export function parseParams(specs: ParamSpec<unknown>[], raw: unknown, profile: Profile = 'service'): unknown[] {
  if (raw !== undefined && !Array.isArray(raw)) throw invalidParams('params must be an array');
  const values = (raw ?? []) as unknown[];
  if (values.length > specs.length) {
    throw invalidParams(`too many params: expected at most ${specs.length}, got ${values.length}`);
  }
  return specs.map((spec, i) => {
    const value = values[i];
    const slot = { position: i + 1, name: spec.name, profile };
    const required = spec.required && !(profile === 'geth' && spec.gethFallback !== undefined);
    if (value === undefined || (value === null && !required)) {
      if (required) throw invalidParams(`missing required param ${slot.position} (${spec.name})`);
      return (spec.fallback ?? (profile === 'geth' ? spec.gethFallback : undefined))?.();
    }
    return spec.parse(value, slot);
  });
}
