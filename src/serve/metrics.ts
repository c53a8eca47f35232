import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatasetName } from '../model/dataset.js';

/** What the metrics read of the served snapshots at each scrape. */
export interface SnapshotStatus {
  dataset: DatasetName;
  ready: boolean;
  snapshotId?: string;
  generatedAtMs?: number;
  freshUntilMs?: number;
  /** Why a newer snapshot was refused while this one kept being served. */
  refused?: { snapshotId: string; reason: string };
  /** What is wrong with the current pointer (damaged, not absent) while this snapshot kept being served. */
  unreadablePointer?: { reason: string };
}

/**
 * The server's Prometheus metrics, in a registry of its own (several servers in one process, as in
 * tests, never share counters). Labels are bounded: routes as declared (never the URL a client
 * sent), status codes, datasets, and the served snapshot id, one at a time per dataset.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'pdsnap_http_requests_total',
    help: 'Requests answered, by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'pdsnap_http_request_duration_seconds',
    help: 'Time from the request to the end of the answer, by route',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly limited = new Counter({
    name: 'pdsnap_rate_limit_rejections_total',
    help: 'Requests refused with 429, by error code (rate_limited, quota_exceeded)',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  private readonly reloads = new Counter({
    name: 'pdsnap_snapshot_reloads_total',
    help: 'Attempts to load a newly published snapshot, by dataset and outcome',
    labelNames: ['dataset', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(snapshots: () => SnapshotStatus[], now: () => Date) {
    collectDefaultMetrics({ register: this.registry, prefix: 'pdsnap_' });
    const info = new Gauge({
      name: 'pdsnap_snapshot_info',
      help: 'The snapshot served per dataset (value 1)',
      labelNames: ['dataset', 'snapshot_id'] as const,
      registers: [this.registry],
    });
    const ready = new Gauge({
      name: 'pdsnap_snapshot_ready',
      help: '1 when the dataset has a loaded, verified snapshot',
      labelNames: ['dataset'] as const,
      registers: [this.registry],
    });
    const age = new Gauge({
      name: 'pdsnap_snapshot_age_seconds',
      help: 'Seconds since the served snapshot was generated',
      labelNames: ['dataset'] as const,
      registers: [this.registry],
    });
    const refused = new Gauge({
      name: 'pdsnap_snapshot_refused',
      help: '1 while a newer snapshot of the dataset failed verification and the previous one is still served',
      labelNames: ['dataset'] as const,
      registers: [this.registry],
    });
    const unreadablePointer = new Gauge({
      name: 'pdsnap_snapshot_pointer_unreadable',
      help: "1 while the dataset's current pointer is damaged (not absent) and the verified snapshot is still served",
      labelNames: ['dataset'] as const,
      registers: [this.registry],
    });
    const untilStale = new Gauge({
      name: 'pdsnap_snapshot_seconds_until_stale',
      help: 'Seconds until the served snapshot stops being fresh (negative: stale, answering 503)',
      labelNames: ['dataset'] as const,
      registers: [this.registry],
    });
    // Read at scrape time, so the figures are never older than the scrape.
    const refresh = () => {
      const at = now().getTime();
      info.reset();
      for (const status of snapshots()) {
        ready.set({ dataset: status.dataset }, status.ready ? 1 : 0);
        refused.set({ dataset: status.dataset }, status.refused ? 1 : 0);
        unreadablePointer.set({ dataset: status.dataset }, status.unreadablePointer ? 1 : 0);
        if (!status.ready || status.snapshotId === undefined) {
          age.remove({ dataset: status.dataset });
          untilStale.remove({ dataset: status.dataset });
          continue;
        }
        info.set({ dataset: status.dataset, snapshot_id: status.snapshotId }, 1);
        if (status.generatedAtMs !== undefined) age.set({ dataset: status.dataset }, Math.round((at - status.generatedAtMs) / 1000));
        if (status.freshUntilMs !== undefined) untilStale.set({ dataset: status.dataset }, Math.round((status.freshUntilMs - at) / 1000));
      }
    };
    this.refreshSnapshots = refresh;
  }

  private readonly refreshSnapshots: () => void;

  observeRequest(route: string, status: number, seconds: number): void {
    this.requests.inc({ route, status: String(status) });
    this.latency.observe({ route }, seconds);
  }

  rateLimited(code: string): void {
    this.limited.inc({ code });
  }

  snapshotReload(dataset: DatasetName, outcome: 'loaded' | 'failed'): void {
    this.reloads.inc({ dataset, outcome });
  }

  /** The Prometheus text exposition. */
  async text(): Promise<string> {
    this.refreshSnapshots();
    return this.registry.metrics();
  }
}
