#!/usr/bin/env node
import { main } from './main.js';

// The executable: main does the work and returns the exit code, so that tests can also run it in
// their own process (test/helpers/cli.ts).
main(process.argv).then((code) => {
  process.exitCode = code;
});
