import type { z } from 'zod';

/** "rights.reuse: Invalid option...; title: Too small..." — names every failing field. */
export function formatZodIssues(error: z.ZodError, field?: string): string {
  return error.issues
    .map((issue) => {
      const where = [...(field === undefined ? [] : [field]), ...issue.path.map(String)].join('.');
      return `${where === '' ? '(root)' : where}: ${issue.message}`;
    })
    .join('; ');
}
