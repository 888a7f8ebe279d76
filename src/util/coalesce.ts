/**
 * Latest value wins, one at a time: a fader on a surface sends dozens of values a second
 * for the same group, and only the last one matters. Jobs are keyed by what they change
 * (a group); while one job is on its way, a newer job for the same key replaces the one
 * waiting (the replaced one resolves as `superseded`), and jobs for other keys queue in
 * arrival order. So a source (OSC, MQTT) holds at most one frame of the radio's queue: a flood
 * never builds a backlog ahead of Blackout, the flags or the race's own looks.
 */
export class Coalescer<R> {
  private readonly waiting = new Map<
    string,
    { job: () => Promise<R>; done: (r: R | 'superseded') => void; fail: (err: unknown) => void }
  >();
  private busy = false;
  private superseded = 0;

  submit(key: string, job: () => Promise<R>): Promise<R | 'superseded'> {
    return new Promise((done, fail) => {
      const before = this.waiting.get(key);
      if (before) {
        this.superseded++;
        before.done('superseded');
        this.waiting.delete(key); // re-queued last: its place follows the newest value
      }
      this.waiting.set(key, { job, done, fail });
      this.next();
    });
  }

  /** Jobs replaced by a newer one for the same key, so far. */
  supersededCount(): number {
    return this.superseded;
  }

  private next(): void {
    if (this.busy) return;
    const first = this.waiting.entries().next();
    if (first.done) return;
    const [key, entry] = first.value;
    this.waiting.delete(key);
    this.busy = true;
    entry
      .job()
      // A job that throws fails its caller; the queue goes on either way.
      .then(entry.done, entry.fail)
      .finally(() => {
        this.busy = false;
        this.next();
      });
  }
}
