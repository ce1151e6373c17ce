// typescript-eslint's type-aware promise rules over src, test and scripts: a promise nobody awaits
// or handles is how a request or controller loses an error without a trace.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'dist-test/**', 'dist-scripts/**', 'node_modules/**', 'data/**', 'test/sample-project/**', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: ['./test/tsconfig.json', './scripts/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
);
