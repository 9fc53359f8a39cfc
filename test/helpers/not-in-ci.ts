/**
 * Imported first by tests that render Ink views "on a terminal": Ink decides at import time,
 * through `is-in-ci`, whether to draw live frames, and CI (CI=true) would make it draw none.
 * This module must be evaluated before Ink is, so it is the test file's first import.
 */
for (const key of Object.keys(process.env)) {
  if (key === 'CI' || key === 'CONTINUOUS_INTEGRATION' || key.startsWith('CI_')) delete process.env[key];
}
export {};
