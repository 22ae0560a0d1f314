// Waiting for a child process to say something (its URL, "ready"): what it prints on stdout and stderr is
// read as it comes, and kept draining afterwards so the child never blocks on a full pipe.
import type { ChildProcess } from 'node:child_process';

/** The first match of `pattern` in the child's output; rejects with the output so far if it exits first or `timeoutMs` passes. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number, what = 'the child'): Promise<RegExpExecArray> {
  let out = '';
  let settled = false;
  return new Promise((resolve, reject) => {
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${what} printed nothing matching ${pattern} within ${timeoutMs} ms: ${out.slice(-2000)}`))),
      timeoutMs,
    );
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        if (settled) return;
        out += chunk.toString('utf8');
        const m = pattern.exec(out);
        if (m) finish(() => resolve(m));
      });
    }
    child.once('exit', (code, signal) => finish(() => reject(new Error(`${what} exited early (${code ?? signal}): ${out.slice(-2000)}`))));
  });
}
