import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Preloaded with `node --import` into a pdsnap process whose memory is measured: at exit it writes
 * its peak resident set size (bytes) to the file named by PDSNAP_PEAK_RSS_FILE. Used by the hostile
 * sources benchmark and tests, so that no external `time` program is needed.
 *
 * Linux's VmHWM is the peak of this process's own memory. getrusage's maxRSS is not: a child
 * forked by a large parent (a test runner) starts with the parent's peak, so it is only the
 * fallback where /proc does not exist.
 */
const target = process.env.PDSNAP_PEAK_RSS_FILE;
if (target) {
  process.on('exit', () => writeFileSync(target, String(peakRssBytes())));
}

function peakRssBytes(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024; // kilobytes
}
