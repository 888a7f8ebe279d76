/** A minimal zip writer for tests (stored or deflated entries; sizes may be faked to build hostile archives). */
import { deflateRawSync } from 'node:zlib';

export interface ZipInput {
  name: string;
  bytes: Uint8Array;
  deflate?: boolean;
  /** Claim this uncompressed size in the headers (a lying archive). */
  claimSize?: number;
  flags?: number;
}

export function writeZip(entries: readonly ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = e.deflate ? deflateRawSync(e.bytes) : Buffer.from(e.bytes);
    const size = e.claimSize ?? e.bytes.length;
    const flags = (e.flags ?? 0) | 0x800;
    const method = e.deflate ? 8 : 0;
    const loc = Buffer.alloc(30);
    loc.writeUInt32LE(0x04034b50, 0);
    loc.writeUInt16LE(20, 4);
    loc.writeUInt16LE(flags, 6);
    loc.writeUInt16LE(method, 8);
    loc.writeUInt32LE(data.length, 18);
    loc.writeUInt32LE(size, 22);
    loc.writeUInt16LE(name.length, 26);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE(20, 4);
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(flags, 8);
    cen.writeUInt16LE(method, 10);
    cen.writeUInt32LE(data.length, 20);
    cen.writeUInt32LE(size, 24);
    cen.writeUInt16LE(name.length, 28);
    cen.writeUInt32LE(offset, 42);
    locals.push(loc, name, data);
    central.push(cen, name);
    offset += loc.length + name.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
