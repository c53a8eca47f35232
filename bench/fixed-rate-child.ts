import { fixedRateLoad } from './fixed-rate.js';

/**
 * One fixed-rate series in a process of its own (see fixedRateInChild): it gets the target, the key
 * secrets to rotate over, the rate and the duration from its parent and sends the result back.
 */
interface Job {
  url: string;
  secrets: string[];
  rate: number;
  durationS: number;
}

process.once('message', async (job: Job) => {
  let next = 0;
  const headers = (): Record<string, string> =>
    job.secrets.length === 0 ? {} : { authorization: `Bearer ${job.secrets[next++ % job.secrets.length]}` };
  const result = await fixedRateLoad(job.url, headers, job.rate, job.durationS);
  process.send?.(result, undefined, {}, () => process.disconnect());
});
