/**
 * The Race lights page in the browser, on the simulator: a pass pushed by the FPVTrackside
 * test sender shows up live (source state, pass counter, last flash) without a reload; a
 * seat mapped to a group that does not exist is refused with the error next to that seat's
 * gate; the fixed mapping saves (on the host); Test flashes the seat's gate. Screenshots at
 * 1280 and 390 px (into /tmp/shots-racepage), Blackout reachable at both widths. The leftovers of
 * the newcomer walk: a flash on a group shows the group's name, colour swatches are ringed
 * chips, wider than tall (a white square beside the "own" checkbox read as a second checkbox), the
 * save bar stays on screen at 390 px while the page scrolls, and the pass counters start
 * again when a race stages (the heading says since when). A second walk: gates pick groups
 * and devices by name; a gate of kind Group or Device with none chosen is said in words
 * ("Choose a group for 'Gate of all seats'") and not sent; a group deleted since it was chosen
 * is refused by the host beside that row; at 390 px the resting save bar covers no control.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHost } from '../integration/harness.ts';
import { discoverAll } from '../integration/host/helpers.ts';
import { FpvTracksideSender } from '../fpvtrackside/sender.ts';
import { coveredByBlackout } from './blackout-rect.ts';
import { openBrowser, type BrowserHandle } from './browser.ts';

const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots-racepage';
const STARTBLOCK = [50, 51];
const SECRET = 'rotorhazard-e2e-secret-0123456789';

let b: BrowserHandle;
beforeAll(async () => {
  b = await openBrowser({ width: 1280, height: 800 });
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await b?.close();
});

type Page = BrowserHandle['page'];
/** Every scrolling box back to its top (on a phone the app box scrolls, not the page). */
const TO_TOP = `for (const el of [document.scrollingElement, ...document.querySelectorAll('*')])
  if (el.scrollTop > 0) el.scrollTop = 0;`;
type Locator = ReturnType<Page['locator']>;

/** Until the element's text contains (or matches) `want`: the page updates on its own. */
const shows = (loc: Locator, want: string | RegExp, what = String(want)) =>
  expect
    .poll(async () => (await loc.textContent({ timeout: 20_000 })) ?? '', { message: what, timeout: 20_000 })
    .toMatch(want);
const frames = (page: Page) =>
  page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

