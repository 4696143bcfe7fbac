/**
 * Core data structures against the obvious JavaScript alternative, in the same run:
 * RingBuffer as a FIFO against Array push/shift, and Heap against a sorted array.
 */
// The heap and ring buffer are internal to the package (not published), so this benchmark of
// them imports core's internal module from the sources, as the layers do.
import { Heap, RingBuffer } from "../src/core/internal.ts";
import { type Suite, timed } from "./harness.ts";

export const suite: Suite = {
  name: "core",
  description: "RingBuffer vs Array.shift as a FIFO; Heap vs sorted-array insertion",
  async run(ctx) {
    const n = ctx.quick ? 20_000 : 200_000;
    // Keep a standing backlog of n items and churn through 4n more: Array.shift is O(n) per call.
    await ctx.compare("fifo-churn", {
      kontroller: async () => {
        const { ms } = await timed(() => {
          const q = new RingBuffer<number>();
          for (let i = 0; i < n; i++) q.push(i);
          for (let i = 0; i < 4 * n; i++) {
            q.push(i);
            q.shift();
          }
        });
        return { ops_per_s: { value: (4 * n) / (ms / 1000), unit: "ops/s" } };
      },
      array: async () => {
        const { ms } = await timed(() => {
          const q: number[] = [];
          for (let i = 0; i < n; i++) q.push(i);
          for (let i = 0; i < 4 * n; i++) {
            q.push(i);
            q.shift();
          }
        });
        return { ops_per_s: { value: (4 * n) / (ms / 1000), unit: "ops/s" } };
      },
    });
    const m = ctx.quick ? 5_000 : 50_000;
    const keys = Array.from({ length: m }, (_, i) => (i * 7919) % m);
    await ctx.compare("priority-push-pop", {
      kontroller: async () => {
        const { ms } = await timed(() => {
          const h = new Heap<number>((a, b) => a < b);
          for (const k of keys) h.push(k);
          while (h.size > 0) h.pop();
        });
        return { ops_per_s: { value: (2 * m) / (ms / 1000), unit: "ops/s" } };
      },
      "sorted-array": async () => {
        const { ms } = await timed(() => {
          const a: number[] = [];
          for (const k of keys) {
            let lo = 0;
            let hi = a.length;
            while (lo < hi) {
              const mid = (lo + hi) >> 1;
              if (a[mid]! < k) lo = mid + 1;
              else hi = mid;
            }
            a.splice(lo, 0, k);
          }
          while (a.length > 0) a.shift();
        });
        return { ops_per_s: { value: (2 * m) / (ms / 1000), unit: "ops/s" } };
      },
    });
  },
};
