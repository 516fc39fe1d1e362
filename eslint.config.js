// @ts-check
// ESLint flat config: correctness rules only, no style rules (Prettier owns formatting, see .prettierrc).
// Type-aware rules use TypeScript's project service, so src/ and test/ are checked against tsconfig.json.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'build/', 'fixtures/', 'coverage/', 'test-output/', 'schema/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Which files import-x follows, and how: .ts sources are imported as .js (NodeNext).
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      // A cycle makes load order, and so which binding is still undefined, depend on the entry point.
      // Type-only imports are exempt (they vanish at runtime); a dynamic import() in a cycle is not.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Rethrowing or rejecting with what a catch caught passes it on unchanged; only a known non-Error is flagged.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // An async function without await is how a sync body meets a Promise-returning interface (a sync throw becomes a rejection).
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // vitest's asymmetric matchers (expect.stringMatching, expect.any, ...) are typed `any` and belong in object literals.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // The few plain JS files (the bin shim, this config) are not part of a TypeScript project.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
