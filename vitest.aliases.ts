import { fileURLToPath } from "node:url";

/**
 * The package's own names resolved to its source, for every vitest config
 * (npm test, the Cluster run, the chaos suite): the examples and the tests
 * written on the public API import `switchyard` and `switchyard/testing` as
 * a bot author's code does, and must test this checkout, never a stale dist/.
 */
export const sourceAliases = [
  {
    find: /^switchyard$/,
    replacement: fileURLToPath(new URL("src/index.ts", import.meta.url)),
  },
  {
    find: /^switchyard\/testing$/,
    replacement: fileURLToPath(new URL("src/testing/index.ts", import.meta.url)),
  },
];
