// Dynamic options from the client core's catalogue (version 3's listing form): the brands the
// marketplace recognises, and the product types of the chosen Department — Create's and Replace's
// Department, or Update's Update Fields → Department, or else the department of the product Update
// has picked (read from the shop); with none known, every type, its departments in the label.
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { KNOWN_BRANDS, PRODUCT_TYPES, productTypesOf, UNBRANDED } from '@selling-kit/api-client/core';
import { parseProductLocator } from '../../actions/productRef';
import { DEPARTMENT_OPTIONS } from '../../actions/products/formOptions';
import { clientFor } from '../client';

const TYPE_NAMES: Record<string, string> = { tshirts: 'T-Shirts' };
const typeName = (value: string) => TYPE_NAMES[value] ?? value.charAt(0).toUpperCase() + value.slice(1);
const departmentName = (value: string) => DEPARTMENT_OPTIONS.find((o) => o.value === value)?.name ?? value;

export async function getBrands(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  return [
    { name: 'Unbranded', value: UNBRANDED, description: 'The item has no brand (buyers see "Other")' },
    ...[...KNOWN_BRANDS].sort((a, b) => a.localeCompare(b)).map((brand) => ({ name: brand, value: brand })),
  ];
}

/** A parameter beside the field, or undefined when this operation has none (or it is an expression). */
function current(ctx: ILoadOptionsFunctions, path: string): unknown {
  try {
    const value = ctx.getCurrentNodeParameter(path);
    return typeof value === 'string' && (value === '' || value.startsWith('=')) ? undefined : value;
  } catch {
    return undefined;
  }
}

/** The department the Product Type list follows (see the header), or undefined. */
async function chosenDepartment(ctx: ILoadOptionsFunctions): Promise<string | undefined> {
  for (const path of ['department', 'updateFields.department']) {
    const value = current(ctx, path);
    if (typeof value === 'string') return value;
  }
  const locator = current(ctx, 'product') as { value?: unknown } | undefined;
  if (!locator || String(locator.value ?? '').startsWith('=')) return undefined;
  const ref = parseProductLocator(locator);
  if (typeof ref === 'string') return undefined;
  try {
    return (await (await clientFor(ctx)).products.get(ref)).department;
  } catch {
    return undefined; // the product cannot be read now: the whole list is still useful
  }
}

export async function getProductTypes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const department = await chosenDepartment(this);
  const types = productTypesOf(department);
  return types.map((value) => ({
    name: typeName(value),
    value,
    ...(department
      ? {}
      : { description: `In ${PRODUCT_TYPES[value]!.departments.map(departmentName).join(', ')}` }),
  }));
}
