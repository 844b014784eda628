// The client's errors as n8n errors: local validation → NodeOperationError naming the field and rule;
// an API answer → NodeApiError with the status, the service's code and its error id.
// From node version 2 the messages speak the form's labels ("Discount Price (30.00) must be lower than
// Price (25.00)"), with the wire field, rule, code and error id in the error's description and context;
// version 1 keeps its messages as they were (a saved workflow may match on them).
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';
import { LocalValidationError, SellingApiError, type RuleViolation } from '@selling-kit/api-client/client';
import { labelMessage, labelOf } from './products/labels';

const speaksLabels = (node?: INode) => (node?.typeVersion ?? 1) >= 2;
const speaksFixes = (node?: INode) => (node?.typeVersion ?? 1) >= 3;

/**
 * Version 3: a hashtag refused as another brand's says how to fix it — "Description: Hashtag(s) #gucci
 * (Gucci) name another brand than the item's "Nike"; remove #gucci, or set Brand to Gucci". Any other
 * message is returned as it is.
 */
export function withFix(message: string): string {
  if (!/another brand/.test(message)) return message;
  const tags = [...message.matchAll(/#([^\s,()]+) \(([^)]+)\)/g)];
  if (tags.length === 0) return message;
  const names = tags.map((t) => `#${t[1]}`).join(', ');
  const fix = tags.length === 1 ? `remove ${names}, or set Brand to ${tags[0]![2]}` : `remove ${names}`;
  return `Description: ${message.replace(/\.$/, '')}; ${fix}`;
}
const say = (node: INode | undefined, message: string) => (speaksFixes(node) ? withFix(message) : message);

/** One violation in the form's words, then what a developer needs: "Price (price_amount): …, code validation". */
const violationLine = (v: RuleViolation) =>
  `${labelMessage(v.message, v.field)} — field ${labelOf(v.field)} (${v.field}), rule "${v.rule}", code ${v.code}.`;

/** An API error's message in the form's words (the service names the fields by their wire names). */
const apiMessage = (error: SellingApiError) => labelMessage(error.message);

export function toNodeError(
  node: INode,
  error: unknown,
  itemIndex: number,
): NodeApiError | NodeOperationError {
  if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
  const labels = speaksLabels(node);
  if (error instanceof LocalValidationError) {
    const first = error.violations[0];
    if (labels) {
      const failure = new NodeOperationError(
        node,
        say(node, first ? labelMessage(first.message, first.field) : error.message),
        {
          itemIndex,
          description: [...error.violations.map(violationLine), 'Nothing was sent to the marketplace.'].join(
            '\n',
          ),
        },
      );
      Object.assign(failure.context, {
        code: error.code,
        field: first?.field,
        rule: first?.rule,
        violations: error.violations,
      });
      return failure;
    }
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
    const errorIdLine = error.errorId ? `Error id ${error.errorId} (quote it to the marketplace)` : undefined;
    const failure = new NodeApiError(node, details as JsonObject, {
      itemIndex,
      httpCode: error.status ? String(error.status) : undefined,
      message: labels ? say(node, apiMessage(error)) : `${error.code}: ${error.message}`,
      description: labels
        ? [`Code ${error.code}${error.status ? `, HTTP ${error.status}` : ''}`, errorIdLine]
            .filter(Boolean)
            .join('. ')
        : errorIdLine,
    });
    if (labels) Object.assign(failure.context, { code: error.code, errorId: error.errorId ?? null });
    return failure;
  }
  return new NodeOperationError(node, error as Error, { itemIndex });
}

/**
 * What a failed item carries with Continue On Fail: the code and error id stay machine-readable, and
 * each violation carries its form `label` too. With the node at version 2, `error` is in the form's
 * words; version 1 keeps its text.
 */
export function errorJson(error: unknown, node?: INode): JsonObject {
  const labels = speaksLabels(node);
  if (error instanceof LocalValidationError) {
    const first = error.violations[0];
    return {
      error: labels && first ? say(node, labelMessage(first.message, first.field)) : error.message,
      code: error.code,
      violations: error.violations.map((v) => ({ ...v, label: labelOf(v.field) })) as unknown as JsonObject[],
    };
  }
  if (error instanceof SellingApiError)
    return {
      error: labels ? say(node, apiMessage(error)) : error.message,
      code: error.code,
      errorId: error.errorId ?? null,
      status: error.status ?? null,
    };
  return { error: (error as Error).message };
}
