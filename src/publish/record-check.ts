import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { z } from 'zod';
import { DATASET_RESOURCES, type DatasetName } from '../model/dataset.js';
import { jsonSchemaOf } from '../model/json-schema.js';
import type { RecordCheck } from './resource-writer.js';

const ajv = new Ajv2020({ allErrors: false, strict: false });
addFormats.default(ajv);
const compiled = new Map<string, RecordCheck>();

/** ajv check of one record against the JSON Schema generated from its zod model. */
export function recordCheckFor(dataset: DatasetName, resource: string): RecordCheck {
  const key = `${dataset}/${resource}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const model = (DATASET_RESOURCES[dataset] as Record<string, z.ZodType>)[resource];
  if (!model) throw new Error(`dataset ${dataset} has no resource ${resource}`);
  const validate = ajv.compile(jsonSchemaOf(model));
  const check: RecordCheck = (record) => {
    if (validate(record)) return null;
    const error = validate.errors?.[0];
    return error ? `${error.instancePath || '/'} ${error.message ?? 'is invalid'}` : 'is invalid';
  };
  compiled.set(key, check);
  return check;
}
