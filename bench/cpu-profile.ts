// Optional CPU profile of the bench process's main thread around one run, for finding where time goes:
//   RELAYFLOW_BENCH_CPU_PROFILE=/tmp/relayflow.cpuprofile npm run bench
// Open the file in Chrome DevTools (Performance) or summarise it with `npx tsx bench/profile-summary.ts`.
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';

export async function profiled<T>(file: string | undefined, run: () => Promise<T>): Promise<T> {
  if (!file) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
  }
}
