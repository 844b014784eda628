// Not a home: the actions' shared code lives by concern (operation.ts, resource.ts, productRef.ts,
// productFields.ts, parameters.ts, paging.ts, options.ts). Kept only for the tests that import these
// names from here (test/picker.test.mts, test/transport.test.mts); code imports from the homes.
export { MAX_PAGES } from './paging';
export { PRODUCT_ID_PATTERN, PRODUCT_URL_PATTERN, parseProductLocator } from './productRef';
