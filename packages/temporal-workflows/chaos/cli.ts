// Options of `pnpm chaos` (scripts/chaos.ts) and the printout of the one-host scenario's figures.
import { DEFAULT_OPTIONS, type ChaosOptions, type ChaosResult, type ShopFigures } from './scenario.ts';
import { SCENARIOS, type ScenarioName, type SuiteOptions } from './suite.ts';
import { DEFAULT_TWO_HOST } from './two-host.ts';
import { DEFAULT_UNREACHABLE } from './unreachable.ts';

export const USAGE = `pnpm chaos [scenarios] [options]
Scenarios (none named: all three, one after the other):
  --one-host         crashes on one host: worker kills, a server restart, a 429 storm, a poison item, a cancel
  --two-host         two workers on private disks (mount namespaces), the native topology: the job store in
                     PostgreSQL under 504-after-commit faults and a worker SIGKILL, then local stores (root only)
  --unreachable      a shop whose base URL is http://127.0.0.1:9: paused, credential fixed, resumed, finished
One-host options:
  --items <n>        creates per shop (default ${DEFAULT_OPTIONS.items})
  --shops <n>        shops, one job each (default ${DEFAULT_OPTIONS.shops})
  --scale <x>        simulator time scale; windows and delays pass x times faster (default ${DEFAULT_OPTIONS.scale})
  --allowance <n>/<s>  the jobs' allowance: n creates per s simulated seconds (default ${DEFAULT_OPTIONS.allowance.limit}/${DEFAULT_OPTIONS.allowance.windowMs / 1000}, the spec's)
  --kills <s,s,…>    one worker SIGKILL per number, kept down that many real seconds (default ${DEFAULT_OPTIONS.kills.map((k) => k / 1000).join(',')})
  --full-outage      the longest kill takes every worker down, not one
  --no-kill          no worker kills
  --no-restart       no Temporal server restart
  --no-faults        no 500 / 504 / reset faults
  --no-storm         no 429 storm
  --no-poison        no poison item
  --no-cancel        no cancelled fourth job
  --seed <n>         the simulator's fault seed (default ${DEFAULT_OPTIONS.seed})
  --timeout <s>      give up after this long (default ${DEFAULT_OPTIONS.timeoutMs / 1000})
  --stall <s>        give up when no listing was created for this long (default ${DEFAULT_OPTIONS.stallMs / 1000})
Two-host options:
  --two-host-items <n>   creates per job (default ${DEFAULT_TWO_HOST.items})
  --two-host-scale <x>   simulator time scale (default ${DEFAULT_TWO_HOST.scale})
  --kill-down <s>        the killed worker stays down this long (default ${DEFAULT_TWO_HOST.killDownMs / 1000})
  --no-local             skip the phase with local job stores
Unreachable options:
  --unreachable-items <n>  creates in the job (default ${DEFAULT_UNREACHABLE.items})
  --json             print the figures as JSON (progress goes to stderr)`;

