/**
 * The large, rarely changing answers (scene editor schema ~80 KB, native-preset editor
 * schema ~78 KB, specials form schema) served like the lists: serialised once, ETag/304,
 * gzip/brotli compressed once per version. Each is rebuilt on the first request after
 * something it is derived from changed: any state scope (native presets, the active LED
 * preset file, …: a cheap counter over the bus) and, for the scene editor schema, the
 * radio parameters it reports (compared as a small string per request, because the
 * calibrated overhead in it moves with real traffic and no event announces that).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../services/index.ts';
import { SerializedBody } from './serialized-body.ts';

/** A SerializedBody that rebuilds itself when its fingerprint changes. */
export class DerivedBody {
  private readonly body: SerializedBody;
  private key: string | null = null;

  constructor(
    build: () => unknown,
    private readonly fingerprint: () => string,
  ) {
    this.body = new SerializedBody(() => JSON.stringify(build()));
  }

  send(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    this.refresh();
    return this.body.send(req, reply);
  }

  sendRaw(req: IncomingMessage, res: ServerResponse): void {
    this.refresh();
    this.body.sendRaw(req, res);
  }

  private refresh(): void {
    const k = this.fingerprint();
    if (k !== this.key) {
      this.key = k;
      this.body.invalidate();
    }
  }
}

type Deps = Pick<
  AppServices,
  'bus' | 'sceneEditorSchema' | 'nativePresets' | 'specialsSchema' | 'sceneDispatch'
>;

export class StaticAnswers {
  readonly editorSchema: DerivedBody;
  readonly nativePresetSchema: DerivedBody;
  readonly specials: DerivedBody;
  private version = 0;
  private readonly unsubscribe: () => void;

  constructor(svc: Deps) {
    this.unsubscribe = svc.bus.on('scopes', () => void this.version++);
    const version = (): string => String(this.version);
    this.editorSchema = new DerivedBody(
      () => ({ ok: true, ...svc.sceneEditorSchema() }),
      () => `${this.version}|${JSON.stringify(svc.sceneDispatch.lora())}`,
    );
    this.nativePresetSchema = new DerivedBody(
      () => ({ ok: true, schema: svc.nativePresets.schema() }),
      version,
    );
    this.specials = new DerivedBody(() => ({ ok: true, specials: svc.specialsSchema.build() }), version);
  }

  close(): void {
    this.unsubscribe();
  }
}
