import type { IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from "etcd3";
import type { Backoff, CancelTimer, Clock } from "../../core/index.ts";

/** Opens one bidirectional etcd watch stream. */
export type OpenWatchStream = () => Promise<IDuplexStream<IWatchRequest, IWatchResponse>>;

/** Options of {@link EtcdWatchStream}. */
export interface EtcdWatchStreamOptions {
  readonly open: OpenWatchStream;
  /** The key range every subscription watches (`key`, `range_end` of etcd's watch). */
  readonly key: Buffer;
  readonly rangeEnd: Buffer;
  readonly clock: Clock;
  /** Delays between reconnection attempts. */
  readonly backoff: Backoff;
  /** Told of each failure of the stream. */
  readonly onError?: (err: unknown) => void;
}

/** What a subscription is told. */
export interface WatchSubscriber {
  /**
   * The events (none: progress) of one watch response; every change with revision ≤
   * `revision` has now been delivered.
   */
  batch(revision: number, events: readonly IEvent[]): void;
  /** The subscription's next revision has been compacted away; it is over. */
  compacted(compactRevision: number): void;
}

/** One etcd watcher on the shared stream. */
export interface WatchSubscription {
  /** The revision the subscription resumes from: one past everything delivered. */
  readonly next: number;
  /** Stops it. Idempotent. */
  cancel(): void;
}

interface Sub extends WatchSubscription {
  next: number;
  readonly id: number;
  readonly subscriber: WatchSubscriber;
}

type Stream = IDuplexStream<IWatchRequest, IWatchResponse>;

/**
 * Etcd watchers over one gRPC stream that outlives etcd: when the stream fails (etcd down,
 * restarting, unreachable) it is reopened with backoff and every subscription is re-created
 * from the revision after the last one it was given, so a subscriber sees every change once,
 * in revision order, across outages — or learns that its next revision was compacted.
 *
 * Invariants:
 * - `#subs` holds the live subscriptions by watch id (ids are chosen here, so responses are
 *   matched without relying on the order of creation); a cancelled one is never called again.
 * - `sub.next` only grows: it is the header revision of the last response delivered, plus one.
 *   A `created` response moves nothing: for a watcher catching up on history, the header
 *   revision is ahead of the events still to come.
 * - At most one stream is open or being opened; responses of an abandoned stream are ignored.
 */
export class EtcdWatchStream {
  readonly #o: EtcdWatchStreamOptions;
  readonly #subs = new Map<number, Sub>();
  #nextId = 1;
  #stream: Stream | undefined;
  #opening = false;
  #retry: CancelTimer | undefined;
  #closed = false;

  constructor(options: EtcdWatchStreamOptions) {
    this.#o = options;
  }

  /** Watches the range from revision `from` on; opens the stream if it is not open. */
  subscribe(from: number, subscriber: WatchSubscriber): WatchSubscription {
    const id = this.#nextId++;
    const sub: Sub = {
      id,
      next: from,
      subscriber,
      cancel: () => this.#cancel(sub),
    };
    if (this.#closed) return sub;
    this.#subs.set(id, sub);
    if (this.#stream !== undefined) this.#create(this.#stream, sub);
    else this.#open();
    return sub;
  }

  /** Number of live subscriptions. */
  get size(): number {
    return this.#subs.size;
  }

  /** Ends every subscription and the stream. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#retry?.();
    this.#subs.clear();
    this.#drop();
  }

  #cancel(sub: Sub): void {
    if (this.#subs.get(sub.id) !== sub) return;
    this.#subs.delete(sub.id);
    const stream = this.#stream;
    if (stream === undefined) return;
    if (this.#subs.size === 0) this.#drop();
    else stream.write({ cancel_request: { watch_id: sub.id } });
  }

  #create(stream: Stream, sub: Sub): void {
    stream.write({
      create_request: {
        key: this.#o.key,
        range_end: this.#o.rangeEnd,
        start_revision: sub.next,
        prev_kv: true,
        watch_id: sub.id,
      },
    });
  }

  #open(): void {
    if (this.#closed || this.#opening || this.#stream !== undefined || this.#subs.size === 0)
      return;
    this.#opening = true;
    this.#o.open().then(
      (stream) => {
        this.#opening = false;
        if (this.#closed || this.#subs.size === 0) {
          stream.on("error", () => {}); // the cancellation itself
          stream.cancel();
          return;
        }
        this.#stream = stream;
        stream.on("data", (res) => {
          if (this.#stream === stream) this.#receive(res);
        });
        stream.on("error", (err) => {
          if (this.#stream === stream) this.#fail(err);
        });
        stream.on("end", () => {
          if (this.#stream === stream) this.#fail(new Error("etcd ended the watch stream"));
        });
        for (const sub of this.#subs.values()) this.#create(stream, sub);
      },
      (err: unknown) => {
        this.#opening = false;
        this.#fail(err);
      },
    );
  }

  #receive(res: IWatchResponse): void {
    const id = Number(res.watch_id);
    const sub = this.#subs.get(id);
    if (sub === undefined) return;
    this.#o.backoff.reset();
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      if (compacted > 0) {
        this.#subs.delete(id);
        sub.subscriber.compacted(compacted);
        return;
      }
      this.#fail(new Error(`etcd cancelled watch ${id}: ${res.cancel_reason || "no reason"}`));
      return;
    }
    if (res.created) return;
    const revision = Number(res.header.revision);
    if (revision + 1 > sub.next) sub.next = revision + 1;
    sub.subscriber.batch(revision, res.events);
  }

  /** Abandons the stream and, while subscriptions remain, reopens it after a backoff delay. */
  #fail(err: unknown): void {
    this.#drop();
    if (this.#closed || this.#subs.size === 0) return;
    this.#o.onError?.(err);
    this.#retry?.();
    const delay = this.#o.backoff.next(this.#o.clock.now());
    this.#retry = this.#o.clock.setTimer(delay, () => {
      this.#retry = undefined;
      this.#open();
    });
  }

  #drop(): void {
    const stream = this.#stream;
    this.#stream = undefined;
    if (stream === undefined) return;
    try {
      stream.cancel();
    } catch {
      // already broken
    }
  }
}
