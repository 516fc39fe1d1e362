/**
 * Every report the test suite makes in-process is checked against the committed JSON Schema
 * (`schema/report-v1.json`) under ajv: each producer of a `Report` (`buildReport`, the metrics,
 * objects, crd and fleet reports, the `--objects` join) and the JSON renderer are wrapped, so a
 * report that the schema rejects fails the test that made it. Loaded by vitest before each test
 * file (`setupFiles` in vitest.config.ts). Reports made by a CLI child process are checked by
 * the tests that read them (test/report/json-schema.test.ts).
 */
import { vi } from 'vitest';
import { assertValidReport } from './report-schema.js';

type Fn = (...args: never[]) => unknown;

/** `f` with its result (a Report, or `{ report }`) checked by {@link assertValidReport}. */
function checked<F extends Fn>(f: F, pick: (result: ReturnType<F>) => unknown = (r) => r): F {
  return ((...args: Parameters<F>) => {
    const result = f(...args) as ReturnType<F>;
    assertValidReport(pick(result));
    return result;
  }) as F;
}

vi.mock(import('../../src/build-report.js'), async (load) => {
  const m = await load();
  return { ...m, buildReport: checked(m.buildReport) };
});
vi.mock(import('../../src/metrics/report.js'), async (load) => {
  const m = await load();
  return { ...m, buildMetricsReport: checked(m.buildMetricsReport) };
});
vi.mock(import('../../src/status/report.js'), async (load) => {
  const m = await load();
  return { ...m, objectsReport: checked(m.objectsReport), crdReport: checked(m.crdReport), joinObjects: checked(m.joinObjects, (r) => r.report) };
});
vi.mock(import('../../src/fleet/report.js'), async (load) => {
  const m = await load();
  return { ...m, fleetReport: checked(m.fleetReport) };
});
vi.mock(import('../../src/report/json.js'), async (load) => {
  const m = await load();
  return {
    ...m,
    renderJson: (report: Parameters<typeof m.renderJson>[0]) => {
      const text = m.renderJson(report);
      assertValidReport(JSON.parse(text));
      return text;
    },
  };
});
