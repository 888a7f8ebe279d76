/**
 * The mapping of the editor: whether the timers' events change lights at all, the gate of
 * all seats and the finish gate, a gate (and an own colour) per RotorHazard seat, and a gate
 * per FPVTrackside timing system — each row with its Test.
 */
import { gateOf, type Draft, type EditDraft, type FieldError, type GateDraft } from './draft.ts';
import { GateRow } from './GateRow.tsx';
import type { RaceLightsView } from './race-lights-data.ts';

/** Flashes a gate once; `key` names the row whose error a refusal shows under. */
export type TestGate = (what: string, body: Record<string, unknown>, key: string) => Promise<void>;
/** What a Test of a row sends: the saved mapping, or what is on screen when edited. */
export type TestBody = (
  saved: Record<string, unknown>,
  g: GateDraft,
  color: string | null,
) => Record<string, unknown>;

export function GatesEditor({
  v,
  draft,
  edit,
  err,
  test,
  testBody,
}: {
  v: RaceLightsView;
  draft: Draft;
  edit: EditDraft;
  err: FieldError;
  test: TestGate;
  testBody: TestBody;
}) {
  const seatColor = (seat: number): string | null =>
    draft.seats[seat]?.color ?? v.seat_colors.find((c) => c.seat === seat)?.color ?? null;
  return (
    <>
      <section class="rl-section" data-testid="rl-mapping">
        <h2>Gates</h2>
        <label class="check">
          <input
            type="checkbox"
            checked={draft.enabled}
            onChange={(e) => edit((d) => (d.enabled = e.currentTarget.checked))}
          />
          React to laps and race phases (off: the timers' events change no light; Test still works)
        </label>
        <div class="rl-rows">
          <GateRow
            label="Gate of all seats (timing line)"
            field="all_seats_gate"
            gate={draft.all_seats_gate}
            none="(none)"
            error={err('all_seats_gate')}
            testError={err('test.all')}
            onGate={(g) => edit((d) => (d.all_seats_gate = g))}
            onTest={() => void test('gate of all seats', { gate: gateOf(draft.all_seats_gate) }, 'all')}
            testDisabled={draft.all_seats_gate.kind === ''}
          />
          <GateRow
            label="Finish gate (the winner's colour)"
            field="finish_gate"
            gate={draft.finish_gate}
            none="(gate of all seats)"
            error={err('finish_gate')}
            testError={err('test.finish')}
            onGate={(g) => edit((d) => (d.finish_gate = g))}
            onTest={() =>
              void test('finish gate', testBody({ finish: true }, draft.finish_gate, null), 'finish')
            }
            testDisabled={draft.finish_gate.kind === '' && draft.all_seats_gate.kind === ''}
          />
        </div>

        <h3>RotorHazard seats</h3>
        <div class="rl-rows" data-testid="rl-seats">
          {draft.seats.map((row, seat) => {
            const color = seatColor(seat);
            const from = row.color ? 'own' : v.seat_colors.find((c) => c.seat === seat)?.from;
            return (
              <GateRow
                key={seat}
                label={`Seat ${seat + 1}`}
                field={`seat.${seat}.gate`}
                gate={row.gate}
                none="(gate of all seats)"
                error={err(`seat.${seat}.gate`)}
                testError={err(`test.seat.${seat}`)}
                onGate={(g) => edit((d) => ((d.seats[seat] as Draft['seats'][number]).gate = g))}
                onTest={() =>
                  void test(
                    `seat ${seat + 1}`,
                    testBody({ seat }, row.gate.kind ? row.gate : draft.all_seats_gate, color),
                    `seat.${seat}`,
                  )
                }
                testDisabled={row.gate.kind === '' && draft.all_seats_gate.kind === ''}
              >
                <span class="rl-colour" data-field={`seat.${seat}.color`}>
                  <label class="check" title="Overrides the seat colour RotorHazard sends">
                    <input
                      type="checkbox"
                      checked={row.color !== null}
                      aria-label={`Seat ${seat + 1}: own colour`}
                      onChange={(e) => {
                        const on = e.currentTarget.checked;
                        edit(
                          (d) =>
                            ((d.seats[seat] as Draft['seats'][number]).color = on
                              ? (color ?? '#ffffff')
                              : null),
                        );
                      }}
                    />
                    own
                  </label>
                  {row.color !== null ? (
                    <input
                      type="color"
                      value={row.color}
                      aria-label={`Seat ${seat + 1}: colour`}
                      onInput={(e) => {
                        const c = e.currentTarget.value;
                        edit((d) => ((d.seats[seat] as Draft['seats'][number]).color = c));
                      }}
                    />
                  ) : (
                    <span
                      class="rl-swatch"
                      role="img"
                      aria-label={`Seat ${seat + 1}: colour ${color ?? 'white'}`}
                      style={{ background: color ?? '#ffffff' }}
                      title={color ?? 'white (no colour known)'}
                    />
                  )}
                  <span class="muted rl-from">
                    {from === 'heat' ? 'heat' : from === 'own' ? '' : 'white'}
                  </span>
                  {err(`seat.${seat}.color`) && (
                    <span class="field-error" role="alert">
                      {err(`seat.${seat}.color`)}
                    </span>
                  )}
                </span>
              </GateRow>
            );
          })}
        </div>

        <h3>FPVTrackside timing systems</h3>
        <p class="muted rl-note">
          Index 0 is the lap loop (without a row: the gate of all seats), 1 … its split gates.
        </p>
        <div class="rl-rows" data-testid="rl-timing-systems">
          {draft.timing_systems.map((row, i) => (
            <GateRow
              key={i}
              label={`Timing system`}
              field={`ts.${i}.gate`}
              gate={row.gate}
              none="(choose)"
              error={err(`ts.${i}.gate`)}
              testError={err(`test.ts.${i}`)}
              onGate={(g) => edit((d) => ((d.timing_systems[i] as Draft['timing_systems'][number]).gate = g))}
              onTest={() =>
                void test(
                  `timing system ${row.index}`,
                  testBody({ timing_system: Number(row.index) }, row.gate, null),
                  `ts.${i}`,
                )
              }
              testDisabled={row.gate.kind === ''}
              lead={
                <span class="rl-index" data-field={`ts.${i}.index`}>
                  <input
                    type="text"
                    inputMode="numeric"
                    size={3}
                    aria-label={`Timing system ${i + 1}: index`}
                    value={row.index}
                    onInput={(e) => {
                      const val = e.currentTarget.value;
                      edit((d) => ((d.timing_systems[i] as Draft['timing_systems'][number]).index = val));
                    }}
                  />
                  {err(`ts.${i}.index`) && (
                    <span class="field-error" role="alert">
                      {err(`ts.${i}.index`)}
                    </span>
                  )}
                </span>
              }
            >
              <button
                type="button"
                class="ghost"
                aria-label={`Remove timing system ${row.index}`}
                onClick={() => edit((d) => d.timing_systems.splice(i, 1))}
              >
                Remove
              </button>
            </GateRow>
          ))}
        </div>
        <button
          type="button"
          onClick={() =>
            edit((d) => {
              const used = new Set(d.timing_systems.map((t) => Number(t.index)));
              let next = 0;
              while (used.has(next)) next++;
              d.timing_systems.push({ index: String(next), gate: { kind: '', value: '' } });
            })
          }
        >
          Add a timing system
        </button>
      </section>
    </>
  );
}
