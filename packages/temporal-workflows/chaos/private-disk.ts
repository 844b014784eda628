// Worker "hosts" on this one machine, each with a disk of its own: a host is a mount namespace
// (`unshare --mount --propagation private`, root only) with a fresh tmpfs mounted over one folder — the
// same path on every host, as a deployment configures every host alike — and a host name of its own (a
// UTS namespace: the worker's identity in Temporal is `pid@host`, a local store records its host). A
// small holder process (`sleep`) keeps the host alive; worker processes run in it through `nsenter`, so
// a worker can stop and start again on the same disk, and a host stopped takes its disk with it (a
// replaced host starts empty). What one host writes below the folder (its HOME, its TMPDIR, a local job
// store) no other host sees: two hosts whose local folders are different disks.
//
// The proof (`isolationProblems`) reads each worker's view through /proc/<pid>/root, which resolves
// paths in that process's mount namespace: the harness sees what the worker sees, without asking it.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The private folder and what lives below it, by path (identical on every host). */
export interface PrivateDisk {
  /** The mount point: an empty folder in the harness's view, a tmpfs on each host. */
  root: string;
  /** The worker's HOME (~/.selling-kit: the default job store, the key file). */
  home: string;
  /** The worker's TMPDIR. */
  tmp: string;
  /** A local job store folder (SELLING_KIT_JOB_STORE) for workers that are given one. */
  jobs: string;
}

/** Written on each host's disk when it starts: which host this disk is. */
const MARKER = '.host';

export const privateDisk = (root: string): PrivateDisk => ({
  root,
  home: join(root, 'home'),
  tmp: join(root, 'tmp'),
  jobs: join(root, 'jobs'),
});

/** Why hosts cannot be made here (undefined: they can). */
export function isolationUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'mount namespaces need Linux';
  if (process.getuid?.() !== 0) return 'mount namespaces and tmpfs mounts need root (unshare --mount)';
  for (const tool of ['unshare', 'nsenter'])
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      return `${tool} (util-linux) is not on PATH`;
    }
  return undefined;
}

// $1 the host's name, $2 the mount point. `set -e`: a failed mount never leaves a host on the shared
// disk. The size bounds what a runaway worker can take from the machine's memory.
const HOST_SCRIPT = [
  'set -e',
  'hostname "$1"',
  'mount -t tmpfs -o size=512m,mode=0755 "sk-$1" "$2"',
  'mkdir -p "$2/home" "$2/tmp" "$2/jobs"',
  `printf %s "$1" > "$2/${MARKER}"`,
  'exec sleep infinity',
].join('\n');

/** `path` as process `pid` sees it (its mount namespace). */
export const seenBy = (pid: number, path: string) => join(`/proc/${pid}/root`, path);

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** One host: its namespaces, held by a process of its own; `stop()` ends it and its disk. */
export class PrivateHost {
  readonly name: string;
  readonly disk: PrivateDisk;
  private readonly holder: ChildProcess;

  private constructor(name: string, disk: PrivateDisk, holder: ChildProcess) {
    this.name = name;
    this.disk = disk;
    this.holder = holder;
  }

  /**
   * Starts host `name` with a fresh disk at `disk.root` (an existing, empty folder); resolves once its
   * disk is mounted. `track` registers the holder process with the caller's clean-up.
   */
  static async start(
    disk: PrivateDisk,
    name: string,
    track: (child: ChildProcess) => ChildProcess = (c) => c,
  ): Promise<PrivateHost> {
    const holder = track(
      spawn(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          '--uts',
          '--',
          'sh',
          '-c',
          HOST_SCRIPT,
          'sh',
          name,
          disk.root,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      ),
    );
    let stderr = '';
    holder.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const host = new PrivateHost(name, disk, holder);
    const deadline = Date.now() + 10_000;
    while (read(seenBy(holder.pid!, join(disk.root, MARKER))) !== name) {
      if (holder.exitCode !== null || Date.now() > deadline) {
        holder.kill('SIGKILL');
        throw new Error(`host ${name} did not start: ${stderr.trim() || 'no disk after 10 s'}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return host;
  }

  /** The holder's pid: its view is the host's. */
  get pid(): number {
    return this.holder.pid!;
  }

  /** `command args` run on this host (exec'd by nsenter: the spawned pid is the command's own). */
  wrap(command: string, args: string[]): { command: string; args: string[] } {
    return {
      command: 'nsenter',
      args: ['--target', String(this.pid), '--mount', '--uts', '--', command, ...args],
    };
  }

  /** Ends the host: its disk goes once no process of it is left. */
  stop(): void {
    if (this.holder.exitCode === null && this.holder.signalCode === null) this.holder.kill('SIGKILL');
  }
}

/**
 * Proves that each worker runs on a disk of its own: the harness's view of the mount point is empty;
 * each worker sees a tmpfs there with its host's marker; a file put on one worker's disk is seen by that
 * worker and by no other. Returns what does not hold (empty: isolated).
 */
export function isolationProblems(
  disk: PrivateDisk,
  workers: { name: string; host: string; pid: number }[],
): string[] {
  const problems: string[] = [];
  if (existsSync(join(disk.root, MARKER)))
    problems.push(`the harness sees a host's marker in ${disk.root}: the disk is shared`);
  for (const w of workers) {
    const mounted = read(`/proc/${w.pid}/mountinfo`)
      ?.split('\n')
      .some((l) => l.split(' ')[4] === disk.root && l.includes(' - tmpfs '));
    if (!mounted) problems.push(`${w.name} (pid ${w.pid}) has no tmpfs at ${disk.root}`);
    const marker = read(seenBy(w.pid, join(disk.root, MARKER)));
    if (marker !== w.host)
      problems.push(`${w.name} sees the marker of ${marker ?? 'no host'} in ${disk.root}, not ${w.host}'s`);
  }
  for (const w of workers) {
    const probe = join(disk.tmp, `probe-from-${w.name}`);
    try {
      writeFileSync(seenBy(w.pid, probe), w.name);
    } catch (e) {
      problems.push(`cannot write on ${w.name}'s disk: ${(e as Error).message}`);
      continue;
    }
    if (read(seenBy(w.pid, probe)) !== w.name) problems.push(`${w.name} does not see a file on its own disk`);
    for (const other of workers)
      if (other !== w && existsSync(seenBy(other.pid, probe)))
        problems.push(`${other.name} sees a file written on ${w.name}'s disk`);
    if (existsSync(probe)) problems.push(`the harness sees a file written on ${w.name}'s disk`);
    rmSync(seenBy(w.pid, probe), { force: true });
  }
  return problems;
}
