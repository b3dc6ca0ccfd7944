// Code rules the compiler does not check. The architecture (which folder may import which, no
// cycles) is dependency-cruiser's job: .dependency-cruiser.cjs. Formatting is Prettier's.
import stylistic from '@stylistic/eslint-plugin'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'reports/**', '.stryker-tmp/**', 'bench/peers/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin, '@stylistic': stylistic },
    rules: {
      // Long model-facing texts stay whole strings; everything else fits in 120 columns.
      '@stylistic/max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'No enum: use a union of string literals (docs/conventions.md).' },
        { selector: 'ExportDefaultDeclaration', message: 'Named exports only (docs/conventions.md).' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    // Deterministic layers: no wall clock, no randomness (time and ids come through ports).
    files: ['src/events/**/*.ts', 'src/projections/**/*.ts', 'src/machines/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Time comes through the Clock port.' },
        { object: 'Math', property: 'random', message: 'Randomness comes through a port.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Time comes through the Clock port.' },
        { selector: 'TSEnumDeclaration', message: 'No enum: use a union of string literals (docs/conventions.md).' },
        { selector: 'ExportDefaultDeclaration', message: 'Named exports only (docs/conventions.md).' },
      ],
    },
  },
)
