// The client's errors as n8n errors: local validation → NodeOperationError naming the field and rule;
// an API answer → NodeApiError with the status, the service's code and its error id.
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';
import { LocalValidationError, SellingApiError } from '@selling-kit/api-client/client';

export function toNodeError(
  node: INode,
  error: unknown,
  itemIndex: number,
): NodeApiError | NodeOperationError {
  if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
  if (error instanceof LocalValidationError) {
    const first = error.violations[0];
    const where = first ? `${first.field}: ${first.rule}` : 'request';
    return new NodeOperationError(node, `Invalid ${where} — ${first?.message ?? error.message}`, {
      itemIndex,
      description: error.violations.map((v) => `${v.field} (${v.rule}): ${v.message}`).join('\n'),
    });
  }
  if (error instanceof SellingApiError) {
    const details = {
      code: error.code,
      errorId: error.errorId ?? null,
      status: error.status ?? null,
      message: error.message,
    };
    return new NodeApiError(node, details as JsonObject, {
      itemIndex,
      httpCode: error.status ? String(error.status) : undefined,
      message: `${error.code}: ${error.message}`,
      description: error.errorId ? `Error id ${error.errorId} (quote it to the marketplace)` : undefined,
    });
  }
  return new NodeOperationError(node, error as Error, { itemIndex });
}

/** What a failed item carries with Continue On Fail: the code and error id stay machine-readable. */
export function errorJson(error: unknown): JsonObject {
  if (error instanceof LocalValidationError)
    return {
      error: error.message,
      code: error.code,
      violations: error.violations as unknown as JsonObject[],
    };
  if (error instanceof SellingApiError)
    return {
      error: error.message,
      code: error.code,
      errorId: error.errorId ?? null,
      status: error.status ?? null,
    };
  return { error: (error as Error).message };
}