export function parseChaosArgs(argv: string[]): SuiteOptions & { json: boolean } {
  const options: Partial<ChaosOptions> = {};
  const twoHost: SuiteOptions['twoHost'] = {};
  const unreachable: SuiteOptions['unreachable'] = {};
  const scenarios: ScenarioName[] = [];
  let json = false;
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < 0)
      throw new Error(`${flag} needs a number ≥ 0, got ${v}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => argv[++i];
    switch (flag) {
      case '--items':
        options.items = Math.floor(num(flag, value()));
        break;
      case '--shops':
        options.shops = Math.max(1, Math.floor(num(flag, value())));
        break;
      case '--scale':
        options.scale = num(flag, value()) || 1;
        break;
      case '--allowance': {
        const [limit, seconds] = (value() ?? '').split('/');
        options.allowance = {
          limit: Math.max(1, Math.floor(num(flag, limit))),
          windowMs: num(flag, seconds ?? '10') * 1000 || 10_000,
        };
        break;
      }
      case '--kills':
        options.kills = (value() ?? '')
          .split(',')
          .filter(Boolean)
          .map((s) => num(flag, s) * 1000);
        break;
      case '--full-outage':
        options.fullOutage = true;
        break;
      case '--no-kill':
        options.kills = [];
        break;
      case '--no-restart':
        options.restartDownMs = 0;
        break;
      case '--no-faults':
        options.faults = { error500: 0, timeoutAfterCommit: 0, resetAfterCommit: 0 };
        break;
      case '--no-storm':
        options.stormMs = 0;
        break;
      case '--no-poison':
        options.poison = false;
        break;
      case '--no-cancel':
        options.cancel = false;
        break;
      case '--seed':
        options.seed = twoHost.seed = Math.floor(num(flag, value()));
        break;
      case '--timeout':
        options.timeoutMs = num(flag, value()) * 1000;
        break;
      case '--stall':
        options.stallMs = num(flag, value()) * 1000;
        break;
      case '--one-host':
      case '--two-host':
      case '--unreachable':
        scenarios.push(flag.slice(2) as ScenarioName);
        break;
      case '--two-host-items':
        twoHost.items = Math.max(1, Math.floor(num(flag, value())));
        break;
      case '--two-host-scale':
        twoHost.scale = num(flag, value()) || 1;
        break;
      case '--kill-down':
        twoHost.killDownMs = num(flag, value()) * 1000;
        break;
      case '--no-local':
        twoHost.local = false;
        break;
      case '--unreachable-items':
        unreachable.items = Math.max(1, Math.floor(num(flag, value())));
        break;
      case '--json':
        json = true;
        break;
      case '--help':
        throw new Error(USAGE);
      default:
        throw new Error(`unknown option ${flag}\n${USAGE}`);
    }
  }
  return {
    scenarios: scenarios.length ? SCENARIOS.filter((s) => scenarios.includes(s)) : [...SCENARIOS],
    oneHost: options,
    twoHost,
    unreachable,
    json,
  };
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

const shopRow = (s: ShopFigures) => [
  s.shopId.split('-').at(-1)!,
  s.state,
  String(s.items),
  `${s.listings}${s.expected !== undefined ? `/${s.expected}` : ''}`,
  String(s.duplicates),
  String(s.misreported),
  String(s.lost),
  String(s.missingLines),
  Object.entries(s.byStatus)
    .map(([k, v]) => `${k} ${v}`)
    .join(', '),
  String(s.rateLimited),
  (s.wallMs / 1000).toFixed(1),
  s.historyBytesPerItem.toFixed(0),
  s.eventsPerItem.toFixed(3),
  String(s.runs),
  s.sendsPerItem.toFixed(2),
];

export function formatChaos(r: ChaosResult): string {
  const o = r.options;
  const out: string[] = [];
  out.push(
    `chaos: ${o.shops} shops × ${o.items} creates, simulator time scale ×${o.scale}, allowance ${o.allowance.limit} per ${o.allowance.windowMs / 1000} s (simulated), seed ${o.seed}`,
  );
  out.push(
    `  faults on creates: ${o.faults.error500 * 100} % 500, ${o.faults.timeoutAfterCommit * 100} % 504 after commit, ${o.faults.resetAfterCommit * 100} % reset after commit; read-after-create ${o.readAfterCreateMs / 1000} s simulated; fired ${JSON.stringify(r.faultsFired)}`,
  );
  out.push(
    `  kills: ${o.kills.map((k) => `${k / 1000} s`).join(', ') || 'none'}${o.fullOutage ? ' (the longest: every worker)' : ' (one worker of ' + o.workers + ')'}; server restart: ${o.restartDownMs ? 'yes' : 'no'}; 429 storm: ${o.stormMs ? `${o.stormMs / 1000} s simulated, ${r.storm.requests} × 429` : 'no'}`,
  );
  out.push(`  stack and logs: ${r.dir}`, '');
  const header = [
    'shop',
    'state',
    'items',
    'listings',
    'dup',
    'misrep',
    'lost',
    'missing',
    'report',
    '429s',
    'wall s',
    'hist B/item',
    'events/item',
    'runs',
    'sends/item',
  ];
  const rows = [header, ...r.shops.map(shopRow)];
  if (r.cancel?.shop) rows.push(shopRow(r.cancel.shop));
  out.push(table(rows), '');
  if (r.poison) {
    const p = r.poison;
    const span =
      p.firstAt !== undefined && p.lastAt !== undefined
        ? `, first refusal at ${p.firstAt.toFixed(1)} s, last at ${p.lastAt.toFixed(1)} s (${(p.lastAt - p.firstAt).toFixed(1)} s)`
        : '';
    out.push(
      `poison ${p.sku}: ${p.status}${p.code ? ` (${p.code})` : ''} after ${p.sends} refused sends${span}`,
    );
  }
  if (r.cancel) {
    const c = r.cancel;
    out.push(
      `cancel: ${c.shop?.state ?? '?'}; ${c.trigger}; accepted in ${c.landed ?? '?'}; creates after the acknowledgement: ${c.sentAfterAck}${c.error ? `; ${c.error}` : ''}`,
    );
  }
  for (const w of r.workers)
    if (w.crashes.length)
      out.push(`${w.name} exited on its own ${w.crashes.length} time(s): ${w.crashes.join('; ')}`);
  out.push('', 'events:', ...r.events.map((e) => `  ${e.at.toFixed(1).padStart(7)} s  ${e.what}`));
  out.push('', `wall time ${(r.wallMs / 1000).toFixed(1)} s`);
  if (r.failures.length) out.push('', `FAILED (${r.failures.length}):`, ...r.failures.map((f) => `  ${f}`));
  else
    out.push(
      '',
      'OK: every shop has exactly its items, 0 duplicates, 0 misreported, 0 lost, 0 missing report lines',
    );
  return out.join('\n');
}
