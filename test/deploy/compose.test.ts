// Guards docker-compose.yml and the Dockerfile against drifting from each other and from the code:
// service names used as hosts, ports, commands, build context, secrets.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

interface Service {
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  environment?: Record<string, unknown> | string[];
  ports?: Array<string | number | { target: number; published?: string | number }>;
  depends_on?: string[] | Record<string, unknown>;
  volumes?: string[];
}
// `merge: true` resolves the `<<: *anchor` keys the way Compose does.
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

function service(name: string): Service {
  const s = services[name];
  assert.ok(s, `service "${name}" is missing`);
  return s;
}
function env(name: string): Record<string, string> {
  const e = service(name).environment ?? {};
  const pairs = Array.isArray(e) ? e.map((kv) => kv.split(/=(.*)/s).slice(0, 2)) : Object.entries(e);
  return Object.fromEntries(pairs.map(([k, v]) => [k, String(v ?? '')]));
}
function command(name: string): string[] {
  const c = service(name).command;
  return Array.isArray(c)
    ? c
    : String(c ?? '')
        .split(/\s+/)
        .filter(Boolean);
}
/** [host port, container port] pairs, from "h:c", "ip:h:c", "c" or the long syntax. */
function ports(name: string): Array<[number | undefined, number]> {
  return (service(name).ports ?? []).map((p) => {
    if (typeof p === 'object') return [p.published === undefined ? undefined : Number(p.published), p.target];
    const parts = String(p).split('/')[0]!.split(':');
    const container = Number(parts.at(-1));
    return [parts.length > 1 ? Number(parts.at(-2)) : undefined, container];
  });
}
function dependsOn(name: string): string[] {
  const d = service(name).depends_on ?? [];
  return Array.isArray(d) ? d : Object.keys(d);
}
/** "host:port" where host must be a compose service exposing that container port. */
function assertServiceAddress(address: string, expectedService: string, what: string) {
  const m = /^([^:/]+):(\d+)$/.exec(address);
  assert.ok(m, `${what}: "${address}" is not host:port`);
  assert.equal(m[1], expectedService, `${what} must point at the "${expectedService}" service`);
  assert.ok(
    ports(expectedService).some(([, c]) => c === Number(m[2])),
    `${what}: ${expectedService} does not expose port ${m[2]}`,
  );
}

const APP_SERVICES = { api: 'api/main.ts', worker: 'workers/main.ts', sandbox: 'sandbox/main.ts' } as const;

