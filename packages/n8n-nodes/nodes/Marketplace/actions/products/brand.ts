// When the marketplace does not recognise the brand a user typed, it lists the item as unbranded
// (public reference: "no match → unbranded") without failing. The user must hear of it: a notice in
// the item's output after a create, and the reason spelled out when a hashtag is then refused as
// "another brand" (the service tags against the brand it matched, not the name typed).
import { normaliseBrand, SellingApiError, ValidationError } from '@selling-kit/api-client/core';

/** The brand value that means "no brand" (shown to buyers as "Other"). */
export const UNBRANDED = 'unbranded';

const namesABrand = (typed: string) => ![UNBRANDED, ''].includes(normaliseBrand(typed));

/** The notice for a listing read back as unbranded although a brand was typed, else undefined. */
export function brandNotice(typed: string, matched: unknown): string | undefined {
  if (typeof matched !== 'string' || !namesABrand(typed) || normaliseBrand(matched) !== UNBRANDED) return;
  return (
    `Brand "${typed}" was not recognised by the marketplace, so the listing shows as unbranded ("Other"). ` +
    "Check the brand's spelling (e.g. Levi's, The North Face) and update the listing, or write unbranded if it has none."
  );
}

/**
 * The same refusal in clearer words: its code, status, error id, request id and attempts kept, the API's
 * own error as the cause (so a user's error id still finds it in the marketplace's logs).
 */
export function reworded(error: SellingApiError, message: string): ValidationError {
  const explained = new ValidationError({
    status: error.status,
    code: error.code,
    errorId: error.errorId,
    operationId: error.operationId,
    requestId: error.requestId,
    cause: error,
    message,
  });
  explained.attempts = error.attempts;
  return explained;
}

/**
 * A hashtag refused as another brand because the typed brand became unbranded: the same error (code,
 * status, error id kept) whose message starts with the reason. Any other error is returned as it is.
 */
export function explainBrandRefusal(error: unknown, typed: string): unknown {
  if (
    !(error instanceof SellingApiError) ||
    error.code !== 'invalid_description' ||
    !namesABrand(typed) ||
    !new RegExp(`\\b${UNBRANDED}\\b`, 'i').test(error.message)
  )
    return error;
  return reworded(
    error,
    `Brand "${typed}" was not recognised, so the marketplace lists the item as unbranded and refuses ` +
      `brand hashtags. Use the brand's exact name or remove the tag (${error.message})`,
  );
}
