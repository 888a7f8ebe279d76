/**
 * Several consoles on one universe (a main desk and a backup, a console and a media server):
 * each source's last frame is kept, and the merged frame is what the highest sACN priority
 * among the sources heard in the last 2.5 s says (E1.31's network data loss time). Sources
 * tied at the top priority are merged HTP: each channel takes the highest value. Art-Net has
 * no priority: its sources all count as 100 (sACN's default), so two Art-Net desks merge HTP
 * as Art-Net nodes do.
 */
export const SOURCE_LOSS_MS = 2500;

export interface SourceFrame {
  /** The sACN CID (hex), or the Art-Net sender's address:port. */
  id: string;
  name: string;
  priority: number;
  values: Uint8Array;
  at: number;
}

export interface Merged {
  values: Uint8Array;
  /** The sources that make the merged frame (the top priority), highest-named first. */
  winners: SourceFrame[];
}

export class SourceMerge {
  private readonly sources = new Map<string, SourceFrame>();

  /** A source's frame; a terminated stream (sACN's Stream_Terminated) forgets its source at once. */
  put(f: SourceFrame): void {
    this.sources.set(f.id, f);
  }

  drop(id: string): void {
    this.sources.delete(id);
  }

  /** The merged frame now, or null when no source is live. Lost sources are forgotten. */
  merged(now: number): Merged | null {
    let top = -1;
    for (const [id, s] of this.sources) {
      if (now - s.at > SOURCE_LOSS_MS) this.sources.delete(id);
      else if (s.priority > top) top = s.priority;
    }
    if (top < 0) return null;
    const winners = [...this.sources.values()].filter((s) => s.priority === top);
    const first = winners[0] as SourceFrame;
    if (winners.length === 1) return { values: first.values, winners };
    const values = new Uint8Array(512);
    for (const w of winners)
      for (let i = 0; i < w.values.length; i++) values[i] = Math.max(values[i] ?? 0, w.values[i] ?? 0);
    return { values, winners };
  }

  /** The sources heard within the loss time at `now` (a stopped console is not live). */
  live(now: number): number {
    let n = 0;
    for (const s of this.sources.values()) if (now - s.at <= SOURCE_LOSS_MS) n++;
    return n;
  }
}
