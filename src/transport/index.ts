/**
 * The transport layer: byte links to a gateway and the `--gateway` spec parser.
 * Only this folder imports `serialport` and `node:net`.
 */
import { parseTcpTarget } from './tcp-link.ts';
import { errText } from '../util/err-text.ts';

export type { Link, LinkFactory, LinkKind, TransportLog } from './link.ts';
export { LinkClosedError, LinkOpenError, PortBusyError } from './errors.ts';
export {
  MemoryEndpoint,
  MemoryLinkEnd,
  PEER_CLOSED_MESSAGE,
  createMemoryLinkPair,
  dropLink,
  type MemoryConnectInfo,
  type MemoryLinkOptions,
} from './memory-link.ts';
export { TcpLink, parseTcpTarget, type TcpLinkOptions, type TcpTarget } from './tcp-link.ts';
export { GATEWAY_BAUD_RATE, SerialLink, setLowLatency, type SerialLinkOptions } from './serial-link.ts';
export { listCandidatePorts, type CandidatePort, type ListCandidateOptions } from './serial-ports.ts';
export { IDENTIFY_ANSWER_LENGTH, IDENTIFY_REQUEST, IdentifyScanner } from './identify-scan.ts';
export {
  detectGateway,
  detectGateways,
  identifyGateway,
  type DetectOptions,
  type DetectResult,
  type IdentifyOptions,
  type ProbeAttempt,
  type ProbeResult,
} from './detect.ts';

export type GatewaySpec =
  | { kind: 'auto' }
  | { kind: 'sim' }
  | { kind: 'serial'; path: string }
  | { kind: 'tcp'; host: string; port: number };

const SPEC_SHAPE = 'expected auto, sim, serial:<path> or tcp:<host>:<port>';

/**
 * Parses the `--gateway` option: `auto`, `sim`, `serial:<path>`, `tcp:<host>:<port>`.
 * A bare absolute device path (`/dev/ttyUSB0`) is accepted as `serial:`. Throws an Error
 * whose message names the bad input and the accepted forms.
 */
export function parseGatewaySpec(spec: string): GatewaySpec {
  const s = spec.trim();
  const lower = s.toLowerCase();
  if (s.length === 0) throw new Error(`empty --gateway value; ${SPEC_SHAPE}`);
  if (lower === 'auto') return { kind: 'auto' };
  if (lower === 'sim') return { kind: 'sim' };
  if (lower.startsWith('serial:')) {
    const path = s.slice('serial:'.length).trim();
    if (path.length === 0)
      throw new Error(`invalid --gateway "${spec}": serial needs a port path, e.g. serial:/dev/ttyUSB0`);
    return { kind: 'serial', path };
  }
  if (lower.startsWith('tcp:')) {
    try {
      return { kind: 'tcp', ...parseTcpTarget(s) };
    } catch (err) {
      throw new Error(`invalid --gateway "${spec}": ${errText(err)}`);
    }
  }
  if (s.startsWith('/')) return { kind: 'serial', path: s };
  throw new Error(`invalid --gateway "${spec}"; ${SPEC_SHAPE}`);
}
