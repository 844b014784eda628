// Dynamic options of the Marketplace node (n8n's `methods.loadOptions`).
export { getAddresses } from './addresses';
export { getCurrencies } from './currencies';
export { getShippingProviders } from './providers';
