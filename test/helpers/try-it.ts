// The README's ```sh try-it blocks and a bash to run them in: the README test runs them against `npm start`, the
// cluster's fault suite against the cluster's front (test/faults/). The first block holds the variables and helpers.
import { spawn } from 'node:child_process';

/** The process kinds the README's blocks must start, each at least once: every family is among them. */
const TRY_IT_KINDS = [
  'subproject',
  'verification',
  'chata-template',
  'chatb-sender',
  'bundle-provisioning',
  'onboarding',
  'senderid-registration',
  'conversation-campaign',
  'mms-campaign',
  'voice-callout',
  'voice-incoming',
];

/** The ```sh try-it blocks of a Markdown text, in order. */
export function tryItBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh try-it\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** Runs a script in bash with `set -eo pipefail`: a `curl -f` that meets an HTTP error fails it. */
function bash(script: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -eo pipefail\n${script}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    // 'close', not 'exit': the process can exit before its output is all read (a loaded machine lost a block's last line).
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** Each block after the first, with the first before it, side by side (each waits on the sandbox's reviewers, not the CPU). */
export async function runTryIts(markdown: string, env: Record<string, string>): Promise<Array<{ block: string; run: Ran }>> {
  const [setup, ...tries] = tryItBlocks(markdown) as [string, ...string[]];
  const runs = await Promise.all(tries.map((block) => bash(`${setup}\n${block}`, env)));
  return tries.map((block, i) => ({ block, run: runs[i]! }));
}

/** A block's failure, or a `wait_for STATE` it did not see printed: what the assertion reports. */
export function tryItProblems(results: Array<{ block: string; run: Ran }>): string[] {
  const problems: string[] = [];
  results.forEach(({ block, run }, i) => {
    if (run.code !== 0) {
      problems.push(`block ${i + 1} failed (exit ${run.code}):\n${block}\nstderr:\n${run.err}\nstdout:\n${run.out.slice(-2000)}`);
      return;
    }
    for (const [, state] of block.matchAll(/^wait_for (\w+) /gm)) {
      if (!run.out.includes(`"state":"${state}"`)) problems.push(`block ${i + 1} did not print its process in ${state}:\n${block}`);
    }
  });
  return problems;
}

/** The kinds no process was listed for (the README must start one of each). */
export async function kindsNotStarted(api: string, key: string): Promise<string[]> {
  const missing: string[] = [];
  for (const kind of TRY_IT_KINDS) {
    const res = await fetch(`${api}/v1/processes?kind=${kind}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`GET /v1/processes?kind=${kind}: ${res.status} ${await res.text()}`);
    const { processes } = (await res.json()) as { processes: unknown[] };
    if (processes.length === 0) missing.push(kind);
  }
  return missing;
}
