/** One subcommand of `kontroller`: a file in src/cli/commands/ exporting `command`. */
export interface Command {
  /** One line for `kontroller help`. */
  summary: string;
  /** Runs with the arguments after the command name; resolves to the exit code. */
  run(args: string[]): Promise<number>;
}
