import type { z } from 'zod';

/**
 * "rights.reuse: Invalid option...; keys[0].tier: Invalid option..." — names every failing field
 * (an array index in brackets), under `field` when the value checked was one field of something
 * larger; `root` names the value itself. The one way pdsnap words a schema's refusal.
 */
export function formatZodIssues(error: z.ZodError, field?: string, root = '(root)'): string {
  return error.issues.map((issue) => `${zodPath(issue.path, field) || root}: ${issue.message}`).join('; ');
}

/** `investors[3].name`: a path of a zod issue, under `field` when given; '' for the value itself. */
export function zodPath(path: readonly PropertyKey[], field?: string): string {
  let where = field ?? '';
  for (const key of path) where += typeof key === 'number' ? `[${key}]` : `${where === '' ? '' : '.'}${String(key)}`;
  return where;
}
