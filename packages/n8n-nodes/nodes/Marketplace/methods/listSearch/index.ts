// Resource-locator searches of the Marketplace node (n8n's `methods.listSearch`).
export { searchProducts } from './searchProducts';
