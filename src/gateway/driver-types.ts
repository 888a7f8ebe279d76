/** The driver's construction options and its interface beyond GatewayDriver. */
import type { Clock } from '../clock.ts';
import type { LinkFactory } from '../transport/link.ts';
import type { DriverLog } from './operations.ts';
import type { DriverOptions } from './options.ts';
import type { DriverStats } from './types.ts';
import type { LeasableDriver } from './lease.ts';

export interface CreateGatewayDriverOptions {
  linkFactory: LinkFactory;
  clock: Clock;
  transport: 'serial' | 'tcp' | 'sim';
  port: string | null;
  log?: DriverLog;
  options?: Partial<DriverOptions>;
  /** Run the identify handshake on every open (default true). */
  identify?: boolean;
}

/** Counters beyond DriverStats, for diagnostics and the benchmark. */
export interface DriverDiagnostics extends DriverStats {
  txPendingRetries: number;
  orphanTxDone: number;
  orphanTxRejected: number;
  deadlineDrops: number;
  linkLosses: number;
  connectAttempts: number;
  liveMatchers: number;
}

/** The driver as created here: GatewayDriver plus diagnostics and host-side master events. */
export interface LightnetGatewayDriver extends LeasableDriver {
  readonly options: Readonly<DriverOptions>;
  diagnostics(): DriverDiagnostics;
  /** Records a host-side event in the master mirror (CONTROL_SENT, TASK_X_START, …). */
  noteMasterEvent(name: string, error?: string | null): void;
}
