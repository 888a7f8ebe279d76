import { createGatewayDriver, type LightnetGatewayDriver } from '../../../src/gateway/driver.ts';
import type { DriverOptions } from '../../../src/gateway/options.ts';
import { FakeGateway } from './fake-gateway.ts';
import { ManualClock } from './manual-clock.ts';

export interface Rig {
  clock: ManualClock;
  gw: FakeGateway;
  driver: LightnetGatewayDriver;
}

/** A started driver on a manual clock against a fake gateway. */
export async function rig(
  options: Partial<DriverOptions> = {},
  configure?: (gw: FakeGateway) => void,
): Promise<Rig> {
  const clock = new ManualClock();
  const gw = new FakeGateway(clock);
  configure?.(gw);
  const driver = createGatewayDriver({
    linkFactory: gw.endpoint.factory,
    clock,
    transport: 'sim',
    port: 'memory',
    options,
  });
  await clock.run(driver.start());
  return { clock, gw, driver };
}