async function shots(page: Page, name: string): Promise<void> {
  for (const [w, hgt] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width: w, height: hgt });
    await frames(page);
    await page.evaluate(TO_TOP);
    await frames(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${w}.png`, fullPage: false });
    // The mapping and the phase looks further down the page, too.
    for (const part of ['rl-mapping', 'rl-phases'] as const) {
      await page.getByTestId(part).scrollIntoViewIfNeeded();
      await frames(page);
      await page.screenshot({ path: `${SHOTS}/${name}-${w}-${part}.png`, fullPage: false });
    }
    // Blackout stays reachable and covers nothing on this page.
    const box = await page.getByTestId('blackout').boundingBox();
    expect(box, `Blackout on screen at ${w} px`).not.toBeNull();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= w, `Blackout within ${w} px`).toBe(
      true,
    );
    expect(await coveredByBlackout(page, 'blackout'), `${name} at ${w} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const detection = (index: number, id: number) => ({
  detectionId: `5b0c7e2a-9d41-4f3b-8a6e-${String(id).padStart(12, '0')}`,
  round: 1,
  race: 3,
  pilotName: 'Kestrel',
  channel: { band: 'Raceband', number: 1, frequency: 5658, colorR: 255, colorG: 200, colorB: 0 },
  timingSystemIndex: index,
  isLapEnd: index === 0,
  lapNumber: 2,
  sectorIndex: index + 1,
  raceSector: 200 + index,
  raceTime: 26.5,
  sectorTime: 6.8,
  lapTimeSoFar: 14.4,
  position: 1,
  valid: true,
});

describe('race lights page', () => {
  it('shows-a-pass-live-refuses-an-unknown-group-next-to-the-field-saves-and-tests-a-gate', async () => {
    await withHost({ nodes: 3, seed: 4, integrationSecret: SECRET }, async (h) => {
      await discoverAll(h);
      const led = (h.host.sim?.fleet.nodes ?? []).find((n) => !STARTBLOCK.includes(n.devType));
      expect(led).toBeDefined();
      const gate = led?.addr as string;
      // Named groups, made before the page loads: the gate pickers offer them by name.
      const startGate = await h.post<{ id: number }>('/api/groups/create', { name: 'Start Gate' });
      const arch = await h.post<{ id: number }>('/api/groups/create', { name: 'Temporary arch' });
      expect([startGate.status, arch.status]).toEqual([200, 200]);
      const page = b.page;
      await page.goto(h.url + '/race-lights');
      await page.getByRole('heading', { name: 'Race lights', level: 1 }).waitFor();
      // The nav entry leads here too.
      const navLink = page
        .getByRole('navigation', { name: 'Pages' })
        .getByRole('link', { name: 'Race lights' });
      expect(await navLink.getAttribute('aria-current')).toBe('page');
      await shots(page, 'race-lights-top');
      // At 390 px with nothing unsaved, the save bar covers no control: the FPVTrackside
      // card's "New token…" button is the one under it at the top of the page.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.evaluate(TO_TOP);
      await frames(page);
      const newToken = page.getByRole('button', { name: 'New token…' });
      await newToken.scrollIntoViewIfNeeded();
      await frames(page);
      await page.screenshot({ path: `${SHOTS}/race-lights-rest-390-new-token.png` });
      expect(
        await newToken.evaluate((el: unknown) => {
          type El = { getBoundingClientRect(): { x: number; y: number; width: number; height: number } };
          type Doc = { elementFromPoint(x: number, y: number): { closest(s: string): unknown } | null };
          const r = (el as El).getBoundingClientRect();
          const doc = (globalThis as unknown as { document: Doc }).document;
          const hit = doc.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return hit?.closest('button') === el;
        }),
        'New token… is not under the save bar at 390 px',
      ).toBe(true);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.evaluate(TO_TOP);
      const fpvCard = page.getByTestId('rl-src-fpvtrackside');
      await shows(fpvCard, 'not connected');
      const url = await page.getByTestId('rl-fpv-url').inputValue();
      expect(url).toMatch(/\/lightnet\/api\/timers\/fpvtrackside\?token=.{16,}/);

      // FPVTrackside (the test sender, with the URL the page shows) sends a pass.
      const sender = new FpvTracksideSender(url);
      sender.start();
      sender.send('DetectionExt', detection(1, 1));
      await sender.idle();
      await shows(fpvCard, 'FPVTrackside connected');
      await shows(page.getByTestId('rl-src-fpvtrackside-last'), 'DetectionExt');
      await shows(page.getByTestId('rl-pass-ts-1'), '1');
      const live = page.getByTestId('rl-live');
      await shows(live, 'Timing system 1');

      // RotorHazard's plugin reports a lap for seat 3 (node 3): its card and counter follow.
      const lap = await fetch(h.url + '/api/integration/laps', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-lightnet-integration': SECRET },
        body: JSON.stringify({ seat: 2, lap_number: 4, color: '#00ff00' }),
      });
      expect(lap.status).toBe(202);
      await shows(page.getByTestId('rl-src-rotorhazard'), 'RotorHazard connected');
      await shows(page.getByTestId('rl-src-rotorhazard-last'), 'lap (seat 3 lap 4)');
      await shows(page.getByTestId('rl-pass-seat-2'), /Seat 3\s*1\s*4/);

      // Group with nothing chosen: said in words beside the row, nothing sent to the host.
      const allSeats = page.locator('[data-field="all_seats_gate"]');
      await allSeats.getByLabel('Gate of all seats (timing line): kind').selectOption('group');
      const groupSelect = allSeats.getByLabel('Gate of all seats (timing line): group');
      // The groups by name (number shown small), not a number to know by heart.
      expect(await groupSelect.locator('option').allTextContents()).toEqual(
        expect.arrayContaining([`Start Gate #${startGate.body.id}`, `Temporary arch #${arch.body.id}`]),
      );
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await shows(page.getByTestId('rl-form-error'), "Not saved — Choose a group for 'Gate of all seats'");
      await shows(allSeats.locator('.field-error'), /^Choose a group for 'Gate of all seats'$/);
      // A device gate with none chosen says so too.
      const seat2 = page.locator('[data-field="seat.1.gate"]');
      await seat2.getByLabel('Seat 2: kind').selectOption('device');
      expect(await seat2.getByLabel('Seat 2: device').locator('option').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining(gate)]),
      );
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await shows(page.getByTestId('rl-form-error'), /Choose a group for 'Gate of all seats' \(and 1 more\)/);
      await shows(seat2.locator('.field-error'), /^Choose a device for 'Seat 2'$/);
      await shots(page, 'race-lights-choose');
      // At 390 px the device choice (a name and an address) stays within the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await seat2.getByLabel('Seat 2: device').scrollIntoViewIfNeeded();
      await frames(page);
      const choice = await seat2.getByLabel('Seat 2: device').boundingBox();
      expect((choice?.x ?? 0) + (choice?.width ?? 999), JSON.stringify(choice)).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1280, height: 800 });
      await groupSelect.selectOption({ label: `Start Gate #${startGate.body.id}` });

      // A seat on a group deleted since it was chosen: the host refuses it, beside that seat's gate.
      await seat2.getByLabel('Seat 2: kind').selectOption('group');
      await seat2.getByLabel('Seat 2: group').selectOption({ label: `Temporary arch #${arch.body.id}` });
      expect((await h.post('/api/groups/delete', { id: arch.body.id })).status).toBe(200);
      await shows(seat2.getByLabel('Seat 2: group'), `#${arch.body.id} (unknown)`);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await shows(seat2.locator('.field-error'), new RegExp(`^no group ${arch.body.id}$`));
      await shows(page.getByTestId('rl-form-error'), `Seat 2 gate: no group ${arch.body.id}`);
      await shots(page, 'race-lights-error');
      expect(
        (await h.get<{ settings: { seats: unknown[] } }>('/api/race-lights')).body.settings.seats,
      ).toEqual([]);

      // Fixed: the seat's own device; saved on the host.
      await seat2.getByLabel('Seat 2: kind').selectOption('device');
      await seat2.getByLabel('Seat 2: device').selectOption(gate);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await shows(page.getByTestId('rl-savebar'), 'Saved on the host');
      expect(await seat2.locator('.field-error').count()).toBe(0);
      const saved = await h.get<{ settings: { seats: { seat: number; gate: unknown }[] } }>(
        '/api/race-lights',
      );
      expect(saved.body.settings.seats).toEqual([
        { seat: 1, gate: { kind: 'device', value: gate }, color: null },
      ]);
      expect((saved.body.settings as unknown as { all_seats_gate: unknown }).all_seats_gate).toEqual({
        kind: 'group',
        value: startGate.body.id,
      });

      // Test: the seat's gate flashes (white: no colour known for the seat), live in the list.
      await seat2.getByRole('button', { name: 'Test Seat 2' }).click();
      await expect
        .poll(() => led?.snapshot().bri, { message: 'the gate flashes', timeout: 20_000 })
        .toBe(255);
      await shows(page.getByTestId('rl-flashes'), new RegExp(`Test\\s+→ device ${gate}`));
      await shots(page, 'race-lights');
      // The phase looks are listed from the settings (each with its look).
      const phases = page.getByTestId('rl-phases');
      for (const p of ['Staging', 'Start', 'Stop', 'Crash out']) await shows(phases, p);
      // A flash on a group: the group's name, not only its number, in the last flashes.
      const grp = await h.post<{ id: number }>('/api/groups/create', { name: 'Finish arch' });
      expect(grp.status).toBe(200);
      const t = await fetch(h.url + '/api/race-lights/test', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: new URL(h.url).origin },
        body: JSON.stringify({ gate: { kind: 'group', value: grp.body.id }, color: '#ffffff' }),
      });
      expect(t.status).toBe(202);
      await shows(
        page.getByTestId('rl-flashes'),
        new RegExp(`Test\\s+→ Finish arch \\(group ${grp.body.id}\\)`),
      );

      // Swatches are ringed colour chips, wider than tall — not squares like the checkbox beside them.
      const swatch = page.getByRole('img', { name: 'Seat 1: colour white' });
      type Styles = { getComputedStyle(e: unknown): { boxShadow: string } };
      const look = await swatch.evaluate((el: unknown) => {
        const cs = (globalThis as unknown as Styles).getComputedStyle(el);
        return [cs.boxShadow];
      });
      const chip = await swatch.boundingBox();
      expect((chip?.width ?? 0) > 1.5 * (chip?.height ?? 0), JSON.stringify(chip)).toBe(true);
      expect(look[0]).toMatch(/rgb.*2px/);

      // An edit at 390 px: the save bar is on screen (above the Blackout band) at the top
      // of the page and at its end, not only once scrolled to the bottom.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByLabel('Seat 1: kind').selectOption('broadcast');
      const bar = page.getByTestId('rl-savebar');
      await shows(bar, 'Unsaved changes');
      for (const where of ['top', 'mapping'] as const) {
        if (where === 'top') await page.evaluate(TO_TOP);
        else await page.getByTestId('rl-mapping').scrollIntoViewIfNeeded();
        await frames(page);
        const box = await bar.boundingBox();
        const band = await page.getByTestId('blackout').boundingBox();
        expect(box, `save bar at the ${where}`).not.toBeNull();
        expect(
          (box?.y ?? 0) >= 0 && (box?.y ?? 0) + (box?.height ?? 0) <= (band?.y ?? 844) + 0.5,
          `save bar on screen above Blackout at the ${where}: ${JSON.stringify(box)} band ${JSON.stringify(band)}`,
        ).toBe(true);
        await page.screenshot({ path: `${SHOTS}/race-lights-dirty-390-${where}.png` });
      }
      await page.getByRole('button', { name: 'Discard' }).click();
      await page.setViewportSize({ width: 1280, height: 800 });

      // A race stages: the counters start again and say so.
      await shows(page.getByTestId('rl-passes-since'), 'since the host started');
      const stage = await fetch(h.url + '/api/integration/race/phase', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-lightnet-integration': SECRET },
        body: JSON.stringify({ phase: 'stage' }),
      });
      expect(stage.status).toBe(202);
      await shows(page.getByTestId('rl-passes-since'), 'Passes this race');
      await shows(page.getByTestId('rl-live'), 'No lap yet.');
      await fetch(h.url + '/api/integration/laps', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-lightnet-integration': SECRET },
        body: JSON.stringify({ seat: 2, lap_number: 1, color: '#00ff00' }),
      });
      await shows(page.getByTestId('rl-pass-seat-2'), /Seat 3\s*1\s*1/);
      await shots(page, 'race-lights-race');

      // The one 400 is the refused save above (the browser logs every 4xx).
      expect(b.errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
      expect(b.errorToasts).toEqual([]);
    });
  });
});
