/** Jest runs the compiled tests (tsc -b type-checks them like source). */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/subgraphs', '<rootDir>/router', '<rootDir>/rest-bridge', '<rootDir>/dashboard', '<rootDir>/cli', '<rootDir>/test'],
  testMatch: ['**/dist/**/*.test.js'],
  testPathIgnorePatterns: ['/node_modules/'],
  transform: {},
  testTimeout: 60_000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/summary-reporter.js'],
};
