/**
 * kontroller/core's internal entry: the data structures the layers build on (a binary heap, a
 * ring buffer), for the layers of this package only. package.json's "exports" does not publish
 * it, so they are not public API and may change with any release; the layer linter lets a layer
 * import core through this module or through index.ts, and nothing else of core.
 */
export { Heap, type HeapNode } from "./heap.ts";
export { RingBuffer, type RingBufferOptions } from "./ring-buffer.ts";
