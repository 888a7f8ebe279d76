/**
 * The OSC receiver wired to the host's services (here, in the composition root: it takes
 * them all): actions (actions.ts) onto Blackout, the flags,
 * the scenes and group control; feedback (feedback.ts) from the flag, the running scene
 * and the device rows. Started only with `--osc-port`.
 */
import { buildControlFlags } from '../protocol/flags.ts';
import type { AppServices } from '../services/index.ts';
import type { Logger } from '../logger.ts';
import { sceneTargets } from '../services/command-path/index.ts';
import {
  createOscActions,
  OSC_SOURCE,
  OscFeedback,
  OscServer,
  type OscTarget,
} from '../services/osc/index.ts';

export interface OscOptions {
  host: string;
  port: number;
  ratePerSec: number;
  feedback: readonly OscTarget[];
}

const DEADLINE_MS = 10_000;

export interface OscHandle {
  server: OscServer;
  port: number;
  close(): Promise<void>;
}

export async function startOsc(o: OscOptions, svc: AppServices, log: Logger): Promise<OscHandle> {
  const sent = (r: { sent: number; errors: Record<string, string> }) => ({
    sent: r.sent,
    errors: Object.values(r.errors),
  });
  // OSC is live control (70): a group it sets is held until 3 s of silence (the path's live
  // timeout); a higher hold (race looks 80, a red flag 90, the operator's take-over) refuses it.
  svc.commandPath.registerSource({
    id: OSC_SOURCE,
    sourceClass: 'live',
    label: 'OSC',
    external: true,
    http: false,
  });
  // A frame of ours still queued when red or Blackout goes out (they are urgent: they overtake
  // it) would land after them: each red flag or Blackout drops what OSC has queued — whoever
  // pressed it (the web UI, the API, MQTT, a DMX console, OSC itself): the bus tells them all,
  // as it tells MQTT and DMX.
  // Two places hold our frames: the radio's queue (aborted through `era`) and the actions'
  // coalescing queue (group commands waiting their turn: dropWaiting).
  let era = new AbortController();
  const dropQueued = (): void => {
    era.abort();
    era = new AbortController();
    actions.dropWaiting();
  };
  const admit = (id: number, action: string): void => {
    svc.commandPath.admit({ source: OSC_SOURCE, targets: [{ kind: 'group', id }], action });
  };
  const actions = createOscActions({
    blackout: async () => {
      svc.commandPath.blackout();
      // (The blackout service's start tells the bus, which drops what OSC has queued.)
      const r = await svc.blackout.blackout();
      svc.flags.afterBlackout();
      return r;
    },
    flag: (action, source) => svc.flags.raise(action, source),
    sceneExists: (key) => svc.scenes.lookup(key) !== undefined,
    runningScene: () => svc.sceneDispatch.running(),
    runScene: (key) => {
      // Admitted first (throws when refused); the scene's targets are held while it runs.
      const targets = sceneTargets(svc.sceneDispatch.actionsOf(key, {}));
      const a = svc.commandPath.admit({ source: OSC_SOURCE, targets, action: `scene ${key}`, hold: 'run' });
      return svc.sceneDispatch.run(key, {}).finally(() => svc.commandPath.end(a.ticket));
    },
    stopScene: () => void svc.sceneDispatch.cancel(),
    groupExists: (id) => id === 0 || svc.groups.exists(id),
    groupPreset: async (groupId, presetId, brightness) => {
      admit(groupId, 'preset');
      return sent(
        await svc.control.control(
          { target: { groupId }, flags: 0, presetId, brightness },
          { signal: era.signal },
        ),
      );
    },
    groupOff: async (groupId) => {
      admit(groupId, 'off');
      return sent(
        await svc.control.control(
          { target: { groupId }, flags: 0, presetId: 0, brightness: 0 },
          { signal: era.signal },
        ),
      );
    },
    groupColor: async (groupId, rgb, brightness) => {
      admit(groupId, 'color');
      // Planned as a scene's native effect (its addressing and offset flag), sent on our terms.
      const frames = svc.sceneDispatch.planEffect(
        { kind: 'groups', value: [groupId] },
        { mode: 0, brightness, color1: rgb },
      );
      const outs = await Promise.all(
        frames.map((f) =>
          svc.driver.send(f.receiver, f.request, {
            priority: 'interactive',
            deadlineMs: DEADLINE_MS,
            signal: era.signal,
          }),
        ),
      );
      const errors = outs.flatMap((x) => (x.ok ? [] : [x.detail]));
      const ok = outs.length - errors.length;
      if (ok > 0)
        svc.store.mutate(['DEVICES'], (s) => {
          for (const d of s.devices) {
            if (d.groupId !== groupId) continue;
            d.brightness = brightness;
            d.flags = buildControlFlags(0, brightness);
          }
        });
      return { sent: ok, errors };
    },
    sceneFailed: (key, error) => log.warn({ scene: key, error, source: OSC_SOURCE }, 'OSC scene run failed'),
  });
  const offFlag = svc.bus.on('flag', (f) => {
    if (f.flag === 'red') dropQueued();
  });
  const offBlackout = svc.bus.on('blackout', dropQueued);
  const feedback = new OscFeedback({
    flag: () => svc.flags.state(),
    runningScene: () => svc.sceneDispatch.running(),
    groups: () => svc.groups.rows(),
    devices: () => svc.store.state.devices,
    watch: (changed) => {
      const offs = [
        svc.bus.on('flag', changed),
        svc.bus.on('scene_progress', changed),
        svc.bus.on('scopes', changed),
      ];
      return () => offs.forEach((off) => off());
    },
    setTimer: (fn, ms) => {
      const t = setTimeout(fn, ms);
      return { cancel: () => clearTimeout(t) };
    },
  });
  const server = new OscServer({
    host: o.host,
    port: o.port,
    ratePerSec: o.ratePerSec,
    feedbackTargets: o.feedback,
    actions,
    feedback,
    log,
  });
  const port = await server.start();
  return {
    server,
    port,
    close: () => {
      offFlag();
      offBlackout();
      return server.close();
    },
  };
}
