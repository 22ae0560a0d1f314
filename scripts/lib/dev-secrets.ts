// Development secrets, generated once under the data directory so restarts keep decrypting old histories.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadOrCreateDevCodecKeys } from '../../common/codec.js';

async function readOrCreate(path: string, make: () => string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    const value = make();
    await writeFile(path, `${value}\n`, { mode: 0o600 });
    return value;
  }
}

export async function devSecrets(dataDir: string): Promise<{ apiKey: string; codecKeys: string }> {
  await mkdir(dataDir, { recursive: true });
  const apiKey = await readOrCreate(join(dataDir, 'api-key'), () => `rf_dev_${randomBytes(24).toString('base64url')}`);
  const codecKeys = await loadOrCreateDevCodecKeys(dataDir);
  return { apiKey, codecKeys };
}