describe('docker-compose.yml', () => {
  it('declares every service of the stack', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-ui', 'sandbox', 'api', 'worker']) service(name);
  });

  it('builds api, worker and sandbox from one context that holds the Dockerfile', () => {
    const contexts = Object.keys(APP_SERVICES).map((name) => {
      const b = service(name).build;
      assert.ok(b, `${name} has no build`);
      const context = typeof b === 'string' ? b : (b.context ?? '.');
      const dockerfile = typeof b === 'string' ? 'Dockerfile' : (b.dockerfile ?? 'Dockerfile');
      return `${context}|${dockerfile}`;
    });
    assert.equal(new Set(contexts).size, 1, `different builds: ${contexts.join(', ')}`);
    assert.equal(contexts[0], '.|Dockerfile');
    assert.ok(existsSync(join(root, 'Dockerfile')));
  });

  it('runs each role with node on the compiled entry point of an existing source file', () => {
    const tsconfig = JSON.parse(read('tsconfig.json')) as { compilerOptions: { outDir: string; rootDir: string } };
    // The dist/<x>.js <-> <x>.ts mapping below holds only while tsc compiles "." into "dist".
    assert.equal(tsconfig.compilerOptions.outDir, 'dist');
    assert.equal(tsconfig.compilerOptions.rootDir, '.');
    for (const [name, source] of Object.entries(APP_SERVICES)) {
      const [node, entry, ...rest] = command(name);
      assert.equal(node, 'node', `${name} must run node`);
      assert.deepEqual(rest, [], `${name}: unexpected arguments`);
      assert.equal(entry, `dist/${source.replace(/\.ts$/, '.js')}`, `${name} runs the wrong entry point`);
      assert.ok(existsSync(join(root, source)), `${name}: ${source} does not exist (compiled to ${entry})`);
    }
  });

  it('points the api, the workers and the UI at the temporal service', () => {
    for (const name of ['api', 'worker', 'temporal-ui']) {
      assertServiceAddress(env(name).TEMPORAL_ADDRESS ?? '', 'temporal', `${name} TEMPORAL_ADDRESS`);
    }
    assert.ok(
      ports('temporal').some(([h, c]) => h === 7233 && c === 7233),
      'temporal must publish 7233:7233',
    );
    for (const name of ['api', 'worker', 'temporal-ui']) assert.ok(dependsOn(name).includes('temporal'), `${name} depends_on temporal`);
  });

  it('wires temporal to postgresql with matching credentials', () => {
    const t = env('temporal');
    const pg = env('postgresql');
    assert.equal(t.DB, 'postgres12');
    assert.equal(t.POSTGRES_SEEDS, 'postgresql');
    assert.equal(t.DB_PORT, '5432');
    assert.equal(t.POSTGRES_USER, pg.POSTGRES_USER);
    assert.equal(t.POSTGRES_PWD, pg.POSTGRES_PASSWORD);
    assert.ok(dependsOn('temporal').includes('postgresql'));
  });

  it("keeps temporal's archived histories on a named volume", () => {
    const dir = env('temporal').ARCHIVAL_DIR;
    assert.ok(dir, 'ARCHIVAL_DIR is set (deploy/temporal/docker.yaml archives under it)');
    const mount = (service('temporal').volumes ?? []).map((v) => v.split(':')).find(([, target]) => dir === target || dir.startsWith(`${target}/`));
    assert.ok(mount, `a volume holds ${dir}`);
    assert.ok(Object.keys((compose as { volumes?: Record<string, unknown> }).volumes ?? {}).includes(mount[0]!), `${mount[0]} is a named volume`);
    assert.match(read('deploy/temporal/docker.yaml'), /env "ARCHIVAL_DIR"/);
  });

  it('gives api and workers the sandbox URL of the sandbox service and its port', () => {
    const sandbox = env('sandbox');
    assert.equal(sandbox.SANDBOX_HOST, '0.0.0.0', 'the sandbox must listen beyond its container');
    const port = Number(sandbox.SANDBOX_PORT);
    assert.ok(
      ports('sandbox').some(([, c]) => c === port),
      `sandbox does not publish SANDBOX_PORT ${port}`,
    );
    for (const name of ['api', 'worker']) {
      const url = new URL(env(name).PLATFORM_SANDBOX_URL ?? 'missing:');
      assert.equal(url.hostname, 'sandbox', `${name} PLATFORM_SANDBOX_URL host`);
      assert.equal(Number(url.port), port, `${name} PLATFORM_SANDBOX_URL port`);
    }
  });

  it("publishes the api's port and points the UI's codec endpoint at it", () => {
    const api = env('api');
    assert.equal(api.RELAYFLOW_API_HOST, '0.0.0.0');
    const port = Number(api.RELAYFLOW_API_PORT);
    assert.ok(port > 0);
    assert.ok(
      ports('api').some(([h, c]) => h === port && c === port),
      `api must publish ${port}:${port}`,
    );
    const codec = new URL(env('temporal-ui').TEMPORAL_CODEC_ENDPOINT ?? 'missing:');
    // The browser calls it, so it is the host's published port, and the routes live under /codec.
    assert.equal(codec.hostname, 'localhost');
    assert.equal(Number(codec.port), port);
    assert.equal(codec.pathname, '/codec');
    const uiOrigin = `http://localhost:${ports('temporal-ui')[0]?.[0]}`;
    assert.ok((api.RELAYFLOW_CODEC_CORS_ORIGINS ?? '').split(',').includes(uiOrigin), `api must allow the UI origin ${uiOrigin}`);
  });

  it('gives api and workers one public URL that defaults to the front and its port (callbacks reach a live instance)', () => {
    const value = env('api').RELAYFLOW_PUBLIC_URL;
    assert.equal(env('worker').RELAYFLOW_PUBLIC_URL, value, 'api and worker must share RELAYFLOW_PUBLIC_URL');
    // Overridable from .env (a proxy's public address), with a default that works inside the compose network.
    const m = /^\$\{RELAYFLOW_PUBLIC_URL:-([^}]+)\}$/.exec(value ?? '');
    assert.ok(m, `RELAYFLOW_PUBLIC_URL must be \${RELAYFLOW_PUBLIC_URL:-default} (got "${value}")`);
    const url = new URL(m[1]!);
    assert.equal(url.protocol, 'http:');
    assert.equal(url.hostname, 'front', 'the default must name the front service');
    assert.equal(Number(url.port), Number(env('front').FRONT_PORT), 'the default must use the port the front listens on');
    for (const target of (env('front').FRONT_TARGETS ?? '').split(',')) {
      const t = new URL(target);
      assert.equal(Number(t.port), Number(env(t.hostname).RELAYFLOW_API_PORT), `the front's target ${target} must be where ${t.hostname} listens`);
    }
  });

  it('gives api and workers one campaign store: a database on the postgresql service that its init script creates', () => {
    const value = env('api').RELAYFLOW_DATABASE_URL ?? '';
    assert.equal(env('worker').RELAYFLOW_DATABASE_URL, value, 'api and worker must share RELAYFLOW_DATABASE_URL');
    const url = new URL(value.replace(/\$\{TEMPORAL_DB_PASSWORD:-([^}]+)\}/, '$1'));
    assert.equal(url.protocol, 'postgres:');
    assert.equal(url.hostname, 'postgresql');
    assert.equal(url.username, env('postgresql').POSTGRES_USER);
    const database = url.pathname.slice(1);
    const mount = (service('postgresql').volumes ?? []).find((v) => v.includes('/docker-entrypoint-initdb.d/'));
    assert.ok(mount, 'postgresql mounts no init script');
    const script = mount.split(':')[0]!.replace(/^\.\//, '');
    assert.match(read(script), new RegExp(`CREATE DATABASE ${database};`), `${script} must create ${database}`);
    for (const name of ['api', 'worker']) assert.ok(dependsOn(name).includes('postgresql'), `${name} depends_on postgresql`);
  });

  it('requires the secrets from the environment, and api and workers share the codec keys', () => {
    const required = (value: string | undefined, name: string) =>
      assert.match(value ?? '', new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`), `${name} must use \${${name}:?message}`);
    required(env('api').RELAYFLOW_API_KEYS, 'RELAYFLOW_API_KEYS');
    for (const name of ['api', 'worker']) required(env(name).RELAYFLOW_CODEC_KEYS, 'RELAYFLOW_CODEC_KEYS');
    assert.equal(env('api').RELAYFLOW_CODEC_KEYS, env('worker').RELAYFLOW_CODEC_KEYS);
    assert.equal(env('sandbox').RELAYFLOW_CODEC_KEYS, undefined, 'the sandbox needs no codec keys');
    assert.match(read('docker-compose.yml'), /^x-relayflow-env: &relayflow-env$/m);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('builds with npm ci and npm run build on node 20 bookworm-slim', () => {
    assert.ok(instructions.some((l) => /^FROM node:20-bookworm-slim\b/.test(l)));
    assert.ok(instructions.some((l) => /^RUN npm ci\b/.test(l)));
    assert.ok(instructions.some((l) => /^RUN npm run build$/.test(l)));
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    assert.ok(pkg.scripts.build, 'package.json has no build script');
  });

  it('runs as a non-root user and defaults to the api command', () => {
    const users = instructions.filter((l) => l.startsWith('USER '));
    assert.ok(users.length > 0 && !/^USER (root|0)\b/.test(users.at(-1)!), 'last USER must not be root');
    const cmd = instructions.filter((l) => l.startsWith('CMD ')).at(-1);
    assert.ok(cmd, 'no CMD');
    assert.deepEqual(JSON.parse(cmd.slice(4)), command('api'));
  });

  it('keeps secrets and local state out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['.env', 'node_modules', 'dist', '.relayflow', '.git']) assert.ok(ignored.includes(entry), `.dockerignore lacks ${entry}`);
  });
});
