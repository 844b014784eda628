// Which job store a worker (or a CLI command) opens, from one setting, SELLING_KIT_JOB_STORE
// (JOB_STORE_ENV): a `postgres://` or `postgresql://` URL → the PostgreSQL store every worker of a
// deployment on several hosts shares (job-store-pg.ts); any other value → a folder on this host
// (job-store-local.ts); unset or empty → the folder ~/.selling-kit/jobs (`selling-kit dev`, one host).
// Also the retention setting the worker's schedule uses (SELLING_KIT_JOB_RETENTION_DAYS).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDatabaseUrl } from './token-store-open.ts';
import { redactDatabaseUrl } from './token-store-pg.ts';
import { DEFAULT_JOB_RETENTION_DAYS, JOB_STORE_ENV, type JobStore } from './job-store.ts';
import { createLocalJobStore } from './job-store-local.ts';
import { createPgJobStore } from './job-store-pg.ts';

/** Days a job's data is kept (the retention schedule's setting); default DEFAULT_JOB_RETENTION_DAYS. */
export const JOB_RETENTION_ENV = 'SELLING_KIT_JOB_RETENTION_DAYS';

/** The folder used when SELLING_KIT_JOB_STORE is not set. */
export const defaultJobStoreFolder = () => join(homedir(), '.selling-kit', 'jobs');

/** Where `spec` points, for logs: a folder, or the database URL without its password. */
export function describeJobStore(spec: string | undefined = process.env[JOB_STORE_ENV]): string {
  const value = spec?.trim();
  if (value && isDatabaseUrl(value)) return `postgres ${redactDatabaseUrl(value)}`;
  return `local folder ${value ? resolve(value) : defaultJobStoreFolder()}`;
}

/** Opens the store `spec` names (not yet migrated: the worker calls `migrate()` at start). */
export function openJobStore(spec: string | undefined = process.env[JOB_STORE_ENV]): JobStore {
  const value = spec?.trim();
  if (value && isDatabaseUrl(value)) return createPgJobStore({ url: value });
  return createLocalJobStore(value ? resolve(value) : defaultJobStoreFolder());
}

/** SELLING_KIT_JOB_RETENTION_DAYS: a positive number of days (fractions allowed), checked. */
export function jobRetentionDays(value: string | undefined = process.env[JOB_RETENTION_ENV]): number {
  if (value === undefined || value.trim() === '') return DEFAULT_JOB_RETENTION_DAYS;
  const days = Number(value);
  if (!Number.isFinite(days) || days <= 0)
    throw new Error(`${JOB_RETENTION_ENV} must be a positive number of days, not "${value}"`);
  return days;
}
