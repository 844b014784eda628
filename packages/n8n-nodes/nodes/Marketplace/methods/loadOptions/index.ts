// Dynamic options of the Marketplace node (n8n's `methods.loadOptions`).
export { getAddresses } from './addresses';
export { getBrands, getProductTypes } from './catalogue';
export { getCurrencies } from './currencies';
export { getShippingProviders } from './providers';
