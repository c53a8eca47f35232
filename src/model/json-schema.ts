import { z } from 'zod';
import { DATASET_RESOURCES, type DatasetName } from './dataset.js';

/**
 * JSON Schemas generated from the zod models, so that the shapes are written once.
 * ajv checks bundles against these; the server's OpenAPI description reuses them.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
}

/** Schema of one record of a bundle resource. */
export function recordJsonSchema(dataset: DatasetName, resource: string): Record<string, unknown> {
  const resources = DATASET_RESOURCES[dataset] as Record<string, z.ZodType>;
  const record = resources[resource];
  if (!record) throw new Error(`dataset ${dataset} has no resource ${resource}`);
  return jsonSchemaOf(record);
}

/** Schema of one bundle resource: an array of the dataset's records. */
export function resourceJsonSchema(dataset: DatasetName, resource: string): Record<string, unknown> {
  const resources = DATASET_RESOURCES[dataset] as Record<string, z.ZodType>;
  const record = resources[resource];
  if (!record) throw new Error(`dataset ${dataset} has no resource ${resource}`);
  return jsonSchemaOf(z.array(record));
}
