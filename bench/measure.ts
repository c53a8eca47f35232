import { execa } from 'execa';
import { readFile } from 'node:fs/promises';

export interface ProcessMeasurement {
  exitCode: number | undefined;
  wallMs: number;
  /** Peak resident set size of the child, from the kernel's high-water mark (VmHWM). */
  peakRssBytes: number;
  stdout: string;
  stderr: string;
}

/** Runs a command as a child process and measures wall time and peak memory (Linux /proc). */
export async function measureProcess(command: string, args: string[], cwd: string): Promise<ProcessMeasurement> {
  const started = performance.now();
  const child = execa(command, args, { cwd, reject: false, maxBuffer: 1 << 30 });
  let peakKb = 0;
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    readFile(`/proc/${child.pid}/status`, 'utf8')
      .then((status) => {
        const match = /VmHWM:\s+(\d+) kB/.exec(status);
        if (match) peakKb = Math.max(peakKb, Number(match[1]));
      })
      .catch(() => {});
  }, 50);
  const result = await child;
  clearInterval(poll);
  return {
    exitCode: result.exitCode,
    wallMs: performance.now() - started,
    peakRssBytes: peakKb * 1024,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
  };
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
