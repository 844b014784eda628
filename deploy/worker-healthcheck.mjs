// Health check of the `worker` service (docker-compose.yml) and of the native units: asks the worker's
// own /readyz (packages/temporal-workflows/src/worker/health.ts) on SELLING_KIT_METRICS_ADDRESS, else
// SELLING_KIT_HEALTH_ADDRESS — the same variables the worker listens on, so it runs with the worker's
// environment. Readiness is the worker's view: Temporal through its own connection (namespace, TLS, API
// key), its job store and token store writable, its codec key loaded, its pollers seen by the server. A
// worker that was killed does not answer: unhealthy. Exit 0 = ready, 1 = not ready or not answering
// (the failing checks are printed, never a secret).
const { healthAddress, localUrl } = await import('../packages/temporal-workflows/src/worker/health.ts');

const listener = healthAddress(process.env);
if (!listener) {
  console.error(
    'health check failed: set SELLING_KIT_HEALTH_ADDRESS (or SELLING_KIT_METRICS_ADDRESS) on the worker',
  );
  process.exit(1);
}
let url;
try {
  url = `${localUrl(listener.address, listener.variable)}/readyz`;
  const response = await fetch(url, { signal: AbortSignal.timeout(8000) });
  const body = await response.json().catch(() => ({}));
  if (response.ok) process.exit(0);
  const failing = Object.entries(body.checks ?? {})
    .filter(([, result]) => !result.ok)
    .map(([name, result]) => `${name} (${result.error})`);
  console.error(`not ready: ${failing.join(', ') || body.error || `HTTP ${response.status}`}`);
  process.exit(1);
} catch (e) {
  console.error(`health check failed: ${url ?? listener.address}: ${e.cause?.message ?? e.message}`);
  process.exit(1);
}
