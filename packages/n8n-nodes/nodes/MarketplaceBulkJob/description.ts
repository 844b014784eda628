// The Bulk Job node's parameters, version 1 and 2 side by side: version 2 feeds jobs from the
// workflow's items or a binary file, picks shops from the worker's list, has one Job ID field per
// operation, and gives a job's report as one item per listing (Get Report, or Start Job when it waits).
// Version-1 parameters stay (shown for `@version: [1]`) so saved workflows keep working.
import type { INodeProperties } from 'n8n-workflow';
import { shipOrderFields } from './shipOrder';

const V1 = { '@version': [1] };
const V2 = { '@version': [2] };
const start = { operation: ['start'] };

const FORMAT_OPTIONS = [
  { name: 'CSV', value: 'csv' },
  { name: 'JSON', value: 'json' },
  { name: 'NDJSON', value: 'ndjson' },
];

/** The feed as a path or URL the worker reads: version 1's only way, version 2's "Path or URL" source. */
const FEED_PATH = {
  displayName: 'Feed',
  name: 'feed',
  type: 'string',
  required: true,
  default: '',
  placeholder: '/data/feeds/listings.csv',
} as const;

/** The job Get Progress and Get Report read (version 1 reads progress through its optional Job ID). */
const JOB_TO_READ = {
  displayName: 'Job ID',
  name: 'jobId',
  type: 'string',
  required: true,
  default: '',
  placeholder: 'spring-drop',
  description: "The job to read, e.g. the jobId in a Start Job node's output",
} as const;

