/**
 * What was seen recently, in two generations: a hit in the older one moves to the newer, and when
 * the newer is full the older is forgotten. Every step is O(1), as a Map's first-entry eviction is
 * not once deletions leave holes at its front.
 */
export class RecentlySeen<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  constructor(private readonly generationSize: number) {}

  get(key: string): V | undefined {
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const older = this.previous.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: string, value: V): void {
    if (this.current.size >= this.generationSize) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }
}
