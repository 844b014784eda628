export * from './bulk-listing.ts';
export * from './multi-shop.ts';
export * from './sale.ts';
export * from './reconcile-orders.ts';
export * from './seller-auth.ts';
export * from './shop-lane.ts';
export * from './app-budget.ts';
