/** Types of `scripts/detector-docs.mjs`, for the test that imports it (test/package/detector-docs.test.ts). */
import type { Detector } from '../src/detectors/types.js';

/** The line before a page's generated options table. */
export const BEGIN: string;
/** The line after a page's generated options table. */
export const END: string;
/** The Markdown options table of `detector`: one row per leaf option, nested ones dotted (`severity.high.share`). */
export function optionsTable(detector: Pick<Detector, 'meta'>): string;
/** `page` with the text between {@link BEGIN} and {@link END} replaced by `table`. @throws Error when a marker is missing. */
export function withTable(page: string, table: string): string;
/** Path of a kind's page (`docs/detectors/<id>.md`), relative to the package root. */
export function pagePath(id: string): string;
