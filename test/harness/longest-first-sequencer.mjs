// Jest's default order runs the files that took longest last time first, but in a clean clone it
// has no timings and falls back to file size: a short file of slow e2e cases could start last and
// leave the other workers idle at the end. Here a file without a timing is given its project's
// mean from a clean run (make test), so server-driving files start before the unit tests that
// fill the gaps; the file size orders files within a project.
import TestSequencer from '@jest/test-sequencer';

/** Mean seconds per file of each project in a clean `make test` run on two cores. */
const PROJECT_MEAN_SECONDS = { e2e: 22, security: 22, fault: 17, integration: 9, unit: 1 };

export default class LongestFirstSequencer extends TestSequencer {
  time(test) {
    const measured = super.time(test);
    if (measured != null) return measured;
    const mean = PROJECT_MEAN_SECONDS[test.context.config.displayName?.name] ?? 1;
    // A millisecond per KiB of test file: larger files first among those of one project.
    return mean * 1000 + (test.context.hasteFS.getSize(test.path) ?? 0) / 1024;
  }
}
