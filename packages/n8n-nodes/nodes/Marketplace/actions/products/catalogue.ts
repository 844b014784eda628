// The listing form's catalogue checks (node version 3): a brand the marketplace would not recognise is
// refused before anything is sent (a typo must not publish a listing as unbranded), with the closest
// brands as suggestions; a product type the service refuses in a department gets the department's
// types and the closest ones added to its error. Names, departments and matching are the client
// core's catalogue (`PRODUCT_TYPES`, `recogniseBrand`, `closeMatches`).
import { NodeOperationError, type INode } from 'n8n-workflow';
import {
  closeMatches,
  KNOWN_BRANDS,
  productTypesOf,
  recogniseBrand,
  SellingApiError,
} from '@selling-kit/api-client/core';
import { DEPARTMENT_OPTIONS } from './formOptions';
import { label } from './labels';
import { reworded } from './brand';

/** Options → the switch's name, and its default (on: an unknown brand fails the item). */
export const FAIL_ON_UNKNOWN_BRAND = 'failOnUnknownBrand';
export const FAIL_ON_UNKNOWN_BRAND_DEFAULT = true;

const didYouMean = (names: string[]) =>
  names.length
    ? ` — did you mean ${names.slice(0, -1).join(', ')}${names.length > 1 ? ' or ' : ''}${names.at(-1)}?`
    : '';

/**
 * Refuses, before any request, a brand the marketplace would not recognise (it would list the item as
 * unbranded): "Brand "Guci" is not recognised — did you mean Gucci?".
 */
export function checkBrand(node: INode, typed: string, itemIndex: number): void {
  if (recogniseBrand(typed)) return;
  throw new NodeOperationError(
    node,
    `${label('brand_name')} "${typed}" is not recognised${didYouMean(closeMatches(typed, KNOWN_BRANDS))}`,
    {
      itemIndex,
      description:
        'Nothing was sent to the marketplace. Pick the brand from the list, write unbranded if the item has ' +
        'none, or turn off Options → Fail If Brand Not Recognised to send it as typed (the marketplace ' +
        'then lists the item as unbranded).',
    },
  );
}

const departmentName = (value: string) => DEPARTMENT_OPTIONS.find((o) => o.value === value)?.name ?? value;

/**
 * The service's refusal of a product type in a department (`invalid_department`), with the types that
 * department has and the closest ones: the same error (code, status, error id kept), a clearer message.
 * Any other error, or a type the catalogue has in that department, is returned as it is.
 */
export function explainProductType(error: unknown, productType: string, department: string): unknown {
  if (!(error instanceof SellingApiError) || error.code !== 'invalid_department' || !productType)
    return error;
  const types = productTypesOf(department);
  if (types.length === 0 || types.includes(productType)) return error;
  return reworded(
    error,
    `${label('product_type')} "${productType}" does not exist in ${label('department')} ` +
      `"${departmentName(department)}"${didYouMean(closeMatches(productType, types)) || '.'} ` +
      `Product types there: ${types.join(', ')}.`,
  );
}
