import type { FastifyInstance } from 'fastify';
import type { SnapshotStatus } from './metrics.js';

/** Whether the server is on its way out (SIGTERM received): readiness fails at once. */
export interface Lifecycle {
  draining: boolean;
}

/**
 * Probes for orchestrators, outside both profiles and without a key: `/healthz` says the process
 * answers; `/readyz` says it should get traffic: every dataset has a loaded, verified snapshot and
 * the server is not draining. Neither is counted against any key nor limited in any way.
 */
export function registerHealthRoutes(app: FastifyInstance, lifecycle: Lifecycle, snapshots: () => SnapshotStatus[]): void {
  const probe = { config: { access: { access: 'probe' as const } } };
  app.get('/healthz', probe, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { status: 'ok' };
  });
  app.get('/readyz', probe, async (_request, reply) => {
    const datasets = snapshots();
    const notReady = datasets.filter((d) => !d.ready).map((d) => d.dataset);
    const ready = !lifecycle.draining && notReady.length === 0;
    reply.header('Cache-Control', 'no-store');
    reply.code(ready ? 200 : 503);
    return {
      ready,
      draining: lifecycle.draining,
      datasets: Object.fromEntries(
        datasets.map((d) => [
          d.dataset,
          d.ready
            ? {
                ready: true,
                snapshotId: d.snapshotId,
                ...(d.refused ? { refused: d.refused } : {}),
                ...(d.unreadablePointer ? { unreadablePointer: d.unreadablePointer } : {}),
              }
            : { ready: false },
        ]),
      ),
    };
  });
}
