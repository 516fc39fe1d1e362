/**
 * Links to the documentation pages in the package's repository: each finding kind has a page
 * `docs/detectors/<kind>.md`, and every finding of a built-in detector carries its page's URL in
 * `docs` (as eslint rules carry theirs). The repository is the one package.json names.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../package.json') as { repository?: string | { url?: string } };

/**
 * The repository's web address from package.json's `repository` (`git+https://github.com/o/r.git`
 * → `https://github.com/o/r`), without a trailing slash. Throws when package.json names none.
 */
export function repositoryUrl(repository: string | { url?: string } | undefined = pkg.repository): string {
  const url = typeof repository === 'string' ? repository : repository?.url;
  if (url === undefined || url === '') throw new Error('package.json names no repository');
  return url
    .replace(/^git\+/, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
}

/** Branch the documentation links point at. */
export const DOCS_BRANCH = 'main';

/** URL of the page of finding kind `kind`: `<repository>/blob/main/docs/detectors/<kind>.md`. */
export function detectorDocsUrl(kind: string): string {
  return `${repositoryUrl()}/blob/${DOCS_BRANCH}/docs/detectors/${kind}.md`;
}
