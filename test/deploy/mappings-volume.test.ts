// The gateway reads its mappings from two ConfigMap volumes, one mounted inside the other (deploy/kubernetes).
// The kubelet writes a ConfigMap volume in its own layout: the files in a timestamped folder, a `..data`
// symlink to that folder, and one symlink per key beside it (so an update swaps one link). This test builds
// that layout (mappings/ with records/ inside) and checks that the gateway loads it exactly as the shipped
// folder, and that `legacy-gateway openapi` describes the same surface from it.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openApiDocumentFor } from '../../src/commands/openapi.js';
import { SHIPPED_MAPPINGS_DIR } from '../../src/gateway/config.js';
import { loadMappingDirectorySync } from '../../src/gateway/loaders/mapping-files.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'deploy-mappings-volume-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** One ConfigMap volume as the kubelet writes it: every file of `from` (not its folders) under `at`. */
function configMapVolume(from: string, at: string): void {
  const version = '..2026_11_24_09_00_00.0123456789';
  mkdirSync(path.join(at, version), { recursive: true });
  const keys = readdirSync(from, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  for (const key of keys) cpSync(path.join(from, key), path.join(at, version, key));
  symlinkSync(version, path.join(at, '..data'));
  for (const key of keys) symlinkSync(path.join('..data', key), path.join(at, key));
}

it('loads two ConfigMap volumes (mappings/, then records/ mounted inside it) exactly as the shipped folder', async () => {
  const mappingsDir = path.join(scratch, 'etc', 'legacy-gateway', 'mappings');
  configMapVolume(SHIPPED_MAPPINGS_DIR, mappingsDir);
  // The nested mount: the kubelet makes its mount point inside the first volume.
  configMapVolume(path.join(SHIPPED_MAPPINGS_DIR, 'records'), path.join(mappingsDir, 'records'));

  const fromVolumes = loadMappingDirectorySync(mappingsDir);
  const shipped = loadMappingDirectorySync(SHIPPED_MAPPINGS_DIR);
  expect(fromVolumes).toEqual(shipped);
  expect(await openApiDocumentFor(mappingsDir)).toEqual(await openApiDocumentFor(SHIPPED_MAPPINGS_DIR));
});
