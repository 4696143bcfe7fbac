#!/usr/bin/env node
/**
 * The `kontroller` command. Each subcommand lives in its own module and is registered in
 * COMMANDS; `kontroller help` lists them.
 */
import { readFileSync } from "node:fs";

interface Command {
  summary: string;
  run(args: string[]): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  version: {
    summary: "print the kontroller version",
    async run() {
      const pkg = JSON.parse(
        readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
      ) as { version: string };
      process.stdout.write(`kontroller ${pkg.version}\n`);
      return 0;
    },
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(
    ([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`,
  );
  return `usage: kontroller <command> [options]\n\ncommands:\n${lines.join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`kontroller: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return 2;
  }
  return command.run(args);
}

process.exitCode = await main(process.argv.slice(2));
