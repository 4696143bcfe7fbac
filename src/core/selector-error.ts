/**
 * A label or field selector that does not parse. `position` is the 0-based offset in `selector`
 * where the problem is; the message shows it with a caret. The API server answers 400 BadRequest
 * with this message.
 */
export class SelectorError extends Error {
  readonly selector: string;
  readonly position: number;

  constructor(kind: "label" | "field", selector: string, position: number, problem: string) {
    super(
      `invalid ${kind} selector ${JSON.stringify(selector)}: ${problem} at position ${position}\n` +
        `  ${selector}\n  ${" ".repeat(position)}^`,
    );
    this.name = "SelectorError";
    this.selector = selector;
    this.position = position;
  }
}
