// A resource's part of the node's properties: its Operation choice, then each operation's fields shown
// for that resource and operation only (n8n's display options).
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { OperationModule } from './operation';

/** What a resource module exports: its operations by Operation value, and its fields. */
export interface ResourceModule {
  operations: Record<string, OperationModule>;
  description: INodeProperties[];
}

/**
 * A resource's fields: its Operation choice (`options`, alphabetical as n8n wants, and `default`), then
 * each operation's fields, shown for that operation only.
 */
export function resourceDescription(
  resource: string,
  operations: Record<string, OperationModule>,
  { options, default: defaultOperation }: { options: INodePropertyOptions[]; default: string },
): INodeProperties[] {
  return [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      displayOptions: { show: { resource: [resource] } },
      options,
      default: defaultOperation,
    },
    ...Object.entries(operations).flatMap(([name, op]) => forOperation(resource, name, op.description)),
  ];
}

/** Shows `fields` for one resource and operation (keeping their own conditions). */
export function forOperation(
  resource: string,
  operation: string,
  fields: INodeProperties[],
): INodeProperties[] {
  return fields.map((field) => ({
    ...field,
    displayOptions: {
      ...field.displayOptions,
      show: { ...field.displayOptions?.show, resource: [resource], operation: [operation] },
    },
  }));
}

/**
 * A resource with one operation (`value`, run by `operation`): its Operation choice offers that
 * operation alone, so it is also the default.
 */
export function singleOperationResource(
  resource: string,
  value: string,
  operation: OperationModule,
  { name, ...option }: Omit<INodePropertyOptions, 'value'>,
): ResourceModule {
  const operations = { [value]: operation };
  return {
    operations,
    description: resourceDescription(resource, operations, {
      default: value,
      options: [{ name, value, ...option }],
    }),
  };
}
