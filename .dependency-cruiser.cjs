/**
 * The house rules of docs/architecture.md ("Rules between floors"), held by a check instead
 * of by the page alone: `npm run lint:deps` (part of `npm run lint`, so of `npm test`) fails
 * on any import that breaks one. Type-only imports count: a circle of types is still a circle.
 *
 * The floors, bottom up (a file may import its own floor and those below, never above):
 *   1  protocol/ util/ errors.ts clock.ts logger.ts log-pretty.ts   the leaves
 *   2  domain/ transport/
 *   3  gateway/ state/ tasks/ events.ts sim/
 *   4  services/   each capability a folder, entered only through an index.ts
 *   5  http/
 *   6  host/ config/ main.ts import-cli.ts import-next-steps.ts   the composition root and the CLIs
 * ui/src/ reads the host's shapes by type-only import; of its code only pure domain/ and protocol/.
 */
const LEAVES = '^src/(protocol/|util/|(errors|clock|logger|log-pretty)[.]ts$)';
const ROOT = '^src/(host/|config/|(main|import-cli|import-next-steps)[.]ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No two files import each other, not even through others, types included (docs/architecture.md).',
      from: { path: '^(src|ui/src|bench)/' },
      to: { circular: true },
    },
    {
      name: 'protocol-is-pure',
      severity: 'error',
      comment: 'protocol/ imports nothing but itself: no Node module, no package, no other floor.',
      from: { path: '^src/protocol/' },
      to: { pathNot: '^src/protocol/' },
    },
    {
      name: 'leaves-import-only-leaves',
      severity: 'error',
      comment: 'The ground floor (protocol, util, errors, clock, logger) stands on nothing of the house.',
      from: { path: LEAVES },
      to: { path: '^src/', pathNot: LEAVES },
    },
    {
      name: 'domain-and-transport-stay-low',
      severity: 'error',
      comment:
        'domain/ (pure models) and transport/ (byte links) know nothing of the driver, state or services.',
      from: { path: '^src/(domain|transport)/' },
      to: { path: '^src/', pathNot: [LEAVES, '^src/(domain|transport)/'] },
    },
    {
      name: 'core-below-services',
      severity: 'error',
      comment:
        'gateway/, state/, tasks/, the bus and the simulator never reach up into services, http or the root.',
      from: { path: '^src/(gateway/|state/|tasks/|sim/|events[.]ts$)' },
      to: { path: ['^src/(services|http)/', ROOT] },
    },
    {
      name: 'services-below-http',
      severity: 'error',
      comment:
        'services/ know no HTTP and no composition root: they are handed interfaces (routes call them).',
      from: { path: '^src/services/' },
      to: { path: ['^src/http/', ROOT] },
    },
    {
      name: 'http-below-root',
      severity: 'error',
      comment: 'http/ is handed its services by the host; it never imports the host, the config or a CLI.',
      from: { path: '^src/http/' },
      to: { path: ROOT },
    },
    {
      name: 'sim-is-a-peer',
      severity: 'error',
      comment:
        'The simulator sits on the far side of a Link: only the composition root starts it; ' +
        'the driver and the services never call into it (a shape it reports may be named by type).',
      from: { path: '^src/', pathNot: ['^src/sim/', ROOT] },
      to: { path: '^src/sim/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'serialport-only-in-transport',
      severity: 'error',
      comment: 'Only transport/ opens serial ports.',
      from: { path: '^src/', pathNot: '^src/transport/' },
      to: { path: '(^|/)node_modules/(serialport|@serialport/[^/]+)/' },
    },
    {
      name: 'fastify-only-in-http',
      severity: 'error',
      comment: 'Only http/ uses Fastify; the host may name its types (the app it starts and stops).',
      from: { path: '^src/', pathNot: '^src/http/' },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-no-sockets',
      severity: 'error',
      comment:
        'services/ reach the radio through the driver and the web through routes: no fastify, serialport or net.',
      from: { path: '^src/services/' },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+|serialport|@serialport/[^/]+)/|^(node:)?net$' },
    },
    {
      name: 'capability-through-its-face',
      severity: 'error',
      comment:
        'A capability in services/ is entered only through an index.ts (its own, or a sub-room’s); ' +
        'files inside one capability import each other directly.',
      from: { path: '^src/(?!services/)|^src/services/[^/]+[.]ts$' },
      to: { path: '^src/services/[^/]+/', pathNot: '/index[.]ts$' },
    },
    {
      name: 'capability-through-its-face-between-capabilities',
      severity: 'error',
      comment: 'Between capabilities too: devices, scenes, networks … meet only at each other’s index.ts.',
      from: { path: '^src/services/([^/]+)/' },
      to: { path: '^src/services/[^/]+/', pathNot: ['^src/services/$1/', '/index[.]ts$'] },
    },
    {
      name: 'ui-reads-host-types',
      severity: 'error',
      comment:
        'The browser bundle takes the host’s shapes by type-only import; of its code only pure domain/ and protocol/.',
      from: { path: '^ui/src/' },
      to: { path: '^src/', pathNot: '^src/(domain|protocol)/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|coverage|release|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    cache: false,
  },
};
