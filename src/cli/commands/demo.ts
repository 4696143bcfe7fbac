import type { Command } from "../command.ts";

/**
 * The demo lives with the examples it runs (examples/demo.ts); this command loads it from the
 * package's checkout, so `npm run demo` and `kontroller demo` are the same thing.
 */
export const command: Command = {
  summary: "run the embedded API server with the example controllers (Ctrl-C stops)",
  async run(args) {
    const url = new URL("../../../examples/demo.ts", import.meta.url);
    let mod: { runDemo(args: string[]): Promise<number> };
    try {
      mod = (await import(url.href)) as typeof mod;
    } catch (err) {
      process.stderr.write(
        `kontroller demo: the demo ships with the repository's examples/ (${(err as Error).message})\n`,
      );
      return 1;
    }
    return mod.runDemo(args);
  },
};
