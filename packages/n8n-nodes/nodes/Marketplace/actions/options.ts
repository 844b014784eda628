// Option lists for `options` parameters: from a label per value, or from the core's enums (version 1's
// lists, each value title-cased).
import type { INodePropertyOptions } from 'n8n-workflow';
import { Condition, DEPARTMENTS } from '@selling-kit/api-client/core';

/** Options from a label per value (in the labels' order): `{ id_desc: 'Newest ID First' }`. */
export function labelledOptions(labels: Record<string, string>): INodePropertyOptions[] {
  return Object.entries(labels).map(([value, name]) => ({ name, value }));
}

/** The core's enums, in their own order (version 1's option lists). */
export const CONDITIONS: readonly string[] = Condition.options;
export { DEPARTMENTS };
const title = (v: string) => v.replace(/[_-]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
export const optionsOf = (values: readonly string[]) =>
  values.map((value) => ({ name: title(value), value }));
