/**
 * A minimal Socket.IO v5 client over Engine.IO v4 HTTP long-polling: enough to drive
 * RotorHazard as its own pages do (emit `stage_race`, `set_config`, `load_data` …) and to
 * wait for the events it answers with. Packets in one poll are separated by \x1e.
 */
type Listener = (data: unknown) => void;

export class SocketIoClient {
  private sid = '';
  private closed = false;
  private readonly listeners = new Map<string, Set<Listener>>();
  private polling: Promise<void> | null = null;

  private constructor(private readonly base: string) {}

  static async connect(base: string): Promise<SocketIoClient> {
    const c = new SocketIoClient(base);
    const open = await (await fetch(`${base}/socket.io/?EIO=4&transport=polling`)).text();
    if (!open.startsWith('0')) throw new Error(`engine.io open expected, got ${open.slice(0, 40)}`);
    c.sid = (JSON.parse(open.slice(1)) as { sid: string }).sid;
    const connected = c.wait('__connect');
    await c.send('40');
    c.polling = c.pollLoop();
    await connected;
    return c;
  }

  private url(): string {
    return `${this.base}/socket.io/?EIO=4&transport=polling&sid=${this.sid}`;
  }

  private async send(packet: string): Promise<void> {
    const r = await fetch(this.url(), {
      method: 'POST',
      body: packet,
      headers: { 'content-type': 'text/plain' },
    });
    await r.text();
    if (!r.ok) throw new Error(`socket.io POST ${r.status}`);
  }

  private async pollLoop(): Promise<void> {
    while (!this.closed) {
      let body: string;
      try {
        const r = await fetch(this.url());
        body = await r.text();
        if (!r.ok) throw new Error(`poll ${r.status}`);
      } catch (err) {
        if (!this.closed) this.fire('__error', err);
        return;
      }
      try {
        for (const p of body.split('\x1e')) await this.onPacket(p);
      } catch (err) {
        // A pong that meets RotorHazard shutting down: the same end as a failed poll.
        if (!this.closed) this.fire('__error', err);
        return;
      }
    }
  }

  private async onPacket(p: string): Promise<void> {
    if (p === '2') return this.send('3'); // engine.io ping → pong
    if (p.startsWith('40')) return this.fire('__connect', null);
    if (p.startsWith('42')) {
      const [name, data] = JSON.parse(p.slice(2)) as [string, unknown];
      this.fire(name, data);
    }
  }

  private fire(name: string, data: unknown): void {
    for (const l of this.listeners.get(name) ?? []) l(data);
  }

  on(name: string, fn: Listener): () => void {
    const set = this.listeners.get(name) ?? new Set<Listener>();
    set.add(fn);
    this.listeners.set(name, set);
    return () => set.delete(fn);
  }

  /** Resolves with the next `name` event whose data satisfies `pred`. */
  wait<T = unknown>(name: string, pred: (d: T) => boolean = () => true, timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`socket.io: no ${name} within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on(name, (d) => {
        if (!pred(d as T)) return;
        clearTimeout(timer);
        off();
        resolve(d as T);
      });
    });
  }

  emit(name: string, data?: unknown): Promise<void> {
    return this.send(`42${JSON.stringify(data === undefined ? [name] : [name, data])}`);
  }

  /**
   * An event carrying one binary attachment in `data[key]` (a socket.io BINARY_EVENT: the
   * JSON names a placeholder, the bytes follow as their own packet, base64 over polling),
   * as RotorHazard's plugin page uploads a zip.
   */
  emitBinary(name: string, data: Record<string, unknown>, key: string, bytes: Buffer): Promise<void> {
    const withPlaceholder = { ...data, [key]: { _placeholder: true, num: 0 } };
    return this.send(`451-${JSON.stringify([name, withPlaceholder])}\x1eb${bytes.toString('base64')}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.send('41');
    } catch {
      /* already gone */
    }
    await this.polling?.catch(() => {});
  }
}
