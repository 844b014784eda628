// Reading an item's parameters the way every operation does: which version of the node runs, a JSON
// parameter as an object, and optional fields without the empty values n8n gives untouched ones.
import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

/** Whether the node runs as version 2 or later (the picker, full records out). */
export function isV2(ctx: IExecuteFunctions): boolean {
  return Number(ctx.getNode().typeVersion ?? 1) >= 2;
}

/** A JSON parameter (an object), or a NodeOperationError naming it. */
export function jsonObject(this: IExecuteFunctions, name: string, label: string, i: number): IDataObject {
  const raw = this.getNodeParameter(name, i, '{}') as unknown;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as IDataObject;
  try {
    const parsed = JSON.parse(String(raw || '{}')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as IDataObject;
  } catch {
    // reported below
  }
  throw new NodeOperationError(this.getNode(), `${label}: must be a JSON object`, { itemIndex: i });
}

/** Drops empty strings and undefined values (n8n gives '' for untouched optional fields). */
export function compact(body: IDataObject): IDataObject {
  return Object.fromEntries(
    Object.entries(body).filter(([, v]) => v !== '' && v !== undefined && v !== null),
  );
}
