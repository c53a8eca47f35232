import { execa } from 'execa';
import { readFile } from 'node:fs/promises';

export interface ProcessMeasurement {
  exitCode: number | undefined;
  wallMs: number;
  /** Peak resident set size of the child, from the kernel's high-water mark (VmHWM). */
  peakRssBytes: number;
  /**
   * User + system CPU of the child, all its threads, as last read from /proc while it ran (polled
   * every 50 ms, so up to that much of its last moments is missed).
   */
  cpuMs: number;
  stdout: string;
  stderr: string;
}

/**
 * Writes every dirty page to disk (`sync`) before a timed run, so that a run does not pay for the
 * writeback of the one before it (a build fsyncs what it publishes; the previous run may have left
 * a gigabyte unwritten).
 */
export async function flushDirtyPages(): Promise<void> {
  await execa('sync');
}

/** Runs a command as a child process and measures wall time and peak memory (Linux /proc). */
export async function measureProcess(command: string, args: string[], cwd: string): Promise<ProcessMeasurement> {
  const started = performance.now();
  const child = execa(command, args, { cwd, reject: false, maxBuffer: 1 << 30 });
  let peakKb = 0;
  let cpuSeconds = 0;
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    readFile(`/proc/${child.pid}/status`, 'utf8')
      .then((status) => {
        const match = /VmHWM:\s+(\d+) kB/.exec(status);
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      })
      .catch(() => {});
    cpuSecondsOf(child.pid)
      .then((cpu) => {
        if (cpu !== undefined) cpuSeconds = Math.max(cpuSeconds, cpu);
      })
      .catch(() => {});
  }, 50);
  const result = await child;
  clearInterval(poll);
  return {
    exitCode: result.exitCode,
    wallMs: performance.now() - started,
    peakRssBytes: peakKb * 1024,
    cpuMs: cpuSeconds * 1000,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
  };
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** p50 and p99 of latencies in milliseconds, to 0.1 ms, and how many there were. */
export function percentiles(ms: readonly number[]): { requests: number; p50Ms: number; p99Ms: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1));
  return { requests: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** One request line of a `pdsnap serve` log. */
export interface RequestLogEntry {
  requestId?: string;
  /** When the line was written (ms since the epoch). */
  time?: number;
  latencyMs: number;
}

/** The request lines of a server's log; other lines, and a last line still being written, are skipped. */
export async function readRequestLog(logFile: string): Promise<RequestLogEntry[]> {
  const entries: RequestLogEntry[] = [];
  for (const line of (await readFile(logFile, 'utf8')).split('\n')) {
    if (!line.includes('"latencyMs"')) continue;
    let entry: Partial<RequestLogEntry>;
    try {
      entry = JSON.parse(line) as Partial<RequestLogEntry>;
    } catch {
      continue;
    }
    if (entry.latencyMs !== undefined) entries.push({ ...entry, latencyMs: entry.latencyMs });
  }
  return entries;
}

/** User + system CPU seconds of a process so far, all its threads (Linux /proc). */
export async function cpuSecondsOf(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (!fields || fields.length < 13) return undefined;
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
/** USER_HZ, 100 on Linux for every architecture Node.js runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
