/**
 * gcOrphaned's nodeQueue: a node some pod names but the node cache lacks is held for the
 * quarantine, in case the cache is only late; once that has passed it is handed out to be looked
 * up in storage. Seen missing again while held, it keeps its first due time, as a delaying
 * queue's AddAfter does.
 */
export class NodeQuarantine {
  private readonly due = new Map<string, number>();

  constructor(private readonly quarantineMs: number) {}

  hold(nodeName: string, nowMs: number): void {
    if (!this.due.has(nodeName)) this.due.set(nodeName, nowMs + this.quarantineMs);
  }

  /** The nodes whose quarantine is over, no longer held. */
  release(nowMs: number): string[] {
    const ready = [...this.due].filter(([, at]) => at <= nowMs).map(([name]) => name);
    for (const name of ready) this.due.delete(name);
    return ready;
  }

  clear(): void {
    this.due.clear();
  }
}
