/**
 * Amounts and durations as people type them, read the same way by the command's flags and the
 * library's options (each says in its own words what is wrong).
 */

/** An amount of ETH (`10000`, `0.5`; at most 18 decimals) in wei; undefined when the text is not one. */
export function parseEther(text: string): bigint | undefined {
  const m = /^([0-9]+)(?:\.([0-9]{1,18}))?$/.exec(text);
  return m === null ? undefined : BigInt(m[1]) * 10n ** 18n + BigInt((m[2] ?? '').padEnd(18, '0'));
}

/**
 * A duration as geth's flags take it (`5s`, `500ms`, `2m`), in milliseconds; a bare number is
 * seconds when `bareSeconds`. Undefined when the text is not one.
 */
export function parseDuration(text: string, bareSeconds: boolean): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m)?$/.exec(text);
  if (m === null || (m[2] === undefined && !bareSeconds)) return undefined;
  const ms = Math.round(Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000));
  return Number.isSafeInteger(ms) ? ms : undefined;
}
