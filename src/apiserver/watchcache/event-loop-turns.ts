/**
 * Turns of the event loop, as far as watchers need to tell them apart: {@link current} returns
 * the current one and makes sure it ends at the next `setImmediate` — one for all the watchers
 * that share this counter (a server's), not one per watcher.
 */
export class EventLoopTurns {
  #turn = 0;
  #ending = false;

  /** The current turn, as last counted (without making it end). */
  get turn(): number {
    return this.#turn;
  }

  /** The current turn; it ends at the next `setImmediate`. */
  current(): number {
    if (!this.#ending) {
      this.#ending = true;
      setImmediate(() => {
        this.#turn++;
        this.#ending = false;
      });
    }
    return this.#turn;
  }
}
