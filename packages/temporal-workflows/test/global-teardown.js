export default async function globalTeardown() {
  globalThis.__TEMPORAL_SERVER__?.kill('SIGTERM');
}
