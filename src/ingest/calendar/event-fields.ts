import type { Importance } from '../../model/calendar-event.js';
import { SourceProblem, quote } from '../source-problem.js';

const IMPORTANCE_BY_WORD: Readonly<Record<string, Importance>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  '1': 'low',
  '2': 'medium',
  '3': 'high',
};

/** Curated importance: low/medium/high (any case) or 1..3, 3 being high (as Profile B shows it). */
export function parseImportance(value: unknown): Importance {
  if (value === undefined || value === null || value === '') throw new SourceProblem('missing importance');
  const importance = IMPORTANCE_BY_WORD[String(value).trim().toLowerCase()];
  if (!importance) throw new SourceProblem(`importance ${quote(value)} is not low, medium, high or 1..3`);
  return importance;
}

/**
 * Forecast, previous and actual are formatted text ("3.2%", "245K"); a number written without
 * quotes is kept as JavaScript prints it. Missing means "" (for actual: not released yet).
 */
export function readValueText(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new SourceProblem(`${field} must be text or a number, got ${quote(JSON.stringify(value))}`);
}

export function requireText(value: unknown, field: string): string {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (value === undefined || value === null || value === '') throw new SourceProblem(`missing ${field}`);
  throw new SourceProblem(`${field} must be text, got ${quote(JSON.stringify(value))}`);
}

/** Event names compare and display with single spaces. */
export function cleanEventName(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}
