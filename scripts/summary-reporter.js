/** Prints one plain closing line, "tests: N passed, N failed[, N skipped]", for CI readers. */
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const suiteFailures = results.numRuntimeErrorTestSuites;
    const failed = results.numFailedTests + suiteFailures;
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
