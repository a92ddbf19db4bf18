/** Jest runs the compiled tests (tsc -b type-checks them like source). */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/subgraphs', '<rootDir>/router', '<rootDir>/rest-bridge', '<rootDir>/dashboard', '<rootDir>/cli', '<rootDir>/test'],
  testMatch: ['**/dist/**/*.test.js'],
  testPathIgnorePatterns: ['/node_modules/'],
  transform: {},
  testTimeout: 60_000,
  maxWorkers: 2,
  // Suites that start the whole platform leave memory behind in their worker (modules loaded in
  // each suite's vm context); a worker past this after a suite is replaced before the next one,
  // rather than running out of heap some suites later (it did, at 2,264 tests).
  workerIdleMemoryLimit: '1536MB',
  reporters: ['default', '<rootDir>/scripts/summary-reporter.js'],
};
