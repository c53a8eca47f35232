import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { percentiles } from './measure.js';

export interface FixedRateResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  total: number;
}

/**
 * An open-loop load at an even rate: request i is sent at start + i / rate, whatever the answers
 * before it, and its latency is measured from that scheduled instant (so a stalled server is seen
 * as the latency its clients would see, not hidden by sending less). autocannon's own rate option
 * sends each second's requests in a burst at the start of the second, which measures bursts, not
 * a steady 1,000 requests a second.
 */
export async function fixedRateLoad(
  url: string,
  headers: () => Record<string, string>,
  rate: number,
  durationS: number,
): Promise<FixedRateResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const total = rate * durationS;
  const latencies: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  const inFlight: Array<Promise<void>> = [];

  const send = (scheduledAt: number) =>
    new Promise<void>((resolve) => {
      const req = request(url, { agent, headers: headers() }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - scheduledAt);
          if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) non2xx += 1;
          resolve();
        });
      });
      req.on('error', () => {
        non2xx += 1;
        resolve();
      });
      req.end();
    });

  for (let i = 0; i < total; ) {
    const now = performance.now();
    // Send every request whose time has come (a timer fires late by up to a millisecond or so).
    while (i < total && started + (i * 1000) / rate <= now) {
      inFlight.push(send(started + (i * 1000) / rate));
      i += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const { p50Ms, p99Ms } = percentiles(latencies);
  return {
    requestsPerSecond: Math.round((total * 1000) / (performance.now() - started)),
    p50Ms,
    p99Ms,
    non2xx,
    total,
  };
}

/**
 * fixedRateLoad in a fresh process. The benchmark process has just run autocannon, whose leftovers
 * (a larger heap, its timers) made the client's own pauses the tail of the measurement: on the same
 * server, the client's p99 was 15 to 19 ms after an autocannon series in the same process and 3 to 4
 * ms in a fresh one, and the bare route itself showed 8 ms. A new process measures the server, not
 * the history of the client.
 */
export function fixedRateInChild(url: string, secrets: readonly string[], rate: number, durationS: number): Promise<FixedRateResult> {
  const child = fork(fileURLToPath(new URL('./fixed-rate-child.js', import.meta.url)), [], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (result) => resolve(result as FixedRateResult));
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`fixed-rate client exited with code ${code} before answering`)));
    child.send({ url, secrets, rate, durationS });
  });
}
