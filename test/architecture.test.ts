import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

/**
 * The import rules of the README's Layout, checked on the code: every relative import of every
 * file under src/ (type-only ones too, since they couple the files as much for a reader), so that
 * a layer importing upward, or two files importing each other through others, fails a test
 * instead of waiting for the next review.
 */

const SRC = path.join(REPO_ROOT, 'src');

/** What each layer may import besides itself. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  lib: [],
  model: ['lib'],
  ingest: ['model', 'lib'],
  derive: ['model', 'lib'],
  validate: ['model', 'lib'],
  publish: ['model', 'lib'],
  serve: ['model', 'lib', 'publish'],
  sample: ['model', 'lib', 'ingest'],
  // fetch reads the registries and sidecars through ingest's schemas; only cli imports it.
  fetch: ['model', 'lib', 'ingest'],
  cli: ['model', 'lib', 'ingest', 'derive', 'validate', 'publish', 'serve', 'sample', 'fetch'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each file under src/ (relative to it) and the files it imports, relative to src/ too. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => {
        const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
        if (!existsSync(target)) throw new Error(`${path.relative(SRC, file)} imports ${specifier}, which is no file of src/`);
        return path.relative(SRC, target);
      });
    graph.set(path.relative(SRC, file), [...new Set(targets)]);
  }
  return graph;
}

const layerOf = (file: string) => file.split(path.sep)[0]!;

/** The groups of two or more files that reach each other through their imports (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the import rules of src/', () => {
  const graph = importGraph();

  it('reads every layer the README names, and only those', () => {
    expect(new Set([...graph.keys()].map(layerOf))).toEqual(new Set(Object.keys(ALLOWED)));
  });

  it('imports only downward: no layer imports one it may not', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => layerOf(target) !== layerOf(file) && !ALLOWED[layerOf(file)]!.includes(layerOf(target)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no two files that import each other, directly or through others', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('would see an upward import and a cycle (the checks themselves)', () => {
    const planted = new Map(graph);
    planted.set('lib/planted.ts', ['serve/app.ts', 'lib/planted-too.ts']);
    planted.set('lib/planted-too.ts', ['lib/planted.ts']);
    expect(cycles(planted)).toContainEqual(['lib/planted-too.ts', 'lib/planted.ts']);
    expect(ALLOWED[layerOf('lib/planted.ts')]).not.toContain(layerOf('serve/app.ts'));
  });
});
