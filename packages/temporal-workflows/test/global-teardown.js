// Stops the dev server started by global-setup.js and waits for it to exit.
export default async function globalTeardown() {
  const server = globalThis.__TEMPORAL_SERVER__;
  if (!server || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
