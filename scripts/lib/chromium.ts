// Finds Chromium for the browser tests: CHROMIUM_PATH, `chromium` or `chromium-browser` on PATH, and as root
// with apt-get, Debian's chromium package (installed here, ~20 s once). Otherwise it fails at once with the
// command that installs it.
import { isAbsolute } from 'node:path';
import { isExecutable, onPath, runQuiet, secondsSince, type Env } from './local-tools.js';

const CHROMIUM_NAMES = ['chromium', 'chromium-browser'];
const APT_INSTALL_ARGS = ['install', '-y', '-qq', '--no-install-recommends', 'chromium'];

export interface Chromium {
  path: string;
  source: string;
}

export interface FindChromiumOptions {
  env?: Env;
  log?: (msg: string) => void;
  /** Whether this process may install packages (default: running as root). For tests. */
  root?: boolean;
}

/** The version line when `path` is a Chromium that runs (Ubuntu's snap wrapper without snapd does not), else why not. */
async function works(path: string, env: Env): Promise<string | undefined> {
  try {
    await runQuiet(path, ['--version'], { env, timeoutMs: 20_000 });
    return undefined;
  } catch (err) {
    return `${path} --version failed (${(err as Error).message})`;
  }
}

async function firstOnPath(env: Env): Promise<Chromium | string> {
  const problems: string[] = [];
  for (const name of CHROMIUM_NAMES) {
    const path = await onPath(name, env);
    if (!path) continue;
    const problem = await works(path, env);
    if (!problem) return { path, source: 'PATH' };
    problems.push(problem);
  }
  return problems.length ? problems.join('; ') : `neither ${CHROMIUM_NAMES.join(' nor ')} on PATH`;
}

export async function findChromium(opts: FindChromiumOptions = {}): Promise<Chromium> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  const hint = 'install it with `sudo apt-get install chromium` or set CHROMIUM_PATH to a Chromium or Chrome binary';

  const explicit = env.CHROMIUM_PATH?.trim();
  if (explicit) {
    const path = isAbsolute(explicit) ? explicit : await onPath(explicit, env);
    if (!path || !(await isExecutable(path))) throw new Error(`CHROMIUM_PATH: "${explicit}" is not an executable file`);
    const problem = await works(path, env);
    if (problem) throw new Error(`CHROMIUM_PATH: ${problem}`);
    return { path, source: 'CHROMIUM_PATH' };
  }

  const first = await firstOnPath(env);
  if (typeof first !== 'string') return first;

  const aptGet = await onPath('apt-get', env);
  if (!(opts.root ?? process.getuid?.() === 0) || !aptGet) {
    throw new Error(`Chromium not found for the browser tests (${first}): ${hint}`);
  }
  log('installing Chromium with `apt-get install chromium` (about 20 s, once)');
  const start = Date.now();
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await runQuiet(aptGet, ['update', '-qq'], { env: aptEnv });
    await runQuiet(aptGet, APT_INSTALL_ARGS, { env: aptEnv });
  } catch (err) {
    throw new Error(`Chromium not found and \`apt-get install chromium\` failed (${(err as Error).message}): ${hint}`);
  }
  const installed = await firstOnPath(env);
  if (typeof installed === 'string') throw new Error(`\`apt-get install chromium\` finished but Chromium does not run (${installed}): ${hint}`);
  log(`installed Chromium in ${secondsSince(start)} s`);
  return { path: installed.path, source: 'apt-get install chromium' };
}
