/**
 * Hands out Services' cluster IPs: 10.96.0.1, 10.96.0.2, … in order within 10.96.0.0/16,
 * never reusing one. One per server (its registry owns it), so two servers in one process
 * allocate independently. Not done: releasing the IP of a deleted Service, IPs a client set.
 */
export class ClusterIpAllocator {
  #next = 1;

  /** The next free cluster IP. */
  allocate(): string {
    const n = this.#next++;
    return `10.96.${(n >> 8) & 255}.${n & 255}`;
  }
}
