import client from "prom-client";

/**
 * Prometheus metrics (docs/decisions/079-logs-and-metrics.md), served by server.js at
 * /metrics when METRICS_TOKEN is set. prom-client keeps one registry per process; each
 * metric is made once even when this module is loaded again (dev reloads, tests).
 */
function metric<T extends client.Metric<string>>(name: string, make: () => T): T {
  return (client.register.getSingleMetric(name) as T | undefined) ?? make();
}

const defaultsKey = Symbol.for("inkstone.defaultMetrics");
const shared = globalThis as unknown as Record<symbol, boolean>;
if (!shared[defaultsKey]) {
  shared[defaultsKey] = true;
  client.collectDefaultMetrics({ prefix: "inkstone_" });
}

const httpRequests = metric(
  "inkstone_http_requests_total",
  () => new client.Counter({ name: "inkstone_http_requests_total", help: "Requests answered, by method, route pattern and status.", labelNames: ["method", "route", "status"] }),
);

const httpDuration = metric(
  "inkstone_http_request_duration_seconds",
  () =>
    new client.Histogram({
      name: "inkstone_http_request_duration_seconds",
      help: "Time from the request's arrival to the end of its answer, by method and route pattern.",
      labelNames: ["method", "route"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
);

export const liveStreams = metric(
  "inkstone_sse_connections",
  () => new client.Gauge({ name: "inkstone_sse_connections", help: "Open live-update streams (/api/events)." }),
);

export const generationStreams = metric(
  "inkstone_generation_streams",
  () => new client.Gauge({ name: "inkstone_generation_streams", help: "AI generation streams in flight (/api/generate)." }),
);

export const chaptersReleased = metric(
  "inkstone_chapters_released_total",
  () => new client.Counter({ name: "inkstone_chapters_released_total", help: "Scheduled chapters this process published when their time came." }),
);

export const followersNotified = metric(
  "inkstone_followers_notified_total",
  () => new client.Counter({ name: "inkstone_followers_notified_total", help: "Followers this process told of new chapters (decision 115)." }),
);

export const jobRuns = metric(
  "inkstone_job_runs_total",
  () => new client.Counter({ name: "inkstone_job_runs_total", help: "Background job runs this process made, by job and outcome (ok, failed; decision 179).", labelNames: ["job", "outcome"] }),
);

export const jobDuration = metric(
  "inkstone_job_duration_seconds",
  () =>
    new client.Histogram({
      name: "inkstone_job_duration_seconds",
      help: "Time a background job's run took, by job (decision 179).",
      labelNames: ["job"],
      buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 30, 120, 600],
    }),
);

/** One answered request, from server.js. */
export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  httpRequests.inc({ method, route, status: String(status) });
  httpDuration.observe({ method, route }, seconds);
}

/** The registry's text, for /metrics. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: client.register.contentType, body: await client.register.metrics() };
}
