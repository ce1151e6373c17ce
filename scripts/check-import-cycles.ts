/**
 * Fails when a module of src/ imports itself through others, type-only imports included
 * (`npm run lint` runs it): the graph of relative imports and re-exports, its strongly connected
 * components by Tarjan's algorithm, each one printed with the edges that close it.
 *
 *   node dist-scripts/check-import-cycles.js [root]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? path.join(__dirname, '../src'));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sources(file);
    return file.endsWith('.ts') && !file.endsWith('.d.ts') ? [file] : [];
  });
}

function resolve(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return null;
}

function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const node of source.statements) {
    const specifier = (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const target = resolve(file, specifier.text);
    if (target) out.push(target);
  }
  return out;
}

const graph = new Map(sources(root).map((file) => [file, importsOf(file)]));

/** Tarjan's strongly connected components; those with more than one module (or a self-import) are cycles. */
function cycles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const found = cycles();
for (const component of found) {
  console.error(`import cycle of ${component.length} modules:`);
  for (const file of component.sort()) {
    const inCycle = graph.get(file)!.filter((d) => component.includes(d));
    console.error(`  ${path.relative(root, file)} -> ${inCycle.map((d) => path.relative(root, d)).join(', ')}`);
  }
}
if (found.length > 0) process.exit(1);
console.log(`no import cycles among ${graph.size} modules`);
