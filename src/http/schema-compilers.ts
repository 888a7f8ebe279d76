/**
 * Fastify's default schema compilers (Ajv for validation, fast-json-stringify for replies),
 * loaded only when a route actually declares a schema. Requests are validated with zod at
 * the edge and replies are plain JSON or pre-serialised lists, so normally they never load:
 * that keeps ~400 KiB of compiler code out of every start (the production bundle leaves
 * these packages external; see scripts/build-server.mjs).
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<Factories['buildValidator']>;
type SerializerFactory = NonNullable<Factories['buildSerializer']>;

const requireOnDemand = createRequire(import.meta.url);

/** Both factories take (externalSchemas, options); their overloaded types are restored below. */
type Factory = (externalSchemas: unknown, options: unknown) => unknown;

function onDemand(pkg: string): Factory {
  let factory: Factory | null = null;
  return (externalSchemas, options) => {
    factory ??= (requireOnDemand(pkg) as () => Factory)();
    return factory(externalSchemas, options);
  };
}

export function lazySchemaCompilers(): Required<Factories> {
  return {
    buildValidator: onDemand('@fastify/ajv-compiler') as unknown as ValidatorFactory,
    buildSerializer: onDemand('@fastify/fast-json-stringify-compiler') as unknown as SerializerFactory,
  };
}
