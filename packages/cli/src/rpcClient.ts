/** One JSON-RPC request to a node, for the subcommands that read from one (`--rpc URL`). */
import { FlagError } from './flags';

/** The answer's result; a FlagError naming the node and method when it cannot be had. */
export async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  let answer: { result?: unknown; error?: unknown };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    answer = (await res.json()) as { result?: unknown; error?: unknown };
  } catch (e) {
    // fetch says only "fetch failed"; the reason (refused, unknown host, ...) is its cause.
    const cause = (e as Error).cause as { code?: string; message?: string } | undefined;
    const why = cause?.message ?? (e as Error).message;
    throw new FlagError(`--rpc ${url}: cannot reach a node there (${why})`);
  }
  if (answer.error !== undefined) throw new FlagError(`--rpc ${url}: ${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}
