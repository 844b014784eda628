// The simulator's clock: real time scaled by `timeScale`, plus whatever tests advance it by.
// Offer lifetimes, token expiry, rate windows and the read-after-create delay all read this clock.
export class Clock {
  private readonly startReal = Date.now();
  private readonly startSim: number;
  private offsetMs = 0;
  private readonly timeScale: number;

  constructor(timeScale = 1, startSim = Date.now()) {
    if (!(timeScale > 0)) throw new Error(`timeScale must be > 0, got ${timeScale}`);
    this.timeScale = timeScale;
    this.startSim = startSim;
  }

  /** Simulated epoch milliseconds. */
  now(): number {
    return this.startSim + (Date.now() - this.startReal) * this.timeScale + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Converts a simulated duration into the real milliseconds a client must wait. */
  toRealMs(simMs: number): number {
    return simMs / this.timeScale;
  }

  get scale(): number {
    return this.timeScale;
  }
}
