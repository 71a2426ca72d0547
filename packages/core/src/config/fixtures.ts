/**
 * Where the data files the node reads at start-up live (limits files, the credits table). In the
 * repository they are in fixtures/ at the root, four levels above this folder (a package's src/config/
 * or dist/config/). In the packed l2devnet package, whose bundles sit in dist/, they ship in the
 * package's own fixtures/, one level above: that one is looked for first, so an installed node never
 * reads a project's files.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES_DIR =
  [join(__dirname, '..', 'fixtures'), join(__dirname, '..', '..', '..', '..', 'fixtures')].find((dir) =>
    existsSync(dir),
  ) ?? join(__dirname, '..', '..', '..', '..', 'fixtures');
