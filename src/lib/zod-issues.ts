import type { z } from 'zod';

/**
 * "rights.reuse: Invalid option...; title: Too small..." — names every failing field, under
 * `field` when the value checked was one field of something larger; `root` names the value itself.
 */
export function formatZodIssues(error: z.ZodError, field?: string, root = '(root)'): string {
  return error.issues
    .map((issue) => {
      const where = [...(field === undefined ? [] : [field]), ...issue.path.map(String)].join('.');
      return `${where === '' ? root : where}: ${issue.message}`;
    })
    .join('; ');
}
