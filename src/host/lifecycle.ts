/**
 * The host's life after its services are built: the bus wiring every running host needs
 * (task boundaries → master events, readiness → SSE) and the orderly shutdown.
 */
import type { FastifyInstance } from 'fastify';
import type { SseHub } from '../http/sse.ts';
import type { AppServices } from '../services/index.ts';
import type { SimOnMemory } from '../sim/sim-host.ts';
import type { TaskSnapshot } from '../tasks/task-manager.ts';

/** Task boundaries → master events and the post-task refresh; readiness → SSE `gateway`. */
export function wireEvents(svc: AppServices): (() => void)[] {
  const lastState = new Map<number, TaskSnapshot['state']>();
  let prevState = '';
  return [
    svc.bus.on('task', (t) => {
      if (lastState.get(t.id) === t.state) return;
      lastState.set(t.id, t.state);
      const name = `TASK_${t.name.toUpperCase()}`;
      if (t.state === 'running') svc.master.note(`${name}_START`);
      else if (t.state === 'done') {
        svc.master.note(`${name}_DONE`);
        svc.bus.emit('scopes', ['DEVICE_MEMBERSHIP']);
      } else svc.master.note(`${name}_ERROR`, t.last_error);
    }),
    svc.driver.on('readiness', () => svc.bus.emit('gateway', svc.master.gateway())),
    svc.driver.on('master', (m) => {
      // Count entries into an RX window, not every snapshot taken while one is open.
      if (m.state === 'RX_WINDOW' && prevState !== 'RX_WINDOW') svc.tasks.bumpCurrent('rx_window_events');
      prevState = m.state;
    }),
  ];
}

export async function shutdown(
  svc: AppServices,
  app: FastifyInstance,
  sse: SseHub,
  sim: SimOnMemory | null,
): Promise<void> {
  const { log } = svc;
  sse.close();
  // A scene run holds its request open: stop it, so closing the server need not wait.
  svc.sceneDispatch.cancel();
  const closing = app.close();
  if (svc.tasks.cancel()) {
    log.info({}, 'cancelling the running task for shutdown');
    await Promise.race([svc.tasks.settled(), new Promise((r) => setTimeout(r, 5000))]);
  }
  // An OTA run that could not finish its own restore in time left its lease behind.
  await svc.ota.recover();
  await svc.recovery.stop();
  // Radio first, so no reply can change state after the final flush.
  await svc.driver.stop();
  sim?.stop();
  await svc.store.close();
  await closing;
  log.info({}, 'lightnet stopped');
}
