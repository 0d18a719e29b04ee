import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The import graph of a folder's .ts files, read with regular expressions (no compiler):
 * `import ... from`, `export ... from`, `import '...'`, `require('...')` and `import('...')`,
 * relative or `switchboard/...` (resolved through package.json's `exports`, as the
 * runtime does). Packages are not followed.
 *
 * Type-only imports count. They are erased when the code runs, so they cannot leave a
 * module half-initialised, but they still tie two files together: neither can be read,
 * moved or tested without the other, and a folder's index.ts holding the type its own
 * files import (what this test was written against) is only ever a type cycle.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const SPECIFIERS = [
  /^[ \t]*(?:import|export)\s[^;'"=()]*?\bfrom\s*['"]([^'"]+)['"]/gm,
  /^[ \t]*import\s*['"]([^'"]+)['"]/gm,
  /\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/g,
];

const exported: Record<string, string> = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).exports ?? {};

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function selfReference(specifier: string): string | undefined {
  for (const [subpath, target] of Object.entries(exported)) {
    const name = `switchboard${subpath.slice(1)}`;
    if (!name.includes('*')) {
      if (name === specifier) return path.join(ROOT, target);
      continue;
    }
    const [before, after] = name.split('*');
    if (specifier.startsWith(before) && specifier.endsWith(after) && specifier.length > before.length + after.length) {
      return path.join(ROOT, target.replace('*', specifier.slice(before.length, specifier.length - after.length)));
    }
  }
  return undefined;
}

function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = specifier.startsWith('.') ? path.resolve(path.dirname(from), specifier) : selfReference(specifier);
  if (!base) return undefined;
  return [base, `${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

/** Each file under `roots` with the files under `roots` it imports. */
function importGraph(roots: string[]): Map<string, string[]> {
  const files = roots.flatMap(tsFiles);
  const inside = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const target = resolveSpecifier(file, match[1]);
        if (target && inside.has(target)) targets.add(target);
      }
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** One cycle (`a -> b -> a`) of every strongly connected group of files, by Tarjan's algorithm. */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)!.includes(file)) groups.push(group);
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return groups.map((group) => cycleThrough(graph, new Set(group), [...group].sort()[0]));
}

/** The shortest way from `start` back to itself inside its group. */
function cycleThrough(graph: Map<string, string[]>, group: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file)!) {
      if (!group.has(target)) continue;
      if (target === start) {
        const way: string[] = [];
        for (let at = file; at !== start; at = cameFrom.get(at)!) way.unshift(at);
        return [start, ...way, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  throw new Error(`no cycle through ${start}`);
}

const shown = (cycles: string[][]) => cycles.map((cycle) => cycle.map((file) => path.relative(ROOT, file)).join(' -> '));

describe('import cycles', () => {
  it('finds a cycle, type-only edges and index.ts resolution included (the finder itself)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cycles-'));
    try {
      fs.mkdirSync(path.join(dir, 'area'));
      fs.writeFileSync(path.join(dir, 'area', 'index.ts'), "import { run } from './run';\nexport interface Runtime { id: string }\nexport { run };\n");
      fs.writeFileSync(path.join(dir, 'area', 'run.ts'), "import type {\n  Runtime,\n} from './index';\nexport const run = (r: Runtime) => r.id;\n");
      fs.writeFileSync(path.join(dir, 'top.ts'), "import { run } from './area';\nimport './lazy';\nexport const go = run;\n");
      fs.writeFileSync(path.join(dir, 'lazy.ts'), "export const later = () => require('./top');\n");
      fs.writeFileSync(path.join(dir, 'leaf.ts'), "export type { Runtime } from './area';\n");
      const cycles = importCycles(importGraph([dir])).map((cycle) => cycle.map((file) => path.relative(dir, file)).join(' -> '));
      expect(cycles.sort()).toEqual(['area/index.ts -> area/run.ts -> area/index.ts', 'lazy.ts -> top.ts -> lazy.ts']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('core/ has none', () => {
    expect(shown(importCycles(importGraph([path.join(ROOT, 'core')])))).toEqual([]);
  });

  it('plugins/ and examples/ have none', () => {
    expect(shown(importCycles(importGraph([path.join(ROOT, 'plugins'), path.join(ROOT, 'examples')])))).toEqual([]);
  });

  it('the kernel sits on top: only the CLI and the test kit import core/kernel/', () => {
    const kernel = path.join(ROOT, 'core', 'kernel') + path.sep;
    const allowed = [path.join(ROOT, 'core', 'cli') + path.sep, path.join(ROOT, 'core', 'testing') + path.sep, kernel];
    const graph = importGraph([path.join(ROOT, 'core')]);
    const importers = [...graph].filter(([file, targets]) => !allowed.some((dir) => file.startsWith(dir)) && targets.some((target) => target.startsWith(kernel)));
    expect(importers.map(([file]) => path.relative(ROOT, file))).toEqual([]);
  });
});
