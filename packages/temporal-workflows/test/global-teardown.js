// Stops the dev server started by global-setup.js and waits for it to exit.
export default async function globalTeardown() {
  await globalThis.__TEMPORAL_SERVER__?.stop();
}
