import client from "prom-client";

/**
 * The database pool's two gauges (docs/decisions/079-logs-and-metrics.md), kept by the
 * client (client.server.ts) and served at /metrics with the others from prom-client's one
 * registry (platform/metrics.server.ts). Here, not in platform: the db layer imports
 * nothing above it (docs/architecture.md#domains). Each gauge is made once even when this
 * module is loaded again (dev reloads, tests).
 */
function gauge(name: string, help: string): client.Gauge {
  return (client.register.getSingleMetric(name) as client.Gauge | undefined) ?? new client.Gauge({ name, help });
}

export const dbPoolSize = gauge("inkstone_db_pool_size", "Connections the database pool may open (1 for PGlite).");

export const dbTransactionsOpen = gauge("inkstone_db_transactions_open", "Transactions open, each holding a pooled connection.");

/** Counts `promise` as one in flight on `gauge` until it settles. */
export function countWhile<T>(gauge: client.Gauge, promise: Promise<T>): Promise<T> {
  gauge.inc();
  return promise.finally(() => gauge.dec());
}
