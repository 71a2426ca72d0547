/**
 * Credits charged per call: the spec's Limits table, kept in one data file
 * (fixtures/credits.json), with a documented default for methods the spec does not price.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { FIXTURES_DIR } from '@l2devnet/core';

export const CREDITS_FILE = join(FIXTURES_DIR, 'credits.json');

interface CreditsFile {
  default: number;
  methods: Record<string, number>;
}

const table = JSON.parse(readFileSync(CREDITS_FILE, 'utf8')) as CreditsFile;

export const DEFAULT_CREDITS = table.default;

export function creditsOf(method: string): number {
  return table.methods[method] ?? table.default;
}
