/**
 * OSC in (issue 37): the UDP server with its address space, the actions it maps onto the
 * command path, and the feedback it sends back. The host wires it to the services
 * (host/osc.ts) only with `--osc-port`.
 */
export { createOscActions, OSC_SOURCE } from './actions.ts';
export { OscFeedback } from './feedback.ts';
export { OscServer, type OscStats, type OscTarget } from './server.ts';
