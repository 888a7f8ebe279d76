import { describe, expect, it } from 'vitest';
import { decidePorts, type PortWatchInput, type SeenPort } from '../../../src/transport/port-watch.ts';

const port = (path: string, real = path): SeenPort => ({ path, real });
const byId = (name: string, node: string): SeenPort => port(`/dev/serial/by-id/${name}`, `/dev/${node}`);

const base = (over: Partial<PortWatchInput>): PortWatchInput => ({
  before: new Set(),
  after: [],
  owned: [],
  deferred: [],
  active: true,
  armed: false,
  ...over,
});

describe('which ports the hot-plug watcher may open', () => {
  it('probes a free port that appeared, never one that was already there', () => {
    const d = decidePorts(
      base({
        before: new Set(['/dev/ttyUSB0']),
        after: [byId('other-device', 'ttyUSB0'), byId('gw-b', 'ttyUSB1')],
      }),
    );
    expect(d.probe).toEqual(['/dev/serial/by-id/gw-b']);
    expect(d.retry).toEqual([]);
    expect([...d.seen].sort()).toEqual(['/dev/ttyUSB0', '/dev/ttyUSB1']);
  });

  it('takes the first listing as the baseline: nothing in it is probed', () => {
    const d = decidePorts(base({ before: null, after: [port('/dev/ttyUSB0'), port('/dev/ttyACM0')] }));
    expect(d.probe).toEqual([]);
    expect(d.seen.has('/dev/ttyACM0')).toBe(true);
  });

  it('does nothing while every gateway is attached', () => {
    const d = decidePorts(base({ active: false, before: new Set(), after: [port('/dev/ttyUSB3')] }));
    expect(d).toMatchObject({ probe: [], retry: [], defer: [] });
  });

  it('never probes a port a driver owns, by name or by the node it resolves to', () => {
    const d = decidePorts(
      base({
        after: [byId('gw-a', 'ttyUSB0'), port('/dev/ttyUSB1')],
        owned: [
          { path: '/dev/ttyUSB0', real: '/dev/ttyUSB0', down: false },
          { path: '/dev/ttyUSB1', real: '/dev/ttyUSB1', down: false },
        ],
      }),
    );
    expect(d.probe).toEqual([]);
    expect(d.retry).toEqual([]);
  });

  it('makes a reconnecting driver retry when its own port appears again (by its name)', () => {
    const d = decidePorts(
      base({
        before: new Set(['/dev/ttyUSB1']),
        after: [port('/dev/ttyUSB1'), byId('gw-a', 'ttyUSB0')],
        owned: [
          { path: '/dev/serial/by-id/gw-a', real: '/dev/serial/by-id/gw-a', down: true },
          { path: '/dev/ttyUSB1', real: '/dev/ttyUSB1', down: false },
        ],
      }),
    );
    expect(d.retry).toEqual(['/dev/serial/by-id/gw-a']);
    expect(d.probe).toEqual([]);
  });

  it('a working driver whose node reappears is left alone', () => {
    const d = decidePorts(
      base({
        after: [port('/dev/ttyUSB0')],
        owned: [{ path: '/dev/ttyUSB0', real: '/dev/ttyUSB0', down: false }],
      }),
    );
    expect(d.retry).toEqual([]);
  });

  it('a port that went and came back during the outage counts as appeared', () => {
    const first = decidePorts(base({ before: new Set(['/dev/ttyUSB0']), after: [] }));
    expect(first.probe).toEqual([]);
    const second = decidePorts(base({ before: first.seen, after: [port('/dev/ttyUSB0')] }));
    expect(second.probe).toEqual(['/dev/ttyUSB0']);
  });

  it('a node re-listed under its by-id name is the same port, not a new one', () => {
    const d = decidePorts(base({ before: new Set(['/dev/ttyUSB2']), after: [byId('gw-b', 'ttyUSB2')] }));
    expect(d.probe).toEqual([]);
  });

  it('while a start is armed it defers the appeared port, then probes it once disarmed', () => {
    const armed = decidePorts(base({ after: [port('/dev/ttyUSB4')], armed: true }));
    expect(armed).toMatchObject({ probe: [], defer: ['/dev/ttyUSB4'] });
    const later = decidePorts(
      base({ before: armed.seen, after: [port('/dev/ttyUSB4')], deferred: armed.defer, armed: false }),
    );
    expect(later).toMatchObject({ probe: ['/dev/ttyUSB4'], defer: [] });
  });

  it('a deferred port that vanished or that a driver took meanwhile is dropped', () => {
    const d = decidePorts(
      base({
        before: new Set(['/dev/ttyUSB5']),
        after: [port('/dev/ttyUSB5')],
        deferred: ['/dev/ttyUSB4', '/dev/ttyUSB5'],
        owned: [{ path: '/dev/ttyUSB5', real: '/dev/ttyUSB5', down: false }],
      }),
    );
    expect(d.probe).toEqual([]);
    expect(d.defer).toEqual([]);
  });

  it('a driver retry is not held back by an armed start (it opens only its own board)', () => {
    const d = decidePorts(
      base({
        after: [port('/dev/ttyACM0')],
        owned: [{ path: '/dev/ttyACM0', real: '/dev/ttyACM0', down: true }],
        armed: true,
      }),
    );
    expect(d.retry).toEqual(['/dev/ttyACM0']);
  });
});
