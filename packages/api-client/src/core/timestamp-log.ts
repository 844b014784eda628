// A sliding window's timestamps, oldest first: the one home of the bookkeeping shared by the client's
// pacing (answer times) and the simulator's gateway rate limiter (allowed request times). Pure: it is
// told `now`, it never reads a clock.

/** Past this many dropped entries (and more than half the array), the array is compacted. */
const COMPACT_AFTER = 1024;

export class TimestampLog {
  private times: number[] = [];
  private head = 0;

  /** Drops the timestamps `t` with `t + windowMs ≤ now` (their slot is free again). */
  prune(now: number, windowMs: number): void {
    const times = this.times;
    let head = this.head;
    while (head < times.length && times[head]! + windowMs <= now) head++;
    if (head > COMPACT_AFTER && head * 2 > times.length) {
      this.times = times.slice(head);
      head = 0;
    }
    this.head = head;
  }

  /** How many timestamps are still counted. */
  get size(): number {
    return this.times.length - this.head;
  }

  /** The `index`-th oldest timestamp still counted (0 = the oldest). */
  at(index: number): number {
    return this.times[this.head + index]!;
  }

  /** Adds `time`, kept in order even when a clock step puts it before the newest one. */
  add(time: number): void {
    const times = this.times;
    let i = times.length;
    while (i > this.head && times[i - 1]! > time) i--;
    if (i === times.length) times.push(time);
    else times.splice(i, 0, time);
  }
}
