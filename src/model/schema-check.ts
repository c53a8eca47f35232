import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { DatasetName } from './dataset.js';
import { recordJsonSchema, resourceJsonSchema } from './json-schema.js';

export interface SchemaProblem {
  resource: string;
  /** Index of the record in the resource array; null for a problem with the array itself. */
  index: number | null;
  /** JSON pointer of the field inside the record ("" for the record itself). */
  field: string;
  message: string;
}

/** Bounded so that a resource where every record is wrong does not produce millions of lines. */
export const MAX_SCHEMA_PROBLEMS = 50;

// validateSchema off: the schemas are generated from the zod models, the same on every run, and a
// test checks each against the JSON Schema 2020-12 meta-schema; checking them again on every run
// made ajv compile the meta-schema itself, about 9 % of the CPU of a small build.
const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
addFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();

/**
 * Compiled once per resource (`record`: for one record of it): the generated JSON Schemas do not
 * change while the process runs.
 */
function validatorFor(dataset: DatasetName, resource: string, of: 'resource' | 'record' = 'resource'): ValidateFunction {
  const key = `${dataset}/${resource}/${of}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(of === 'record' ? recordJsonSchema(dataset, resource) : resourceJsonSchema(dataset, resource));
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * Validates one bundle resource (an array of records) against the JSON Schema generated from its
 * zod model, with ajv. Pure: the same (dataset, resource, records) always gives the same problems.
 * An unknown resource name is itself a problem, not an exception.
 */
export function checkResourceSchema(dataset: DatasetName, resource: string, records: unknown): SchemaProblem[] {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(dataset, resource);
  } catch (error) {
    return [{ resource, index: null, field: '', message: (error as Error).message }];
  }
  if (validate(records)) return [];
  return (validate.errors ?? []).slice(0, MAX_SCHEMA_PROBLEMS).map((error) => {
    const [, first, ...rest] = error.instancePath.split('/');
    const index = first !== undefined && /^\d+$/.test(first) ? Number(first) : null;
    const field = index === null ? error.instancePath : rest.length > 0 ? `/${rest.join('/')}` : '';
    const extra =
      error.keyword === 'additionalProperties' ? ` "${String((error.params as { additionalProperty?: unknown }).additionalProperty)}"` : '';
    return { resource, index, field, message: `${error.message ?? 'is invalid'}${extra}` };
  });
}

export function describeSchemaProblem(problem: SchemaProblem): string {
  const where = problem.index === null ? problem.resource : `${problem.resource} record ${problem.index}`;
  return `${where}${problem.field ? ` field ${problem.field}` : ''}: ${problem.message}`;
}

/**
 * The check of one record as the publisher streams it: its first problem as text, or null when
 * valid. The validator is looked up once per resource, not once per record (millions of trades),
 * and checks the record itself, without an array around it; the problem of an invalid one is
 * described as checkResourceSchema describes it.
 */
export function recordChecker(dataset: DatasetName, resource: string): (record: unknown) => string | null {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(dataset, resource, 'record');
  } catch {
    return (record) => describeFirst(checkResourceSchema(dataset, resource, [record]));
  }
  return (record) => (validate(record) ? null : describeFirst(checkResourceSchema(dataset, resource, [record])));
}

function describeFirst([problem]: SchemaProblem[]): string | null {
  return problem ? `${problem.field || '/'} ${problem.message}` : null;
}
