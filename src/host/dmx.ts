/**
 * DMX in wired to the host's services (composition root): the receivers for the `--dmx`
 * universes, the service's radio output (group CONTROL / PRESET frames through the scene
 * planner and the driver, on the network of the group) and its link to the command path
 * (source `dmx`, live 70). Loaded with a dynamic import only when `--dmx` is given, so a host
 * without DMX loads none of it (nor the sacn library).
 */
import { encodeRequestBody } from '../protocol/packets.ts';
import { DEFAULT_LORA, loraParamsFromRf, packetAirtimeMs } from '../protocol/airtime.ts';
import { buildControlFlags } from '../protocol/flags.ts';
import type { Logger } from '../logger.ts';
import type { AppServices } from '../services/index.ts';
import { ledEffect } from '../domain/led-effects.ts';
import {
  ArtNetReceiver,
  DMX_SOURCE,
  DmxService,
  PatchFile,
  SacnReceiver,
  type DmxOutput,
  type DmxReceiver,
  type GroupCommand,
} from '../services/dmx/index.ts';
import type { UniverseSpec } from '../domain/dmx-universes.ts';

export interface DmxOptions {
  host: string;
  universes: readonly UniverseSpec[];
  sacnPort: number;
  artnetPort: number;
  dataDir: string;
}

export interface DmxHandle {
  service: DmxService;
  ports: Record<string, number>;
  close(): Promise<void>;
}

const DEADLINE_MS = 10_000;

export async function startDmx(o: DmxOptions, svc: AppServices, log: Logger): Promise<DmxHandle> {
  svc.commandPath.registerSource({
    id: DMX_SOURCE,
    sourceClass: 'live',
    label: 'DMX (sACN / Art-Net)',
    external: true,
    http: false,
  });
  const firstMember = (group: number) => svc.store.state.devices.find((d) => d.groupId === group);
  const bodyOf = (group: number, cmd: GroupCommand): Uint8Array =>
    cmd.kind === 'preset'
      ? encodeRequestBody({
          op: 'PRESET',
          groupId: group,
          flags: 0,
          presetId: cmd.presetId,
          brightness: cmd.brightness,
        })
      : encodeRequestBody({ op: 'CONTROL', groupId: group, flags: 0, fields: cmd.fields });
  const output: DmxOutput = {
    admit: (groups, action) => {
      svc.commandPath.admit({
        source: DMX_SOURCE,
        targets: groups.map((id) => ({ kind: 'group', id })),
        action,
        // Held while the stream lives: the service lets go after the live timeout of silence.
        hold: 'until-release',
      });
    },
    release: (group) => void svc.commandPath.release(DMX_SOURCE, { kind: 'group', id: group }),
    send: async (group, cmd, signal) => {
      if (cmd.kind === 'preset') {
        const r = await svc.control.control(
          { target: { groupId: group }, flags: 0, presetId: cmd.presetId, brightness: cmd.brightness },
          { signal },
        );
        return r.sent > 0 ? { ok: true } : { ok: false, error: Object.values(r.errors)[0] ?? 'not sent' };
      }
      // Planned as a scene's native effect (its addressing and offset flag), sent on our terms.
      const frames = svc.sceneDispatch.planEffect({ kind: 'groups', value: [group] }, cmd.fields);
      const outs = await Promise.all(
        frames.map((f) =>
          svc.driver.send(f.receiver, f.request, {
            priority: 'interactive',
            deadlineMs: DEADLINE_MS,
            signal,
          }),
        ),
      );
      const bad = outs.find((x) => !x.ok);
      const brightness = cmd.fields.brightness;
      if (outs.some((x) => x.ok) && brightness !== undefined)
        svc.store.mutate(['DEVICES'], (s) => {
          for (const d of s.devices) {
            if (d.groupId !== group) continue;
            d.brightness = brightness;
            d.flags = buildControlFlags(0, brightness);
          }
        });
      return bad && !bad.ok ? { ok: false, error: bad.detail } : { ok: true };
    },
    networkOf: (group) => String(firstMember(group)?.network_id ?? 'default'),
    airtimeMs: (group, cmd) => {
      const netId = firstMember(group)?.network_id;
      const rf = svc.store.state.networks.find((n) => n.id === netId)?.rf;
      return packetAirtimeMs(bodyOf(group, cmd).length, rf ? loraParamsFromRf(rf) : DEFAULT_LORA);
    },
    effectExists: (id) => ledEffect(id) !== undefined,
    groupExists: (id) => id === 0 || svc.groups.exists(id),
    groupLabel: (id) =>
      id === 0 ? 'Unconfigured' : (svc.store.state.groups.find((g) => g.id === id)?.name ?? `group ${id}`),
    liveTimeoutMs: () => svc.commandPath.settings().live_timeout_ms,
  };
  const service = new DmxService({
    universes: o.universes,
    output,
    log,
    now: Date.now,
    setTimer: (fn, ms) => {
      const t = setTimeout(fn, ms);
      t.unref?.();
      return { clear: () => clearTimeout(t) };
    },
    file: new PatchFile(o.dataDir),
  });
  await service.load();

  // A red flag or Blackout outranks DMX: what it queued is dropped, and the nodes' look is no
  // longer ours (the next change on a fixture sends its whole look).
  const offFlag = svc.bus.on('flag', (f) => {
    if (f.flag === 'red') service.interrupted();
  });
  const blackoutsOf = (v: { sources: readonly { id: string; counts: { accepted: number } }[] }): number =>
    v.sources.find((s) => s.id === 'blackout')?.counts.accepted ?? 0;
  let blackouts = blackoutsOf(svc.commandPath.owners());
  const offOwners = svc.commandPath.subscribe((v) => {
    const b = blackoutsOf(v);
    if (b !== blackouts) {
      blackouts = b;
      service.interrupted();
      return;
    }
    // A higher source (a take-over, a race look) took a group: its look is not ours any more.
    for (const g of [...service.heldGroups()])
      if (!v.owners.some((h) => h.source === DMX_SOURCE && h.target.kind === 'group' && h.target.id === g))
        service.lost(g);
  });

  const receivers: DmxReceiver[] = [];
  const ports: Record<string, number> = {};
  const sacn = o.universes.filter((u) => u.protocol === 'sacn').map((u) => u.number);
  const artnet = o.universes.filter((u) => u.protocol === 'artnet').map((u) => u.number);
  try {
    if (sacn.length > 0) {
      const r = new SacnReceiver({ host: o.host, port: o.sacnPort, universes: sacn, sink: service, log });
      ports.sacn = await r.start();
      receivers.push(r);
    }
    if (artnet.length > 0) {
      const r = new ArtNetReceiver({
        host: o.host,
        port: o.artnetPort,
        portAddresses: artnet,
        sink: service,
        log,
        describe: () => {
          const v = service.view();
          return {
            report: `#0001 [${v.fixtures.length}] ${v.fixtures.length} group(s) patched`,
            live: (key) => v.universes.find((u) => u.key === key)?.state === 'live',
          };
        },
      });
      ports.artnet = await r.start();
      receivers.push(r);
    }
  } catch (err) {
    for (const r of receivers) await r.close();
    offFlag();
    offOwners();
    service.stop();
    throw new Error(`DMX in: ${(err as Error).message}`, { cause: err });
  }
  service.setPorts(ports);
  log.info(
    { universes: o.universes.map((u) => u.key), ports, fixtures: service.patchEntries().length },
    'DMX in listening',
  );
  return {
    service,
    ports,
    close: async () => {
      offFlag();
      offOwners();
      service.stop();
      for (const r of receivers) await r.close();
    },
  };
}
