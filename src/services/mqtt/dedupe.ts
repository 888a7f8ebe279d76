/**
 * "A `…/set` received twice acts once". MQTT delivers QoS 1 at least once: after a lost
 * PUBACK the broker (or the publisher, after its own reconnect) sends the same message again,
 * and the DUP flag does not survive the broker's hop, so it cannot be trusted. The rule:
 *
 * - a command payload identical to the last one acted on for the same topic, within
 *   `windowMs`, is a repeat: it is counted and dropped. Every set is absolute (state,
 *   brightness, colour, effect; no toggle), so acting once is what a repeat means too;
 * - a bridge request carrying a `transaction` already answered within `transactionMs` gets
 *   the same answer again, without acting (a retried Blackout does not go out twice).
 *
 * Retained commands are refused before they get here (bridge.ts): they would act on every
 * reconnect.
 */
export class Repeats {
  private readonly last = new Map<string, { payload: string; at: number }>();
  private readonly answered = new Map<string, { at: number; response: string }>();

  constructor(
    private readonly now: () => number,
    private readonly windowMs = 2000,
    private readonly transactionMs = 60_000,
  ) {}

  /** True when this set repeats the last one on its topic (then it is not acted on). */
  repeatOfSet(topic: string, payload: string): boolean {
    const t = this.now();
    const l = this.last.get(topic);
    if (l && l.payload === payload && t - l.at < this.windowMs) return true;
    this.last.set(topic, { payload, at: t });
    this.prune(t);
    return false;
  }

  /** A request's answer already given for this transaction, or null. */
  answer(topic: string, transaction: string): string | null {
    const a = this.answered.get(`${topic}\n${transaction}`);
    return a && this.now() - a.at < this.transactionMs ? a.response : null;
  }

  remember(topic: string, transaction: string, response: string): void {
    this.answered.set(`${topic}\n${transaction}`, { at: this.now(), response });
  }

  /** Old entries go, so a long session's memory stays the size of its recent traffic. */
  private prune(t: number): void {
    if (this.last.size < 1024 && this.answered.size < 1024) return;
    for (const [k, v] of this.last) if (t - v.at >= this.windowMs) this.last.delete(k);
    for (const [k, v] of this.answered) if (t - v.at >= this.transactionMs) this.answered.delete(k);
  }
}
