// Reads BROWNOUTS_FILE: YAML, validated (brownout-schema.ts) as every such file is (loaders/yaml-setting-file.ts),
// its `methods` checked against the legacy read methods the gateway serves. At start a bad file stops the
// gateway; on SIGHUP (reload/mapping-reload.ts) a bad file is refused with the file, the path and the reason,
// and the windows in service stay.
import { loadYamlSettingFile, settingFileProblem, settingFileReload } from '../loaders/yaml-setting-file.js';
import type { ReloadableSet } from '../reload/mapping-reload.js';
import { brownoutsFileSchema, brownoutWindows, type BrownoutWindow } from './brownout-schema.js';

export const BROWNOUTS_SETTING = 'BROWNOUTS_FILE';

export interface LoadedBrownouts {
  windows: BrownoutWindow[];
  /** A short SHA-256 of the file, logged at each reload. */
  digest: string;
}

/** Reads and validates the file; throws StaticFileError naming the file, the path and the reason. */
export function loadBrownouts(file: string, readMethods: ReadonlySet<string>): LoadedBrownouts {
  const { data, digest } = loadYamlSettingFile(BROWNOUTS_SETTING, file, brownoutsFileSchema);
  data.brownouts.forEach((w, i) => {
    const unknown = (w.methods ?? []).filter((m) => !readMethods.has(m));
    if (unknown.length > 0) {
      throw settingFileProblem(BROWNOUTS_SETTING, file, `brownouts.${i}.methods`, `not a legacy read method the gateway serves: ${unknown.join(', ')}`);
    }
  });
  return { windows: brownoutWindows(data), digest };
}

/** The windows in service: read by the step on every legacy call, swapped whole by a reload. */
export interface BrownoutSchedule {
  windows(): readonly BrownoutWindow[];
  replace(windows: readonly BrownoutWindow[]): void;
}

export function createBrownoutSchedule(initial: readonly BrownoutWindow[]): BrownoutSchedule {
  let current = initial;
  return {
    windows: () => current,
    replace(windows) {
      current = windows;
    },
  };
}

/** BROWNOUTS_FILE's reload, run on SIGHUP after the mappings (so `methods` is checked against the set just
 * taken over). */
export function brownoutsReload(file: string, schedule: BrownoutSchedule, readMethods: () => ReadonlySet<string>): ReloadableSet {
  return settingFileReload(BROWNOUTS_SETTING, () => loadBrownouts(file, readMethods()), (loaded) => schedule.replace(loaded.windows));
}