export const properties: INodeProperties[] = [
  {
    displayName:
      "Runs on your selling-kit deployment: Temporal and a selling-kit worker, which holds the shops' API keys and sends the requests. The credential holds Temporal's HTTP API address and the client key your deployment's operator issued.",
    name: 'setupNotice',
    type: 'notice',
    default: '',
  },
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Start Job',
        value: 'start',
        action: 'Start a bulk job',
        description: 'Start a job over a feed',
      },
      {
        name: 'Get Progress',
        value: 'progress',
        action: 'Get the progress of a job',
        description: 'Done, failed, pending, rate and ETA',
      },
      {
        name: 'Get Report',
        value: 'report',
        action: 'Get the report of a job',
        description:
          'One item per listing: its status, product ID and slug, or the error code and message (read by the worker from its job store)',
      },
      {
        name: 'Mark Order as Shipped',
        value: 'shipOrder',
        action: 'Mark an order as shipped',
        description:
          "Hand a parcel's tracking number to the order's flow: it marks the parcel shipped (verified, never twice) and stops its reminders",
      },
    ],
    default: 'start',
  },
  ...shipOrderFields,

  // --- the feed ------------------------------------------------------------------------------------
  {
    displayName: 'Feed Source',
    name: 'feedSource',
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Binary File',
        value: 'binary',
        description: 'A CSV, JSON or NDJSON file in a binary field of each input item (one job per item)',
      },
      {
        name: 'File Path or URL',
        value: 'path',
        description:
          "A file inside the worker's feed folders (SELLING_KIT_FEED_ROOTS), or an https URL of a public host (one job per item)",
      },
      {
        name: 'Input Items',
        value: 'inputItems',
        description: 'Each input item is one listing (one job for all the items)',
      },
    ],
    default: 'inputItems',
    displayOptions: { show: { ...start, ...V2 } },
  },
  {
    displayName:
      'Each input item is one listing, its fields named like the CSV feed\'s columns: sku, description, price_amount, price_currency, quantity, pictures (URLs separated by "|"), department, product_type, condition, brand_name, country_code… The items travel with the job, up to 1 MiB in all: bigger feeds go by file or URL.',
    name: 'inputItemsNotice',
    type: 'notice',
    default: '',
    displayOptions: { show: { ...start, feedSource: ['inputItems'], ...V2 } },
  },
  {
    displayName: 'Input Binary Field',
    name: 'binaryPropertyName',
    type: 'string',
    required: true,
    default: 'data',
    hint: 'The name of the input binary field holding the feed file (up to 1 MiB; it travels with the job)',
    displayOptions: { show: { ...start, feedSource: ['binary'], ...V2 } },
  },
  {
    ...FEED_PATH,
    description: 'A CSV, JSON or NDJSON file path on the worker, or an http(s) URL',
    displayOptions: { show: { ...start, ...V1 } },
  },
  {
    ...FEED_PATH,
    description:
      'A CSV, JSON or NDJSON file path on the worker (not on this n8n host, unless they share it), or an http(s) URL',
    displayOptions: { show: { ...start, feedSource: ['path'], ...V2 } },
  },
  {
    displayName: 'Feed Format',
    name: 'format',
    type: 'options',
    options: FORMAT_OPTIONS,
    default: 'csv',
    displayOptions: { show: { ...start, ...V1 } },
  },
  {
    displayName: 'Feed Format',
    name: 'format',
    type: 'options',
    options: FORMAT_OPTIONS,
    default: 'csv',
    displayOptions: { show: { ...start, feedSource: ['binary', 'path'], ...V2 } },
  },

  // --- shops and operation ---------------------------------------------------------------------------
  {
    displayName: 'Shops',
    name: 'shops',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'shop-a, shop-b',
    description: "Comma-separated shop names as the worker's credential store knows them",
    displayOptions: { show: { ...start, ...V1 } },
  },
  {
    displayName: 'Shop Names or IDs',
    name: 'shops',
    type: 'multiOptions',
    required: true,
    typeOptions: { loadOptionsMethod: 'getShops' },
    default: [],
    description:
      'The shops to list for, as the worker knows them (it holds their keys). Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    displayOptions: { show: { ...start, ...V2 } },
  },
  {
    displayName: 'What To Do',
    name: 'jobOperation',
    type: 'options',
    options: [
      { name: 'Create', value: 'create' },
      {
        name: 'Create or Update',
        value: 'upsert',
        description: 'Create a new record, or update the current one if it already exists (upsert)',
      },
      { name: 'Delete', value: 'delete' },
      { name: 'Full Update', value: 'update' },
      { name: 'Mark as Sold', value: 'mark_as_sold' },
      { name: 'Patch', value: 'patch' },
    ],
    default: 'create',
    displayOptions: { show: start },
  },

  // --- job id --------------------------------------------------------------------------------------
  {
    displayName: 'Job ID',
    name: 'jobId',
    type: 'string',
    default: '',
    description: 'Leave empty for a generated one (start); required to get progress',
    displayOptions: { show: { operation: ['start', 'progress'], ...V1 } },
  },
  {
    displayName: 'Job ID',
    name: 'jobId',
    type: 'string',
    default: '',
    placeholder: 'spring-drop',
    description:
      'Names the job and its report; leave empty for a generated one. An ID is never reused: a second start with it is refused.',
    displayOptions: { show: { ...start, ...V2 } },
  },
  { ...JOB_TO_READ, displayOptions: { show: { operation: ['progress', 'report'], ...V2 } } },
  { ...JOB_TO_READ, displayOptions: { show: { operation: ['report'], ...V1 } } },
  {
    displayName: 'Only Listings Needing Attention',
    name: 'needsAttention',
    type: 'boolean',
    default: false,
    description:
      'Whether to return only failed, invalid and unknown listings (a create left in doubt by a cancel)',
    displayOptions: { show: { operation: ['report'] } },
  },

  // --- waiting -------------------------------------------------------------------------------------
  {
    displayName: 'Wait for Completion',
    name: 'wait',
    type: 'boolean',
    default: true,
    description: 'Whether to wait until the job ends and return its final counts',
    displayOptions: { show: { ...start, ...V1 } },
  },
  {
    displayName: 'Wait for Completion',
    name: 'wait',
    type: 'boolean',
    default: false,
    description:
      'Whether to wait until the job ends and return its final counts. Off: the node returns the job ID at once and the job runs on in the worker (read it with Get Progress).',
    hint: "A waiting node keeps its execution open: n8n stops executions that pass their timeout (the workflow's Timeout setting, EXECUTIONS_TIMEOUT), while the job itself runs on. Keep Max Wait below it.",
    displayOptions: { show: { ...start, ...V2 } },
  },
  {
    displayName: 'Output',
    name: 'waitOutput',
    type: 'options',
    options: [
      {
        name: 'Job Counts',
        value: 'counts',
        description: "One item: the job's final state and counts",
      },
      {
        name: 'One Item per Listing',
        value: 'listings',
        description:
          "The job's report: each listing's status, product ID and slug, or the error code and message (input items as the feed: each paired with its item)",
      },
    ],
    default: 'counts',
    displayOptions: { show: { ...start, wait: [true], ...V2 } },
  },
  {
    displayName: 'Max Wait (Minutes)',
    name: 'maxWaitMinutes',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 60,
    displayOptions: { show: { ...start, wait: [true] } },
  },
];
