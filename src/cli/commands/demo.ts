import type { Command } from "../command.ts";

/**
 * The demo lives with the examples it runs (examples/demo.ts). The build compiles the examples
 * into dist/examples/, which is published, and the package's private import `#demo`
 * (package.json "imports") names the demo: the sources under `--conditions=kontroller-source`
 * (`npm run demo`), the build once the package is installed. So `npm run demo` and
 * `kontroller demo` are the same thing, in the repository and in a user's project.
 */
const DEMO = "#demo";

export const command: Command = {
  summary:
    "run the embedded API server with the example controllers (Ctrl-C stops; --once stops when they have reconciled)",
  async run(args) {
    // The specifier is a variable so that type-checking src/ does not need the examples' build,
    // which itself needs src/'s.
    const { runDemo } = (await import(DEMO)) as { runDemo(args: string[]): Promise<number> };
    return runDemo(args);
  },
};
