import { Agent, request } from 'node:http';

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
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return {
    requestsPerSecond: Math.round((total * 1000) / (performance.now() - started)),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    non2xx,
    total,
  };
}
