import { readFileSync } from "node:fs";
import type { Command } from "../command.ts";

export const command: Command = {
  summary: "print the kontroller version",
  async run() {
    const pkg = JSON.parse(
      readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    process.stdout.write(`kontroller ${pkg.version}\n`);
    return 0;
  },
};
