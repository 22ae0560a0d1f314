// Summarises a .cpuprofile: self time by function and by package, heaviest first.
//   npx tsx bench/profile-summary.ts /tmp/relayflow.cpuprofile [rows=40]
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [rows]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const rows = Number(rowsArg ?? 40);
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byFn = new Map<string, number>();
const byPkg = new Map<string, number>();
const pkgOf = (url: string) => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (!url) return '(native/idle)';
  if (url.startsWith('node:')) return url;
  return url
    .replace(/^file:\/\/.*?\/(work\/main\/)?/, '')
    .split('/')
    .slice(0, 2)
    .join('/');
};
for (const n of profile.nodes) {
  const us = selfUs.get(n.id) ?? 0;
  if (!us) continue;
  const fn = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '')}:${n.callFrame.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  byPkg.set(pkgOf(n.callFrame.url), (byPkg.get(pkgOf(n.callFrame.url)) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title} (total ${(total / 1e6).toFixed(2)} s)\n`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, rows)) process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}\n`);
};
show('self time by package', byPkg);
show('self time by function', byFn);
