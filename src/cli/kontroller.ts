#!/usr/bin/env node
/**
 * The `kontroller` command. Each subcommand is a module in ./commands/ named after it and
 * exporting `command` (see ./command.ts); adding a file adds a command, so no shared table
 * needs editing. `kontroller help` lists them.
 */
import { readdirSync } from "node:fs";
import type { Command } from "./command.ts";

const dir = new URL("./commands/", import.meta.url);

/** Command name → module file, from the sources (.ts) or the build (.js). */
function commandFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const f of readdirSync(dir)) {
    const m = /^([a-z][a-z-]*)\.(ts|js)$/.exec(f);
    if (m !== null && !f.endsWith(".test.ts") && !f.endsWith(".d.ts")) files.set(m[1]!, f);
  }
  return files;
}

async function load(file: string): Promise<Command> {
  return ((await import(new URL(file, dir).href)) as { command: Command }).command;
}

async function usage(files: Map<string, string>): Promise<string> {
  const names = [...files.keys()].sort();
  const width = Math.max(...names.map((n) => n.length));
  const lines: string[] = [];
  for (const n of names) lines.push(`  ${n.padEnd(width)}  ${(await load(files.get(n)!)).summary}`);
  return `usage: kontroller <command> [options]\n\ncommands:\n${lines.join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  const files = commandFiles();
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(await usage(files));
    return name === undefined ? 2 : 0;
  }
  const file = files.get(name);
  if (file === undefined) {
    process.stderr.write(
      `kontroller: unknown command ${JSON.stringify(name)}\n\n${await usage(files)}`,
    );
    return 2;
  }
  return (await load(file)).run(args);
}

process.exitCode = await main(process.argv.slice(2));
