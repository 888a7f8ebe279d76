/**
 * The OSC receiver on the host's services: actions (actions.ts) onto Blackout, the flags,
 * the scenes and group control; feedback (feedback.ts) from the flag, the running scene
 * and the device rows. Started only with `--osc-port`.
 */
import { buildControlFlags } from '../../protocol/flags.ts';
import type { AppServices } from '../index.ts';
import type { Logger } from '../../logger.ts';
import { createOscActions, OSC_SOURCE } from './actions.ts';
import { OscFeedback } from './feedback.ts';
import { OscServer, type OscTarget } from './server.ts';

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
  const actions = createOscActions({
    blackout: () => svc.blackout.blackout(),
    flag: (action, source) => svc.flags.raise(action, source),
    sceneExists: (key) => svc.scenes.lookup(key) !== undefined,
    runningScene: () => svc.sceneDispatch.running(),
    runScene: (key) => svc.sceneDispatch.run(key, {}),
    stopScene: () => void svc.sceneDispatch.cancel(),
    groupExists: (id) => id === 0 || svc.groups.exists(id),
    groupPreset: async (groupId, presetId, brightness) =>
      sent(await svc.control.control({ target: { groupId }, flags: 0, presetId, brightness })),
    groupOff: async (groupId) =>
      sent(await svc.control.control({ target: { groupId }, flags: 0, presetId: 0, brightness: 0 })),
    groupColor: async (groupId, rgb, brightness) => {
      // Planned as a scene's native effect (its addressing and offset flag), sent on our terms.
      const frames = svc.sceneDispatch.planEffect(
        { kind: 'groups', value: [groupId] },
        { mode: 0, brightness, color1: rgb },
      );
      const outs = await Promise.all(
        frames.map((f) =>
          svc.driver.send(f.receiver, f.request, { priority: 'interactive', deadlineMs: DEADLINE_MS }),
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
  return { server, port, close: () => server.close() };
}
